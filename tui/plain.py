"""The plain front end: a session in a plain terminal or a pipe, as text or one JSON event per line.

An answer ends at an empty line (or at the end of input). A line `/hint`, `/skip`, `/idk`,
`/repeat`, `/quit` or `/end` acts at once: at the start of an answer, instead of it; after an
answer's lines, once that answer is sent. `/quit` leaves the session resumable; `/end` ends it with
a report.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import IO

from agent.brains.parts import coverage_mark, gap_lines
from agent.interview.events import (
    Assessed,
    DraftKept,
    Event,
    PreviousGap,
    Prompted,
    QuestionDone,
    Recovered,
    SessionDone,
    Token,
)
from agent.interview.report import report_files
from agent.interview.runner import Interview
from agent.labels import Labels, labels
from agent.state import HINTED_AT_BEST, CandidateAction, InterviewState
from agent.text import clean_for_display, shorten
from common.terminal import terminal_safe_json
from knowledge.bank import Bank
from knowledge.models import Question

COMMANDS = {f"/{a.value}": a for a in CandidateAction if a is not CandidateAction.answer} | {"/quit": None}


class LineReader:
    """Reads stdin as bytes, so invalid UTF-8 becomes U+FFFD instead of an exception."""

    def __init__(self, stream: IO[bytes]):
        self.stream = stream
        self.pending: tuple[CandidateAction | None, str] | None = None
        """A command typed right after an answer's last line: it acts on the next read."""

    def reply(
        self, keep: Callable[[str], None] | None = None, begun: str = ""
    ) -> tuple[CandidateAction | None, str] | None:
        """(action, text); (None, "") for /quit; None at the end of input with nothing typed.
        `keep` is given the unfinished answer after each line (the draft); `begun` is a draft
        from before a restart, which the lines typed now continue."""
        if self.pending is not None:
            pending, self.pending = self.pending, None
            return pending
        lines: list[str] = begun.splitlines()
        while True:
            raw = self.stream.readline()
            if not raw:
                return (CandidateAction.answer, "\n".join(lines)) if lines else None
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if line.strip() in COMMANDS:
                # "answer\n/end" sends the answer, then ends: the command is never part of the answer.
                command = COMMANDS[line.strip()], ""
                if not lines:
                    return command
                self.pending = command
                return CandidateAction.answer, "\n".join(lines)
            if not line.strip():
                if lines:
                    return CandidateAction.answer, "\n".join(lines)
                continue
            lines.append(line)
            if keep is not None:
                keep("\n".join(lines))


class Renderer:
    def __init__(self, out: IO[str], jsonl: bool, bank: Bank, lang: str = "en"):
        self.out = out
        self.jsonl = jsonl
        self.bank = bank
        self.lang = lang
        self.say = labels(lang)
        """The words around the session's content, in the interviewer's language."""
        self.drill = False
        """A drill's session: its end says so (a trial's drill ended on "面试 … 已完成", its report on 练习报告)."""

    def show(self, event: Event) -> None:
        if isinstance(event, Token):
            return  # streamed text is shown whole with its follow_up event in a plain terminal
        if self.jsonl:
            line = {"type": event.type, **event.public()}
            self.out.write(terminal_safe_json(json.dumps(line, ensure_ascii=False)) + "\n")
        else:
            self.out.write(self._text(event))
        self.out.flush()

    def so_far(self, state: InterviewState) -> None:
        """On resume: which kind of session it is, and in a terminal the current question's exchanges
        so far, so the line waiting for an answer is not all there is (a program reading JSONL has
        them in the report)."""
        request = state.get("request")
        self.drill = bool(request and request.drill)
        pending = state.get("pending")
        turns = [t for t in state.get("turns", []) if pending is not None and t.question == pending.question]
        if self.jsonl or not turns:
            return
        number, of = state.get("position", 0) + 1, len(state.get("plan", []))
        for turn in turns:
            who = f"{number}/{of} {turn.question}" if turn.kind == "ask" else self.say.name("speakers", turn.kind)
            said = (
                clean_for_display(turn.answer)
                if turn.action is CandidateAction.answer
                else self.say("action_note", action=self.say.name("actions", turn.action.value))
            )
            self.out.write(f"\n[{who}] {clean_for_display(turn.asked)}\n> {said}\n")
        self.out.write(f"({self.say('resumed_here')})\n")
        self.out.flush()

    def _text(self, event: Event) -> str:
        say = self.say
        match event:
            case Prompted(kind="ask"):
                return f"\n[{event.number}/{event.of} {event.question}] {clean_for_display(event.text)}\n> "
            case Prompted():
                return f"\n[{say.name('speakers', event.speaker)}] {clean_for_display(event.text)}\n> "
            case Recovered():
                return f"\n{say('recovered', prompt=clean_for_display(event.prompt.text)[:80])}\n"
            case DraftKept():
                return f"{say('draft_kept')}\n{clean_for_display(event.text)}\n"
            case Assessed():
                # say.aside: "（有错误论断）" in a Chinese line, " (a wrong claim)" in an English one
                names = (say.name("flags", f) for f in event.flags)
                flags = say.aside(say("list_separator").join(names)) if event.flags else ""
                offline = (
                    f" [{say('scored_offline_short', reason=event.fallback_reason)}]" if event.fallback_reason else ""
                )
                return f"  {say('depth_so_far', depth=event.depth)}{flags}{offline}\n"
            case QuestionDone():
                said = f"\n[{say.name('speakers', 'reply')}] {clean_for_display(event.said)}\n" if event.said else ""
                return (
                    said
                    + f"  -> {say('question_done', question=event.question, depth=event.depth)}\n"
                    + _review(event, say, self.bank.get(event.question), self.lang)
                )
            case SessionDone():
                ended = "drill_ended" if self.drill else "session_ended"
                return f"\n{say(ended, session_id=event.session_id, status=say.status(event.status))}\n"
        return ""


