"""Choosing a session's questions and their order."""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel, Field

from common.errors import InputError
from knowledge.bank import Bank
from knowledge.models import Question

Kind = Literal["interview", "drill"]
"""What a session is, as the session list says it."""


class PlanError(InputError, ValueError):
    """A plan request that cannot be met; the message lists what is valid."""


class PlanRequest(BaseModel):
    questions: int = Field(default=6, ge=1, le=35)
    section: Literal["algorithm", "infrastructure", "both"] = "both"
    ids: list[str] = Field(default_factory=list)
    """Explicit questions, asked first and in this order; the whole plan unless `fill`."""
    fill: bool = False
    """With `ids`: after them, draw more questions as without ids, up to `questions` in all (the
    command line's `--question algo-05 --questions 2`)."""
    topic: str | None = None
    seed: int | None = None
    recent: list[str] = Field(default_factory=list)
    """Questions from the candidate's last sessions: avoided unless nothing else is left."""
    openers: dict[str, str] = Field(default_factory=dict)
    """Question id -> key point id: open that question with the key point's probe instead of the
    whole question (a drill on what the candidate missed last time)."""
    verbatim: bool = False
    """Ask every question in its seed wording (its `prompt`), never another wording."""
    drill: bool = False
    """A drill (the learner's queue, or "drill this now"), not an interview: its report says so."""
    gaps: dict[str, list[str]] = Field(default_factory=dict)
    """A drill's questions that open on last time's gap: question id -> the key points not shown
    then. The question's other key points were shown in earlier drills (they add up), so its review
    lists them apart and its report does not send the candidate to study them again."""
    wordings: dict[str, int] = Field(default_factory=dict)
    """Question id -> the wording the session asks (Question.wording); chosen when it starts."""

    def shown_before(self, question: Question) -> list[str]:
        """The key points of `question` a drill counts as shown in earlier drills (none outside a drill)."""
        gap = self.gaps.get(question.id)
        return [kp.id for kp in question.key_points if kp.id not in gap] if gap else []

    @property
    def kind(self) -> Kind:
        return "drill" if self.drill else "interview"

    @property
    def draws(self) -> bool:
        """Are questions drawn from the bank (where `recent` matters), not only the named ones?"""
        return not self.ids or self.fill


def make_plan(bank: Bank, request: PlanRequest) -> list[str]:
    for qid, point in request.openers.items():
        if qid not in bank or point not in {kp.id for kp in bank[qid].key_points}:
            raise PlanError(f"opener {qid}:{point} names no key point of the bank")
    unknown = [qid for qid in request.ids if qid not in bank]
    if unknown:
        raise PlanError(f"unknown question id(s) {', '.join(unknown)}; valid ids: {', '.join(bank)}")
    named = list(dict.fromkeys(request.ids))
    wanted = request.questions - len(named)
    if not request.draws or wanted <= 0:
        return named
    pool = [
        q
        for q in bank.questions()
        if q.id not in named
        and (request.section == "both" or q.section == request.section)
        and (request.topic is None or request.topic in q.topics)
    ]
    if not pool:
        topics = sorted({t for q in bank.questions() for t in q.topics})
        raise PlanError(
            f"no question matches section={request.section} topic={request.topic}; topics: {', '.join(topics)}"
        )
    rng = random.Random(request.seed)
    fresh = [q for q in pool if q.id not in request.recent]
    seen = [q for q in pool if q.id in request.recent]
    rng.shuffle(fresh)
    rng.shuffle(seen)
    chosen = _balanced(fresh, wanted, request.section)
    if len(chosen) < wanted:
        chosen += seen[: wanted - len(chosen)]
    return named + [q.id for q in _order(chosen, rng)]


def _balanced(pool: list[Question], n: int, section: str) -> list[Question]:
    """Alternate sections when both are asked for, so a short session still covers both."""
    if section != "both":
        return pool[:n]
    algo = [q for q in pool if q.section == "algorithm"]
    infra = [q for q in pool if q.section == "infrastructure"]
    out: list[Question] = []
    while len(out) < n and (algo or infra):
        for side in (algo, infra):
            if side and len(out) < n:
                out.append(side.pop(0))
    return out


SEARCH_STEPS = 20_000


def _order(questions: list[Question], rng: random.Random) -> list[Question]:
    """Easier to harder, never two consecutive questions sharing a topic when that can be avoided:
    a depth-first search in easiest-first order finds such an order if one exists (bounded, with
    the easiest-first order as the fallback)."""
    by_difficulty = sorted(questions, key=lambda q: (q.difficulty, rng.random()))
    steps = 0

    def extend(ordered: list[Question], remaining: list[Question]) -> list[Question] | None:
        nonlocal steps
        if not remaining:
            return ordered
        last = set(ordered[-1].topics) if ordered else set()
        for q in remaining:
            steps += 1
            if steps > SEARCH_STEPS:
                return None
            if not last & set(q.topics):
                found = extend([*ordered, q], [r for r in remaining if r is not q])
                if found:
                    return found
        return None

    return extend([], by_difficulty) or by_difficulty


def choose_wordings(bank: Bank, plan: list[str], seed: int | str, last_seen: dict[str, int]) -> dict[str, int]:
    """The wording each planned question is asked in. A question the candidate has never met comes
    in its seed wording (the one our reviews and gold transcripts use); one met before comes in
    another wording than the last one seen, drawn with `seed` (the same seed and history give the
    same wordings)."""
    chosen: dict[str, int] = {}
    for qid in plan:
        count = 1 + len(bank[qid].wordings)
        if qid not in last_seen:
            chosen[qid] = 0
            continue
        options = [i for i in range(count) if i != last_seen[qid]] or [0]
        chosen[qid] = random.Random(f"{seed}:{qid}").choice(options)
    return chosen
