"""SVG snapshots of every screen at 120x40 and 80x24 (pytest-textual-snapshot).

Deterministic by construction: the clock never moves, session ids are tui-0001, tui-0002, ...,
session dates are frozen, the interviewer is loaded and idle before the snap, and the answer
editor's cursor does not blink. Regenerate with `pytest tests/tui/test_snapshots.py --snapshot-update`
and look at the SVGs in tests/tui/__snapshots__/ before committing them.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from tui_helpers import answer, make_sessions, skip_to_review, start, still, wait_loaded, wait_until

import agent.interview.sessions
from tui.screens.confirm import ConfirmScreen
from tui.screens.history import HistoryScreen
from tui.screens.report import ReportScreen
from tui.screens.review import ReviewScreen

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]
CLIP_ANSWER = "PPO clips the probability ratio to 1 - epsilon and 1 + epsilon, because it keeps the update small."


@pytest.fixture(autouse=True)
def frozen_dates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Session start/update stamps as History shows them."""
    monkeypatch.setattr(agent.interview.sessions, "now", lambda: "2025-03-14T09:30:00+00:00")


async def to_interview(pilot: Pilot) -> None:
    await start(pilot)
    await still(pilot)


async def to_review(pilot: Pilot) -> None:
    await start(pilot)
    await answer(pilot, CLIP_ANSWER)
    await skip_to_review(pilot)
    await still(pilot)


async def to_report(pilot: Pilot) -> None:
    await start(pilot)
    await answer(pilot, CLIP_ANSWER)
    await pilot.press("f4")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen), "the last question's review")
    await pilot.press("escape")  # the last review comes first; the report is beneath it
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReportScreen), "the report")
    await wait_until(pilot, lambda: pilot.app.screen.report is not None, "the report's content")
    await still(pilot)


async def to_history(pilot: Pilot) -> None:
    await wait_loaded(pilot)
    await make_sessions(pilot.app.services)
    await pilot.press("h")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen), "the history")
    await still(pilot)


async def to_confirm(pilot: Pilot) -> None:
    await start(pilot)
    await still(pilot)
    await pilot.press("ctrl+q")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the confirm dialog")
    await still(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_home(snap_compare, make_app, size):
    assert snap_compare(make_app(["algo-07", "infra-01"]), terminal_size=size, run_before=still_home)


async def still_home(pilot: Pilot) -> None:
    await wait_loaded(pilot)
    await still(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_interview_after_the_first_question(snap_compare, make_app, size):
    assert snap_compare(make_app(["algo-07", "infra-01"]), terminal_size=size, run_before=to_interview)


@pytest.mark.parametrize("size", SIZES)
def test_review(snap_compare, make_app, size):
    assert snap_compare(make_app(["algo-07", "infra-01"]), terminal_size=size, run_before=to_review)


@pytest.mark.parametrize("size", SIZES)
def test_report(snap_compare, make_app, size):
    assert snap_compare(make_app(["algo-07"]), terminal_size=size, run_before=to_report)


@pytest.mark.parametrize("size", SIZES)
def test_history(snap_compare, make_app, size):
    assert snap_compare(make_app(["algo-07"]), terminal_size=size, run_before=to_history)


@pytest.mark.parametrize("size", SIZES)
def test_confirm_leaving(snap_compare, make_app, size):
    assert snap_compare(make_app(["algo-07", "infra-01"]), terminal_size=size, run_before=to_confirm)
