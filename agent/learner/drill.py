"""Drills: short sessions on what the candidate is weakest at, in the order that pays off most.

The queue: questions whose FSRS card is due (most overdue first), then questions already seen on
a topic not mastered yet (weakest topic first, then lowest depth), then questions never asked
(easier first); a seen question on mastered topics waits until its card is due. A seen question
opens with the probe of the lowest-level key point not shown yet, not the whole question again,
and allows one follow-up; after the first answer the front end shows last time's gap.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from agent.learner.profile import History, mastery
from agent.planning import PlanError, PlanRequest
from knowledge.bank import Bank
from knowledge.models import Question

DRILL_FOLLOW_UPS = 1
"""The opener is itself a probe, so a drilled question takes two exchanges at most."""
DEFAULT_COUNT = 3
MASTERED = 0.75
"""A seen question whose topics are all at least this well mastered waits for its card to be due."""


@dataclass(frozen=True)
class DrillOptions:
    topic: str | None = None
    count: int = DEFAULT_COUNT


Why = Literal["due", "weak topic", "new", "chosen"]
"""Why a question is drilled: its place in the queue, or the candidate chose it in the library."""


@dataclass(frozen=True)
class DrillItem:
    question: str
    why: Why
    opener: str | None
    """The key point to open with: the lowest-level one not shown yet."""
    gap: list[str]
    """Key points not shown yet (last time's gap), lowest level first."""
    due: datetime | None
    mastery: float | None
    """Mastery of the question's weakest topic."""
    last_depth: int | None
    """The depth the last attempt was rated on."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "why": self.why,
            "opener": self.opener,
            "gap": self.gap,
            "due": self.due.isoformat() if self.due else None,
            "mastery": self.mastery,
            "last_depth": self.last_depth,
        }


@dataclass(frozen=True)
class Drill:
    items: list[DrillItem]
    request: PlanRequest
    max_follow_ups: int = DRILL_FOLLOW_UPS


def drill_queue(history: History, bank: Bank, now: datetime, topic: str | None = None) -> list[DrillItem]:
    questions = [q for q in bank.questions() if topic is None or topic in q.topics]
    if not questions:
        topics = sorted({t for q in bank.questions() for t in q.topics})
        raise PlanError(f"no question on topic {topic!r}; topics: {', '.join(topics)}")
    by_topic = mastery(history, bank, now)

    def weakest(question: Question) -> float | None:
        return _weakest(question, by_topic)

    def item(question: Question, why: Why) -> DrillItem:
        return _item(history, question, why, by_topic)

    order = {qid: i for i, qid in enumerate(bank)}
    seen = [q for q in questions if q.id in history.cards]
    due = sorted(
        (q for q in seen if history.cards[q.id].due <= now), key=lambda q: (history.cards[q.id].due, order[q.id])
    )
    due_ids = {q.id for q in due}
    weak = sorted(
        (q for q in seen if q.id not in due_ids and (weakest(q) or 0.0) < MASTERED),
        key=lambda q: (weakest(q) or 0.0, history.of(q.id)[-1].rated_depth, order[q.id]),
    )
    new = sorted((q for q in questions if q.id not in history.cards), key=lambda q: (q.difficulty, order[q.id]))
    queue = [item(q, "due") for q in due] + [item(q, "weak topic") for q in weak] + [item(q, "new") for q in new]
    if not queue:
        upcoming = min(history.cards[q.id].due for q in seen)
        raise PlanError(
            f"nothing to drill{' on ' + topic if topic else ''}: every question is mastered and the "
            f"next is due on {upcoming:%Y-%m-%d %H:%M} UTC"
        )
    return queue


def _weakest(question: Question, by_topic: dict[str, float]) -> float | None:
    known = [by_topic[t] for t in question.topics if t in by_topic]
    return min(known) if known else None


def _item(history: History, question: Question, why: Why, by_topic: dict[str, float]) -> DrillItem:
    attempts = history.of(question.id)
    gap = history.gap(question) if attempts else []
    card = history.cards.get(question.id)
    return DrillItem(
        question=question.id,
        why=why,
        opener=gap[0] if gap else None,
        gap=gap,
        due=card.due if card else None,
        mastery=_weakest(question, by_topic),
        last_depth=attempts[-1].rated_depth if attempts else None,
    )


def drill_item(history: History, bank: Bank, question: Question, now: datetime, why: Why) -> DrillItem:
    """One question as a drill item, whatever its place in the queue (the library's "drill this now")."""
    return _item(history, question, why, mastery(history, bank, now))


def drill_of(items: list[DrillItem]) -> Drill:
    """The session for these queue items, in their order."""
    request = PlanRequest(
        questions=len(items),
        ids=[i.question for i in items],
        openers={i.question: i.opener for i in items if i.opener},
        gaps={i.question: i.gap for i in items if i.opener},
        drill=True,
    )
    return Drill(items, request)


def plan_drill(history: History, bank: Bank, now: datetime, options: DrillOptions) -> Drill:
    return drill_of(drill_queue(history, bank, now, options.topic)[: options.count])