def _review(done: QuestionDone, say: Labels, question: Question | None, lang: str) -> str:
    """The closed question's parts, as far as each was shown, what was shown only after a hint (named
    by the start of its statement; by its id for a question no longer in the bank), the wrong claims
    stated on it, and why progress counts it lower than its depth."""
    lines = []
    if len(done.parts) > 1:
        lines += [
            f"     {say.part_line(coverage_mark(p.shown, p.of), clean_for_display(p.text), p.shown, p.of, p.hinted)}"
            for p in done.parts
        ]
    if done.hinted:
        known = {kp.id: kp for kp in question.key_points} if question else {}
        named = [f"“{shorten(known[kp].statement_in(lang), 60)}”" if kp in known else kp for kp in done.hinted]
        lines.append(f"     {say('hinted_points', points='; '.join(named))}")
    # the wrong claims and what they cost, on screen too (blind trial 41 found them only in the report)
    for wrong in done.wrong:
        label = "wrong_claim_put_right" if wrong.put_right else "wrong_claim_stands"
        lines.append(f"     {say(label, quote=clean_for_display(shorten(wrong.quote, 80)))}")
    if done.capped_by:
        lines.append(f"     {say(done.capped_by, depth=HINTED_AT_BEST)}")
    return "".join(f"{line}\n" for line in lines)


async def drive(interview: Interview, first: AsyncIterator[Event], reader: LineReader, renderer: Renderer) -> str:
    """Run the session until it finishes ("finished"/"ended") or the candidate leaves ("paused")."""
    events = first
    while True:
        async for event in events:
            renderer.show(event)
            if isinstance(event, SessionDone):  # the report is exported by then
                markdown = report_files(interview.reports, interview.session_id)[0]
                if not renderer.jsonl and markdown.exists():
                    renderer.out.write(renderer.say("report_saved", path=markdown) + "\n")
                return event.status
        if interview.waiting is None:
            return "finished"
        begun = interview.draft() or ""  # only after a restart: sending an answer clears its draft
        if begun:
            renderer.show(DraftKept(begun))
        # A person types on to continue the draft; a program (JSONL) is told of it and sends its
        # answer whole, as it would have anyway after a crash (continuing would merge two answers).
        reply = reader.reply(interview.save_draft, "" if renderer.jsonl else begun)
        action, text = reply if reply is not None else (None, "")
        if action is None:
            if not renderer.jsonl:
                renderer.out.write(_left(interview, renderer.say))
            return "paused"
        events = interview.submit(action, text)


def _left(interview: Interview, say: Labels) -> str:
    """What the candidate is told on leaving, in the session's language: how to resume here (the
    plain front end: `--plain`, which a trial's candidate found missing), or that a session with
    nothing in it is closed as empty (as it is once this process lets it go)."""
    resume = f"rl-interview interview --plain --resume {interview.session_id}"
    if interview.kept_anything():
        return "\n" + say("plain_paused", command=resume) + "\n"
    return "\n" + say("plain_left_empty", session_id=interview.session_id, command=resume) + "\n"


class DrillRenderer(Renderer):
    """The plain front end of a drill: the interview's events, plus `previous_gap` (question,
    key_points) after the first answer on a question that opened on last time's gap."""

    def __init__(self, out: IO[str], jsonl: bool, bank: Bank, gaps: dict[str, list[str]], lang: str = "en"):
        super().__init__(out, jsonl, bank, lang)
        self.drill = True
        self.gaps = dict(gaps)
        self.still: list[str] = []
        """The last gap shown, less what the answer before it showed."""

    def show(self, event: Event) -> None:
        super().show(event)
        if isinstance(event, Assessed) and event.question in self.gaps:
            gap = self.gaps.pop(event.question)
            self.still = [kp for kp in gap if kp not in event.covered]
            super().show(PreviousGap(event.question, tuple(gap)))

    def _text(self, event: Event) -> str:
        if not isinstance(event, PreviousGap):
            return super()._text(event)
        if not self.still:
            return ""
        # As the TUI says it: what is still missing, by part, never the answers to what comes next
        lines = [f"  - {line}" for line in gap_lines(self.bank[event.question], self.still, self.say, self.lang)]
        return f"  {self.say('gap_note')}\n" + "\n".join(lines) + "\n"
