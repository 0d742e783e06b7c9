"""Heading-aware chunking that is safe for Chinese, German and mixed text.

Sizes are estimated in model tokens: a CJK character counts about one token, a Latin word about
1.3, so a Chinese section and an English one of the same meaning get chunks of similar weight.
Splits happen at headings, then paragraphs, then sentences, and only as a last resort inside a
sentence, always between whole characters (Python strings are code points) and never inside a
Latin word when a space is near.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
LATIN_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+")
MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
# Headings flattened into one long line ("... text ### 5. Title? body ..."), as in exported notes.
INLINE_HEADING = re.compile(r"(?<=\S)\s+(?=#{2,6}\s+\S)")
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])")
TERMINAL_PUNCT = tuple(".。!！?？:：;；,，")


def estimate_tokens(text: str) -> int:
    cjk = len(CJK.findall(text))
    # A long unbroken run (a hash, base64) is many tokens, not one word: about 4 characters each.
    words = sum(max(1.3, len(w) / 4) for w in LATIN_WORD.findall(text))
    return cjk + round(words) + 1


@dataclass(frozen=True)
class Section:
    heading: tuple[str, ...]
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class Chunk:
    heading: str
    text: str
    index: int

    @property
    def embed_text(self) -> str:
        """What the embedding sees: the heading gives a short chunk its subject."""
        return f"{self.heading}\n{self.text}" if self.heading else self.text


FENCE = re.compile(r"^\s*(```|~~~)")


def _split_inline_headings(text: str) -> list[str]:
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        lines.extend(INLINE_HEADING.split(line) if "#" in line and not fenced else [line])
    return lines


def _inline_title(line: str) -> tuple[str, str]:
    """Split "### 5. Title? body..." into its title and the body that followed on the line."""
    match = MD_HEADING.match(line)
    assert match is not None
    rest = match.group(2)
    cut = re.search(r"[?？](?=\s|$)|[?？]", rest)
    if cut and cut.end() <= 120:
        return rest[: cut.end()].strip(), rest[cut.end() :].strip()
    if len(rest) <= 80:
        return rest, ""
    space = rest.rfind(" ", 0, 80)
    end = space if space > 20 else 60
    return rest[:end].strip(), rest[end:].strip()


def _looks_like_plain_heading(line: str, next_line: str | None) -> bool:
    stripped = line.strip()
    return (
        0 < len(stripped) <= 80
        and len(stripped.split()) <= 14
        and not stripped.endswith(TERMINAL_PUNCT)
        and not re.match(r"^([-*•>]|\d+[.)])\s", stripped)
        and bool(next_line and next_line.strip())
    )


def _next_text_line(lines: list[str], i: int) -> str | None:
    return next((line for line in lines[i + 1 :] if line.strip()), None)


def split_sections(text: str) -> list[Section]:
    """Sections with their heading path; Markdown headings if there are any, else short title lines."""
    lines = _split_inline_headings(text.replace("\r\n", "\n").replace("\r", "\n"))
    markdown = any(MD_HEADING.match(line) for line in lines)
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    paragraphs: list[str] = []
    current: list[str] = []

    def end_paragraph() -> None:
        if current:
            paragraphs.append(" ".join(s.strip() for s in current).strip())
            current.clear()

    def end_section() -> None:
        end_paragraph()
        body = tuple(p for p in paragraphs if p)
        if body:
            sections.append(Section(tuple(title for _, title in stack), body))
        paragraphs.clear()

    def open_heading(level: int, title: str) -> None:
        end_section()
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))

    fenced = False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
        heading = MD_HEADING.match(line) if markdown and not fenced and not FENCE.match(line) else None
        if heading:
            title, body = _inline_title(line)
            open_heading(len(heading.group(1)), title)
            if body:
                current.append(body)
        elif fenced or FENCE.match(line):
            current.append(line)
        elif not markdown and _looks_like_plain_heading(line, _next_text_line(lines, i)):
            open_heading(1, line.strip())
        elif not line.strip():
            end_paragraph()
        elif not markdown:
            # Plain text: every line is its own paragraph (summaries, lists of questions).
            current.append(line)
            end_paragraph()
        else:
            current.append(line)
    end_section()
    return sections


def _split_long(text: str, max_tokens: int) -> list[str]:
    """Split one paragraph at sentence ends; a sentence still too long is cut between characters."""
    pieces: list[str] = []
    for sentence in (s for s in SENTENCE_END.split(text) if s.strip()):
        while estimate_tokens(sentence) > max_tokens:
            cut = _cut_point(sentence, max_tokens)
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        pieces.append(sentence.strip())
    return [p for p in pieces if p]


def _cut_point(text: str, max_tokens: int) -> int:
    lo, hi = 1, len(text)
    while lo < hi:  # the longest prefix within budget
        mid = (lo + hi + 1) // 2
        if estimate_tokens(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    space = text.rfind(" ", 0, lo)
    return space if space > lo // 2 else lo


def opening(text: str, max_tokens: int) -> str:
    """The longest start of `text` within `max_tokens` (estimated), cut between words where it can."""
    return text if estimate_tokens(text) <= max_tokens else text[: _cut_point(text, max_tokens)].rstrip()


def _join(parts: list[str]) -> str:
    out = parts[0]
    for part in parts[1:]:
        glue = "" if CJK.match(part[:1] or " ") and CJK.search(out[-1:] or " ") else " "
        out += glue + part
    return out


HEADING_SEP = " › "
"""Between the levels of a chunk's heading path, and between a source and its heading."""


def section_title(heading: str) -> str:
    """The innermost section of a heading path: what says most about the chunk."""
    return heading.split(HEADING_SEP)[-1]


def reference_label(source: str, heading: str) -> str:
    """How a reference is named wherever it is shown: "source › heading"."""
    return f"{source}{HEADING_SEP}{heading}"


def chunk_text(text: str, max_tokens: int = 320, title: str = "") -> list[Chunk]:
    """Chunks of at most `max_tokens` (estimated), each labelled with its heading path."""
    chunks: list[Chunk] = []
    for section in split_sections(text):
        heading = HEADING_SEP.join(h for h in section.heading if h) or title
        units: list[str] = []
        for paragraph in section.paragraphs:
            units.extend(_split_long(paragraph, max_tokens) if estimate_tokens(paragraph) > max_tokens else [paragraph])
        batch: list[str] = []
        for unit in units:
            if batch and estimate_tokens(_join([*batch, unit])) > max_tokens:
                chunks.append(Chunk(heading, "\n\n".join(batch) if len(batch) > 1 else batch[0], len(chunks)))
                batch = []
            batch.append(unit)
        if batch:
            chunks.append(Chunk(heading, "\n\n".join(batch) if len(batch) > 1 else batch[0], len(chunks)))
    return chunks
