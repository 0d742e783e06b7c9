"""Answers already in a candidate's profile, for the tests of the profile, drills and the screens that
show them: one builder, so a field added to `Attempt` is filled in one place."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from agent.learner.profile import Attempt


def attempt(
    question: str,
    at: datetime,
    depth: int,
    shown: Iterable[str] = (),
    *,
    session: str = "s1",
    opener: str | None = None,
    wrong: Iterable[str] = (),
    position: int = 0,
) -> Attempt:
    """One scored answer: `shown` and `wrong` are key point and misconception ids (each quoted as a
    sentence the candidate said)."""
    return Attempt(
        session_id=session,
        question=question,
        position=position,
        at=at,
        opener=opener,
        depth=depth,
        shown={kp: f"I said {kp}." for kp in shown},
        misconceptions={m: f"I claimed {m}." for m in wrong},
        skipped=False,
    )
