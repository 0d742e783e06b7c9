"""Reading source documents for the knowledge store (refusing bad ones with one clear reason), and
the rows their chunks are stored as."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common.errors import InputError
from knowledge.bank import NOTES_DIR, QUESTION_LINE
from knowledge.chunking import chunk_text


class DocumentError(InputError):
    """A source file that cannot be ingested; str() is the one-line reason with the path."""


@dataclass(frozen=True)
class Document:
    key: str
    """Stable identity of the source in the store (a package-relative name for our notes)."""
    path: Path
    text: str
    sha256: str
    question_id: str | None
    title: str


def source_key(path: Path) -> str:
    try:
        return f"notes/{path.resolve().relative_to(NOTES_DIR.resolve())}"
    except ValueError:
        return str(path.resolve())


def read_document(path: Path, max_bytes: int) -> Document:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read ({exc.strerror})") from None
    if not raw.strip():
        raise DocumentError(f"{path}: empty file, skipped")
    if len(raw) > max_bytes:
        raise DocumentError(f"{path}: too large ({len(raw) / 1e6:.1f} MB > {max_bytes / 1e6:.1f} MB limit), skipped")
    if b"\x00" in raw[:8192]:
        raise DocumentError(f"{path}: binary file (NUL bytes), skipped")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DocumentError(
            f"{path}:{line}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}), skipped"
        ) from None
    question = QUESTION_LINE.search(text)
    title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.strip()), path.stem)
    return Document(
        key=source_key(path),
        path=path,
        text=QUESTION_LINE.sub("", text) if question else text,
        sha256=hashlib.sha256(raw).hexdigest(),
        question_id=question.group(1) if question else None,
        title=title[:120],
    )


def discover(sources: Iterable[Path]) -> tuple[list[Path], list[str]]:
    """Files to ingest under the given files/folders, and one message per source that is unusable."""
    files: list[Path] = []
    problems: list[str] = []
    for source in sources:
        if source.is_dir():
            files.extend(sorted(p for p in source.rglob("*") if p.is_file() and not p.name.startswith(".")))
        elif source.is_file():
            files.append(source)
        else:
            problems.append(f"{source}: no such file or folder, skipped")
    return files, problems


def default_sources() -> list[Path]:
    return [NOTES_DIR]


@dataclass
class Found:
    """The documents under some sources, by key (the first of two files with one key wins)."""

    documents: dict[str, Document] = field(default_factory=dict)
    unreadable: set[str] = field(default_factory=set)
    """Keys of files that could not be read: what a store keeps of them is left as it was."""
    skipped: list[str] = field(default_factory=list)
    """Why each left-out file was left out."""


def read_documents(sources: Iterable[Path], max_bytes: int) -> Found:
    files, skipped = discover(sources)
    found = Found(skipped=skipped)
    for path in files:
        try:
            doc = read_document(path, max_bytes)
        except DocumentError as exc:
            found.skipped.append(str(exc))
            found.unreadable.add(source_key(path))
            continue
        found.documents.setdefault(doc.key, doc)
    return found


@dataclass(frozen=True)
class ChunkRow:
    """One chunk as the collection stores it."""

    id: str
    text: str
    embed_text: str
    metadata: dict[str, Any]


def chunk_rows(doc: Document, chunk_tokens: int) -> list[ChunkRow]:
    return [
        ChunkRow(
            id=f"{doc.sha256[:16]}:{chunk.index}:{doc.key}",
            text=chunk.text,
            embed_text=chunk.embed_text,
            metadata={
                "source": doc.key,
                "sha256": doc.sha256,
                "heading": chunk.heading,
                "question_id": doc.question_id or "",
                "chunk": chunk.index,
            },
        )
        for chunk in chunk_text(doc.text, chunk_tokens, title=doc.title)
    ]
