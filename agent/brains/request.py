"""What a brain is given when it writes the interviewer's next line: built once by the graph (or
the replay), read by every brain."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agent.state import Assessment, Decision, Reference
from knowledge.models import Question


@dataclass(frozen=True)
class WriteRequest:
    question: Question
    decision: Decision
    """The move to make and its target; the line is written for this."""
    assessment: Assessment
    """Everything judged on the question so far, for the acknowledgement and the quote."""
    references: tuple[Reference, ...]
    """Our notes retrieved for the answer, which a hint may point to."""
    lang: str
    turn_number: int
    """The interviewer's count of lines in the session; it picks the phrasing variant."""
    asked: tuple[str, ...] = ()
    """The targets the candidate has been asked about on the question already: a hint that only
    repeats such a target's question is passed over."""
    partly: Mapping[str, str] = field(default_factory=dict)
    """Missing key points the candidate said something toward in any turn on the question, with
    their words (`listening.partly_said`): `assessment.near_misses` holds the last answer's only."""
