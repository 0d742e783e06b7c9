"""What the profile learns from sessions: the attempts in a session's saved state, recorded as each
question closes (`ProfileRecorder`) or all at once (`rebuild`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from agent.learner.profile import Attempt, Clock, Profile, system_clock, utc
from agent.state import InterviewState
from knowledge.bank import Bank


def attempts_in(state: InterviewState, when: Callable[[str], datetime]) -> list[Attempt]:
    """The session's closed questions; `when(question_id)` says when each closed."""
    request = state.get("request")
    openers = request.openers if request else {}
    plan = state.get("plan") or []
    return [
        Attempt(
            session_id=state["session_id"],
            question=s.question,
            position=plan.index(s.question),
            at=utc(when(s.question)),
            opener=openers.get(s.question),
            depth=s.depth,
            shown={e.key_point: e.quote for e in s.covered},
            # one the candidate put right later on the question is not held against them
            misconceptions={m.misconception: m.quote for m in s.misconceptions if not m.put_right},
            skipped=s.skipped,
            hinted=any(e.hinted for e in s.covered),
            stated_wrong=bool(s.misconceptions),
        )
        for s in state.get("summaries") or []
    ]


class ProfileRecorder:
    """The runner's `on_question_done` observer: records the session's closed questions not yet in
    the profile (so one missed while the process was down is caught up at the next)."""

    def __init__(self, profile: Profile, bank: Bank, clock: Clock = system_clock):
        self.profile = profile
        self.bank = bank
        self.clock = clock

    async def __call__(self, interview: Any, question_id: str) -> None:
        now = self.clock()
        self.profile.record(attempts_in(await interview.state(), lambda _: now), self.bank)


async def rebuild(profile: Profile, services: Any) -> int:
    """Rebuild the profile from every session's saved state (through `agent.app.Services`).

    A question keeps the time the profile recorded for it; one the profile never saw takes its
    session's start time."""
    times = {(r.attempt.session_id, r.attempt.question): r.attempt.at for r in profile.history().attempts}
    forgotten = profile.forgotten()
    ranked: list[tuple[datetime, int, int, Attempt]] = []
    for rank, row in enumerate(reversed(services.index.list())):  # oldest session first
        if row.id in forgotten:
            continue
        state = await services.interview(row.id).state()
        if not state:
            continue
        started = datetime.fromisoformat(row.started)

        def when(qid: str, sid: str = row.id, at: datetime = started) -> datetime:
            return times.get((sid, qid), at)

        for attempt in attempts_in(state, when):
            ranked.append((attempt.at, rank, attempt.position, attempt))
    ranked.sort(key=lambda item: item[:3])
    return profile.replace([item[3] for item in ranked], services.bank)
