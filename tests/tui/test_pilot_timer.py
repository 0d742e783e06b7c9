"""The side panel's clock: it counts the candidate's time from the first question shown, not the
interviewer's loading before it, and a resumed session's clock goes on from the time spent.

The app's clock is a dial the test turns (the other TUI tests' clock never moves)."""

from __future__ import annotations

import asyncio

import pytest
from tui_helpers import CLIP_ANSWER, SIZE, answer, interviewer_turns, leave, settle, start, type_answer, wait_until

from agent.interview.runner import Interview
from tui.screens.interview import InterviewScreen
from tui.widgets.side_panel import SidePanel


class Dial:
    """A clock that says what the test set it to."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Dial:
    return Dial()


async def test_the_clock_starts_when_the_first_question_is_shown(make_app, clock, monkeypatch):
    """A command-line start opens the interview at once; the first question comes once the
    interviewer has warmed up (21 s in a user trial), which the clock read as the candidate's time."""
    warmed_up = asyncio.Event()
    original_start = Interview.start

    async def slow_start(self, *args, **kwargs):
        await warmed_up.wait()
        async for event in original_start(self, *args, **kwargs):
            yield event

    monkeypatch.setattr(Interview, "start", slow_start)
    app = make_app(["algo-07"], start_now=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the interview")
        clock.now += 21
        warmed_up.set()
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the first question")
        await settle(pilot)
        clock.now += 5
        side = app.screen.query_one(SidePanel)
        await wait_until(pilot, lambda: side.elapsed != 0, "the clock's next tick")
        assert side.elapsed == 5


async def test_a_resumed_session_s_clock_goes_on_from_the_time_spent(make_app, clock):
    """The clock read 00:00 on every resume. The time is kept at each reply (what a kill leaves)
    and when leaving."""
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        clock.now += 30
        await answer(pilot, CLIP_ANSWER)
        assert app.services.index.time_spent("tui-0001") == 30
        clock.now += 10
        await leave(pilot)
        clock.now += 600  # away from the session: not the candidate's time in it

        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the resumed interview")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the pending question")
        await settle(pilot)
        side = app.screen.query_one(SidePanel)
        assert side.elapsed == 40
        clock.now += 5
        await wait_until(pilot, lambda: side.elapsed != 40, "the clock's next tick")
        assert side.elapsed == 45


async def test_the_clock_is_kept_while_it_runs_not_only_at_replies(make_app, clock):
    """The panel said 用时 00:12 before a kill and 00:08 after the resume: the time was kept only at
    each reply. It is kept every few seconds and with each draft too, so a kill loses at most that."""
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        side = app.screen.query_one(SidePanel)
        clock.now += 12
        await wait_until(pilot, lambda: side.elapsed == 12, "the clock's next tick")
        await wait_until(pilot, lambda: app.services.index.time_spent("tui-0001") == 12, "the clock kept")

        clock.now += 2  # less than the clock's own saving interval: kept with the draft typed now
        await wait_until(pilot, lambda: side.elapsed == 14, "the clock's next tick")
        await type_answer(pilot, "PPO")
        await wait_until(pilot, lambda: app.services.index.drafted("tui-0001"), "the draft kept")
        assert app.services.index.time_spent("tui-0001") == 14
