"""What a front end hears from an interview: one frozen dataclass per kind of event.

The graph's nodes write these events to its stream as they are (the stream is not checkpointed).
Its checkpoints keep the interviewer's waiting turn as a plain dict, `asdict(Prompted)` (sessions
saved by earlier releases hold it that way), which the runner reads back as a `Prompted`. So front
ends match on classes and read typed fields. `public()` is an event's line in the JSONL stream of
the plain front end, which scripts read: its keys and values do not change.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, TypedDict

from agent.brains.parts import PartCoverage
from agent.state import CandidateAction, PromptKind
from common.terminal import clean_for_display


class Reply(TypedDict):
    """What a front end sends back to the interviewer's waiting turn (the graph's resume value).
    Both keys are always sent; the graph still reads a reply missing one as an answer with no text."""

    action: CandidateAction
    text: str
    """The candidate's words ("" for an action that has none, such as skip)."""


def _as_json(value: Any) -> Any:
    """A field as its JSONL line holds it: tuples (which keep events frozen) become lists."""
    if isinstance(value, tuple | list):
        return [_as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_json(item) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class Event:
    TYPE: ClassVar[str]

    @property
    def type(self) -> str:
        """The event's name in the JSONL stream."""
        return self.TYPE

    def public(self) -> dict[str, Any]:
        return _as_json(asdict(self))


@dataclass(frozen=True)
class Prompted(Event):
    """The interviewer asked, followed up or hinted, and waits for the candidate's reply."""

    kind: PromptKind
    question: str
    text: str
    number: int
    of: int
    turn: int
    follow_ups: int = 0
    target: str | None = None
    base: str | None = None
    """What is being asked, without the reply in front of it (to a clarifying question, a request
    to repeat, a pause); None when `text` is just that."""
    answering: str | None = None
    """The request this line answers ("clarify", "wait", "terse"); None for a line that asks."""

    @property
    def type(self) -> str:
        return self.kind

    @property
    def speaker(self) -> str:
        """Who speaks, for the label over the line: a reply to a request (a pause, a clarifying
        question) on a follow-up or a hint is the interviewer's own line, not another hint."""
        return "reply" if self.answering is not None and self.kind != "ask" else self.kind

    @property
    def opens_question(self) -> bool:
        """The question itself (or a drill's opening probe), not a follow-up or a hint on it."""
        return self.kind == "ask"

    @classmethod
    def of_payload(cls, payload: dict[str, Any]) -> Prompted:
        """From the graph's interrupt (a dict with more keys than a front end needs)."""
        return cls(**{f.name: payload[f.name] for f in fields(cls) if f.name in payload})

    def public(self) -> dict[str, Any]:
        return self.shown(with_target=not self.opens_question)

    def shown(self, with_target: bool) -> dict[str, Any]:
        """The turn as a front end shows it (the text safe for a terminal)."""
        out: dict[str, Any] = {"question": self.question, "text": clean_for_display(self.text)}
        if with_target:
            out["target"] = self.target
        return {**out, "number": self.number, "of": self.of}


@dataclass(frozen=True)
class Token(Event):
    """A piece of a follow-up a model is still writing."""

    TYPE = "token"
    text: str


@dataclass(frozen=True)
class Assessed(Event):
    """An answer was judged: the question's depth so far and what it rests on."""

    TYPE = "assessment"
    question: str
    depth: int
    covered: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    brain: str = "offline"
    fallback_reason: str | None = None


@dataclass(frozen=True)
class PartShown:
    """How far one part of a closed question was shown, as the question's review lists it."""

    part: str
    """The part's id."""
    text: str
    """The part, in the session's language."""
    shown: int
    """How many of its key points were shown, out of `of`."""
    of: int
    hinted: bool
    """Some of what was shown on it came after a hint."""

    @classmethod
    def of_coverage(cls, coverage: PartCoverage, lang: str) -> PartShown:
        return cls(coverage.part.id, coverage.part.get(lang), coverage.shown, coverage.of, coverage.hinted)


@dataclass(frozen=True)
class WrongShown:
    """A wrong claim stated on a closed question, as its review lists it."""

    quote: str
    put_right: str | None = None
    """The later sentence that put it right; None while it stands."""


@dataclass(frozen=True)
class QuestionDone(Event):
    """A question closed; `parts` is its coverage per part, `hinted` what was shown after a hint."""

    TYPE = "question_done"
    question: str
    depth: int
    parts: tuple[PartShown, ...] = ()
    hinted: tuple[str, ...] = ()
    said: str | None = None
    """What the interviewer says as the question closes: the answer to a last "I already said that"
    (what was found in the earlier answers, or that nothing was), the correction of a wrong claim
    no follow-up got to challenge, or a word that closes it."""
    wrong: tuple[WrongShown, ...] = ()
    capped_by: str | None = None
    """Why progress counts the question below its depth (a label: a hint, a wrong claim), or None."""


@dataclass(frozen=True)
class SessionDone(Event):
    """The session is over and recorded everywhere (index, report)."""

    TYPE = "session_done"
    session_id: str
    status: str = "finished"


@dataclass(frozen=True)
class Recovered(Event):
    """A reply saved before an interruption is being submitted again, to the turn it answers."""

    TYPE = "recovered"
    prompt: Prompted
    action: str
    answer: str

    def public(self) -> dict[str, Any]:
        return {**self.prompt.shown(with_target=True), "action": self.action, "answer": self.answer}


@dataclass(frozen=True)
class DraftKept(Event):
    """The plain front end found an unsent answer from before (it is not sent until finished)."""

    TYPE = "draft"
    text: str


@dataclass(frozen=True)
class PreviousGap(Event):
    """A drill's question opened on last time's gap: the key points not shown then."""

    TYPE = "previous_gap"
    question: str
    key_points: tuple[str, ...]


Streamed = Token | Assessed | QuestionDone | SessionDone
"""The events the graph's nodes write to its stream."""
