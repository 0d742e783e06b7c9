"""Progress over time, from the profile: mastery per topic, cards due, the trend, and the key
points to work on next with the reference sections to read."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from pydantic import BaseModel

from agent.interview.retrieval import Retriever, sections_to_read
from agent.learner.profile import SCHEDULER, History, mastery, weakest_first
from knowledge.bank import Bank

TREND_DAYS = 30
"""The trend shows the last this many days on which the candidate answered something."""


class TopicMastery(BaseModel):
    topic: str
    mastery: float
    questions: int
    attempts: int


class CardStatus(BaseModel):
    question: str
    due: str
    stability: float | None
    retrievability: float
    reviews: int
    last_depth: int


class TrendPoint(BaseModel):
    day: str
    """A UTC date with at least one answer."""
    mastery: float
    """Mean mastery over the topics seen, at the end of that day."""


class StudyPoint(BaseModel):
    question: str
    key_point: str
    level: int
    statement: str
    read: list[str]
    """Reference sections, as "source › heading"."""


class ProgressReport(BaseModel):
    now: str
    sessions: list[str]
    attempts: int
    topics: list[TopicMastery]
    """Weakest first."""
    due_today: int
    """Cards due before the end of today (UTC), overdue ones included."""
    due_this_week: int
    """Cards due within seven days from now, today's included."""
    cards: list[CardStatus]
    trend: list[TrendPoint]
    next: list[StudyPoint]


def progress_report(history: History, bank: Bank, now: datetime, retriever: Retriever) -> ProgressReport:
    by_topic = mastery(history, bank, now)
    topics = [
        TopicMastery(
            topic=topic,
            mastery=round(value, 3),
            questions=len({r.attempt.question for r in history.attempts if topic in bank[r.attempt.question].topics}),
            attempts=sum(topic in bank[r.attempt.question].topics for r in history.attempts),
        )
        for topic, value in weakest_first(by_topic)
    ]
    cards = [
        CardStatus(
            question=qid,
            due=card.due.isoformat(),
            stability=card.stability,
            retrievability=round(SCHEDULER.get_card_retrievability(card, now), 3),
            reviews=len(history.of(qid)),
            last_depth=history.of(qid)[-1].rated_depth,
        )
        for qid, card in sorted(history.cards.items(), key=lambda kv: (kv[1].due, kv[0]))
    ]
    due_today, due_this_week = due_counts(history, now)
    return ProgressReport(
        now=now.isoformat(),
        sessions=history.sessions(),
        attempts=len(history.attempts),
        topics=topics,
        due_today=due_today,
        due_this_week=due_this_week,
        cards=cards,
        trend=trend(history, bank, now),
        next=next_points(history, bank, retriever),
    )


def due_counts(history: History, now: datetime) -> tuple[int, int]:
    """Cards due before the end of today (UTC, overdue included), and within seven days from now."""
    tomorrow = datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=now.tzinfo)
    dues = [card.due for card in history.cards.values()]
    return sum(due < tomorrow for due in dues), sum(due < now + timedelta(days=7) for due in dues)


def trend(history: History, bank: Bank, now: datetime) -> list[TrendPoint]:
    days = sorted({r.attempt.at.date() for r in history.attempts if r.attempt.at <= now})[-TREND_DAYS:]
    points = []
    for day in days:
        end = min(now, datetime.combine(day + timedelta(days=1), time(), tzinfo=now.tzinfo) - timedelta(microseconds=1))
        values = mastery(history, bank, end)
        points.append(TrendPoint(day=day.isoformat(), mastery=round(sum(values.values()) / len(values), 3)))
    return points


def next_points(history: History, bank: Bank, retriever: Retriever, k: int = 3) -> list[StudyPoint]:
    """The lowest-level gap of the weakest questions (lowest depth last time first), one per
    question before a second one from any."""
    order = {qid: i for i, qid in enumerate(bank)}
    seen = sorted(
        {r.attempt.question for r in history.attempts}, key=lambda qid: (history.of(qid)[-1].rated_depth, order[qid])
    )
    gaps = [history.gap(bank[qid]) for qid in seen]
    picked: list[tuple[str, str]] = []
    for rank in range(max((len(g) for g in gaps), default=0)):
        picked += [(qid, gap[rank]) for qid, gap in zip(seen, gaps, strict=True) if rank < len(gap)]
    out = []
    for qid, point_id in picked[:k]:
        point = bank[qid].key_point(point_id)
        out.append(
            StudyPoint(
                question=qid,
                key_point=point.id,
                level=point.level,
                statement=point.statement,
                read=sections_to_read(retriever, qid, point.statement),
            )
        )
    return out
