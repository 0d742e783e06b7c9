"""The plain front end: a session in a plain terminal or a pipe, as text or one JSON event per line.

An answer ends at an empty line (or at the end of input). A line `/hint`, `/skip`, `/idk`,
`/repeat`, `/quit` or `/end` at the start of an answer acts at once. `/quit` leaves the session
resumable; `/end` ends it with a report.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import IO

from agent.parts import coverage_mark
from agent.runner import Event, Interview
from agent.state import CandidateAction
from agent.text import clean_for_display
from knowledge.bank import Bank
from knowledge.terminal import terminal_safe_json

COMMANDS = {f"/{a.value}": a for a in CandidateAction if a is not CandidateAction.answer} | {"/quit": None}


class LineReader:
    """Reads stdin as bytes, so invalid UTF-8 becomes U+FFFD instead of an exception."""

    def __init__(self, stream: IO[bytes]):
        self.stream = stream

    def reply(
        self, keep: Callable[[str], None] | None = None, begun: str = ""
    ) -> tuple[CandidateAction | None, str] | None:
        """(action, text); (None, "") for /quit; None at the end of input with nothing typed.
        `keep` is given the unfinished answer after each line (the draft); `begun` is a draft
        from before a restart, which the lines typed now continue."""
        lines: list[str] = begun.splitlines()
        while True:
            raw = self.stream.readline()
            if not raw:
                return (CandidateAction.answer, "\n".join(lines)) if lines else None
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if not lines and line.strip() in COMMANDS:
                return COMMANDS[line.strip()], ""
            if not line.strip():
                if lines:
                    return CandidateAction.answer, "\n".join(lines)
                continue
            lines.append(line)
            if keep is not None:
                keep("\n".join(lines))


class Renderer:
    def __init__(self, out: IO[str], jsonl: bool, bank: Bank):
        self.out = out
        self.jsonl = jsonl
        self.bank = bank

    def show(self, event: Event) -> None:
        if event.type == "token":
            return  # streamed text is shown whole with its follow_up event in a plain terminal
        if self.jsonl:
            self.out.write(
                terminal_safe_json(json.dumps({"type": event.type, **_public(event)}, ensure_ascii=False)) + "\n"
            )
        else:
            self.out.write(self._text(event))
        self.out.flush()

    def _text(self, event: Event) -> str:
        d = event.data
        if event.type in ("ask", "follow_up", "hint"):
            head = (
                f"[{d['number']}/{d['of']} {d['question']}]"
                if event.type == "ask"
                else f"[{event.type.replace('_', '-')}]"
            )
            return f"\n{head} {clean_for_display(d['text'])}\n> "
        if event.type == "recovered":
            return f"\n(recovered your saved reply to: {clean_for_display(d['text'])[:80]})\n"
        if event.type == "draft":
            return (
                "(your unsent answer from before, kept; type on to continue it, an empty line sends it)\n"
                f"{clean_for_display(d['text'])}\n"
            )
        if event.type == "assessment":
            flags = f" ({', '.join(d['flags'])})" if d["flags"] else ""
            offline = f" [scored offline: {d['fallback_reason']}]" if d.get("fallback_reason") else ""
            return f"  depth so far: {d['depth']}/4{flags}{offline}\n"
        if event.type == "question_done":
            return f"  -> {d['question']} done at depth {d['depth']}/4\n" + _review(d)
        if event.type == "session_done":
            return f"\nSession {d['session_id']} {d.get('status', 'finished')}.\n"
        return ""


def _review(done: dict) -> str:
    """The closed question's parts, as far as each was shown, and what was shown only after a hint."""
    lines = []
    if len(done.get("parts") or []) > 1:
        lines += [
            f"     {coverage_mark(p['shown'], p['of'])} {clean_for_display(p['text'])} ({p['shown']}/{p['of']}"
            + (", with a hint)" if p["hinted"] else ")")
            for p in done["parts"]
        ]
    if done.get("hinted"):
        lines.append(f"     with a hint: {', '.join(done['hinted'])}")
    return "".join(f"{line}\n" for line in lines)


def _public(event: Event) -> dict:
    d = dict(event.data)
    if event.type in ("ask", "follow_up", "hint", "recovered"):
        keys = ["question", "text"] + (["target"] if event.type != "ask" else []) + ["number", "of"]
        if event.type == "recovered":
            keys += ["action", "answer"]
        d = {k: d.get(k) for k in keys}
        d["text"] = clean_for_display(d["text"] or "")
    return d


async def drive(interview: Interview, first: AsyncIterator[Event], reader: LineReader, renderer: Renderer) -> str:
    """Run the session until it finishes ("finished"/"ended") or the candidate leaves ("paused")."""
    events = first
    while True:
        async for event in events:
            renderer.show(event)
            if event.type == "session_done":  # the report is exported by then
                return event.data.get("status", "finished")
        if interview.waiting is None:
            return "finished"
        begun = interview.draft() or ""  # only after a restart: sending an answer clears its draft
        if begun:
            renderer.show(Event("draft", {"text": begun}))
        # A person types on to continue the draft; a program (JSONL) is told of it and sends its
        # answer whole, as it would have anyway after a crash (continuing would merge two answers).
        reply = reader.reply(interview.save_draft, "" if renderer.jsonl else begun)
        action, text = reply if reply is not None else (None, "")
        if action is None:
            if not renderer.jsonl:
                renderer.out.write(f"\nPaused. Resume with: rl-interview interview --resume {interview.session_id}\n")
            return "paused"
        events = interview.submit(action, text)
