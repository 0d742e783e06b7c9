"""A failed worker is never lost: for every worker group, what the candidate is told and that the app
stays usable where it was. The error is raised by the collaborator each worker calls: the services
factory and the brain the app is built with, or the core function a screen's worker calls."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Label
from tui_helpers import CLIP_ANSWER, SIZE, paste, screen_text, settle, start, wait_loaded, wait_until

import tui.screens.report
from agent.brains.brain import OfflineBrain
from tui.app import InterviewApp
from tui.screens.home import HomeScreen
from tui.screens.interview import InterviewScreen
from tui.screens.library import LibraryScreen
from tui.screens.report import ReportScreen
from tui.worker_failures import FAILURE_NOTICES


@contextlib.asynccontextmanager
async def unloadable(settings: Any, **collaborators: Any) -> AsyncIterator[Any]:
    """A services factory that fails as a broken question file does."""
    raise ValueError("bank/algo-07.yaml, line 3: key_points: not a list")
    yield


class BrokenBrain(OfflineBrain):
    async def assess(self, question, answer, prior):
        raise RuntimeError("the scorer crashed")


def raising(message: str) -> Callable[..., Any]:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(message)

    return broken


def notifications(app: App) -> list[str]:
    return [n.message for n in app._notifications]


async def nothing_more(pilot: Pilot) -> None:
    """The interviewer's loading is the worker: it fails on its own."""


async def answer_once(pilot: Pilot) -> None:
    await start(pilot)
    await paste(pilot, CLIP_ANSWER)
    await pilot.press("ctrl+s")


async def open_a_report(pilot: Pilot) -> None:
    await wait_loaded(pilot)
    pilot.app.push_screen(ReportScreen("tui-0001"))


async def search_the_library(pilot: Pilot) -> None:
    await wait_loaded(pilot)
    await pilot.press("l")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, LibraryScreen), "the library")
    await pilot.press(*"clipping", "enter")


def loading_label(app: App) -> str:
    return str(app.screen.query_one("#loading-label", Label).render())


def last_notification(app: App) -> str:
    return notifications(app)[-1] if notifications(app) else ""


@dataclass
class Failure:
    act: Callable[[Pilot], Awaitable[None]]
    told: Callable[[App], str]
    """Where the candidate reads it."""
    expected: str
    stays_on: type
    app_options: dict[str, Any] = field(default_factory=dict)
    breaks: tuple[str, str] | None = None
    """A core function the screen's module calls, made to raise (module attribute, error message)."""


FAILURES = {
    "load": Failure(
        nothing_more,
        loading_label,
        "could not load the interviewer: ValueError: bank/algo-07.yaml, line 3: key_points: not a list",
        HomeScreen,
        app_options={"open_services": unloadable, "bank": None},
    ),
    "agent": Failure(
        answer_once,
        last_notification,
        "The interviewer hit an error: the scorer crashed. Your answers are saved; resume from Home.",
        InterviewScreen,
        app_options={"brain": BrokenBrain()},
    ),
    "report": Failure(
        open_a_report,
        last_notification,
        "The report could not be built: RuntimeError: the session file is unreadable",
        ReportScreen,
        breaks=("tui.screens.report.build_report", "the session file is unreadable"),
    ),
    "library-search": Failure(
        search_the_library,
        last_notification,
        "The search failed: RuntimeError: the store is unreachable",
        LibraryScreen,
        breaks=("tui.screens.library.search", "the store is unreachable"),
    ),
}


def test_every_worker_group_has_a_case_here() -> None:
    assert set(FAILURES) == set(FAILURE_NOTICES)


@pytest.mark.parametrize("group", list(FAILURES))
async def test_a_failed_worker_is_told_to_the_user_and_the_screen_stays(
    make_app: Callable[..., InterviewApp], monkeypatch: pytest.MonkeyPatch, group: str
) -> None:
    failure = FAILURES[group]
    if failure.breaks is not None:
        target, message = failure.breaks
        monkeypatch.setattr(target, raising(message))
    app = make_app(["algo-07"], **failure.app_options)
    async with app.run_test(size=SIZE) as pilot:
        await failure.act(pilot)
        await wait_until(pilot, lambda: failure.expected in failure.told(app), f"the {group} failure, told")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, failure.stays_on)


async def test_home_says_why_the_interviewer_could_not_load_and_stays_usable(make_app):
    app = make_app(open_services=unloadable, bank=None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "could not load the interviewer" in screen_text(app), "the failure on Home")
        assert "bank/algo-07.yaml, line 3" in screen_text(app)
        assert not app.ready and isinstance(app.screen, HomeScreen)


async def test_a_report_that_cannot_be_built_is_told_to_the_user(make_app, monkeypatch):
    """A failed worker is never lost: the report screen says why it is empty and stays usable."""
    monkeypatch.setattr(tui.screens.report, "build_report", raising("the session file is unreadable"))
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await open_a_report(pilot)
        await wait_until(
            pilot,
            lambda: any("The report could not be built" in n for n in notifications(app)),
            "the report's failure, told",
        )
        message = next(n for n in notifications(app) if "The report could not be built" in n)
        assert "RuntimeError: the session file is unreadable" in message
        assert isinstance(app.screen, ReportScreen) and app.screen.report is None
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
