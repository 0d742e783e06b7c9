"""The interview room: a Textual app that drives the headless interviewer in workers.

The first frame never waits for the heavy imports (LangGraph, Chroma: about 3 s here): Home is
drawn at once and the interviewer loads in a background worker behind a progress indicator.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.signal import Signal
from textual.worker import Worker, WorkerState

from agent.labels import labels
from agent.planning import PlanRequest
from common.settings import Lang, Settings
from tui.cjk_wrap import break_between_cjk_characters
from tui.remembered import load_choices, with_remembered
from tui.screens.base import AppScreen
from tui.worker_failures import failure_notice

if TYPE_CHECKING:  # the interviewer's modules load in a worker, after the first frame
    from agent.app import Services
    from agent.brains.brain import Brain
    from agent.interview.retrieval import Retriever
    from agent.learner.drill import DrillOptions
    from knowledge.bank import Bank


class OpenServices(Protocol):
    """What builds the interviewer: `agent.app.open_services` (the CLI's own), or a test's stand-in."""

    def __call__(
        self,
        settings: Settings,
        *,
        brain: Brain | None = None,
        retriever: Retriever | None = None,
        bank: Bank | None = None,
    ) -> AbstractAsyncContextManager[Services]: ...


def _import_interviewer() -> tuple[OpenServices, Callable[[Settings], Retriever]]:
    """The slow imports (LangGraph, Chroma), done off the UI thread."""
    from agent.app import open_services
    from agent.interview.retrieval import make_retriever

    return open_services, make_retriever


FINISHED = (WorkerState.SUCCESS, WorkerState.CANCELLED, WorkerState.ERROR)


class InterviewApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "rl-interview"
    SUB_TITLE = labels("en")("app_subtitle")  # Home says it in the language chosen there
    BINDINGS = [Binding("ctrl+q", "request_quit", "Quit", priority=True)]

    def __init__(
        self,
        settings: Settings,
        *,
        request: PlanRequest | None = None,
        lang: Lang | None = None,
        resume: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        session_ids: Callable[[], str] | None = None,
        brain: Brain | None = None,
        retriever: Retriever | None = None,
        bank: Bank | None = None,
        drill: DrillOptions | None = None,
        start_now: bool = False,
        open_services: OpenServices | None = None,
        remember_choices: bool = False,
    ) -> None:
        """`drill` opens the Drill screen over Home once loaded; `start_now` starts the interview
        `request` asks for as soon as the interviewer is loaded (the command line named its
        questions: an explicit request, not a default to confirm). `open_services` builds the
        interviewer from the settings and `brain`, `retriever`, `bank` (default: the CLI's
        `agent.app.open_services`, imported by the loading worker, off the UI thread).
        `remember_choices`: Home opens on the length, sections and language last chosen there,
        where `request` and `lang` do not name them, and keeps what is chosen on it."""
        super().__init__()
        self.settings = settings
        self.request = request or PlanRequest(questions=settings.interview.questions)
        self.remember_choices = remember_choices
        self.choices_problem: str | None = None
        """Why Home's remembered choices could not be read or kept, told once on Home."""
        if remember_choices:
            remembered, self.choices_problem = load_choices(settings.home)
            self.request, lang = with_remembered(remembered, self.request, lang, start_now)
        self.lang = lang or settings.interview.lang
        self.resume_id = resume
        self.clock = clock
        self.session_ids = session_ids
        self._services: Services | None = None
        self.loaded: Signal[str | None] = Signal(self, "loaded")
        """Published once when the interviewer has loaded (None) or could not be (why not)."""
        self.load_failure: str | None = None
        """Why the interviewer could not be loaded, for a screen that subscribes after the fact."""
        self._brain = brain
        self._retriever = retriever
        self._bank = bank
        self._open_services = open_services
        self._stack = contextlib.AsyncExitStack()
        self._on_ready: list[Callable[[], object]] = []
        self.drill = drill
        self.start_now = start_now

    def on_mount(self) -> None:
        from tui.screens.home import HomeScreen

        self.push_screen(HomeScreen())
        self.load_services()
        if self.drill is not None:
            self.open_drill(self.drill)
        elif self.start_now and self.resume_id is None:
            self.start_interview()

    @property
    def services(self) -> Services:
        """The loaded interviewer; screens reach it only once `ready` (or through `when_ready`)."""
        if self._services is None:
            raise RuntimeError("the interviewer has not loaded yet")
        return self._services

    @property
    def ready(self) -> bool:
        return self._services is not None

    def open_drill(self, options: DrillOptions | None = None) -> None:
        from tui.screens.drill import DrillScreen

        self.when_ready(lambda: self.push_screen(DrillScreen(options)))

    @work(exclusive=True, group="load", exit_on_error=False)
    async def load_services(self) -> None:
        """Builds the interviewer; a failure is told on Home (`worker_state_changed`)."""
        open_services, make_retriever = await asyncio.to_thread(_import_interviewer)
        retriever = self._retriever or await asyncio.to_thread(make_retriever, self.settings)
        self._services = await self._stack.enter_async_context(
            (self._open_services or open_services)(
                self.settings, brain=self._brain, retriever=retriever, bank=self._bank
            )
        )
        self._services_ready()

    @on(Worker.StateChanged)
    def worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker's end, the App's and its screens' (AppScreen forwards theirs: the message does
        not bubble). Workers run with exit_on_error=False, so an error not told here would be lost."""
        worker = event.worker
        if event.state not in FINISHED:
            return
        screen = worker.node if isinstance(worker.node, AppScreen) else None
        if screen is not None:
            screen.worker_done(worker)
        error = worker.error
        if event.state is not WorkerState.ERROR or error is None:
            return
        notice = failure_notice(worker.group, error)
        if worker.group == "load":  # told on Home, which stays usable for the history
            self.load_failure = notice
            self.loaded.publish(notice)
        elif screen is None or not screen.worker_failed(worker, error):
            self.notify(notice, severity="error", timeout=10)

    def _services_ready(self) -> None:
        self.loaded.publish(None)
        callbacks, self._on_ready = self._on_ready, []
        for callback in callbacks:
            callback()
        if self.resume_id:
            resume, self.resume_id = self.resume_id, None
            self.resume_session(resume)

    def when_ready(self, callback: Callable[[], object]) -> None:
        """Run `callback` now if the interviewer is loaded, else as soon as it is (what it returns is dropped)."""
        if self.ready:
            callback()
        else:
            self._on_ready.append(callback)

    def start_interview(
        self,
        request: PlanRequest | None = None,
        lang: Lang | None = None,
        max_follow_ups: int | None = None,
    ) -> None:
        from tui.screens.interview import InterviewScreen

        def start() -> None:
            asked = request or self.request
            recent = self.services.index.recent_questions() if asked.draws else []
            plan = asked.model_copy(update={"recent": recent})
            session = self.services.interview(self.session_ids() if self.session_ids else None)
            self.push_screen(InterviewScreen(session, start=(plan, lang or self.lang), max_follow_ups=max_follow_ups))

        self.when_ready(start)

    def resume_session(self, session_id: str, take_over: bool = False, unsent: str = "") -> None:
        """Reopen a session; `take_over` even if another process drives it (the candidate said so)."""
        from tui.screens.interview import InterviewScreen

        def resume() -> None:
            if session_id == "latest":
                row = self.services.index.latest_unfinished()
                if row is None:
                    self.notify("No unfinished session to resume.", severity="warning")
                    return
                target = row.id
            else:
                target = session_id
            self.push_screen(
                InterviewScreen(self.services.interview(target), start=None, take_over=take_over, unsent=unsent)
            )

        self.when_ready(resume)

    def on_app_blur(self) -> None:
        """The terminal lost focus (or the browser tab): keep the answer being written."""
        from tui.screens.interview import InterviewScreen

        if isinstance(self.screen, InterviewScreen):
            self.screen.keep_draft()

    async def action_request_quit(self) -> None:
        from tui.screens.interview import InterviewScreen

        if isinstance(self.screen, InterviewScreen):
            await self.screen.action_leave()
        else:
            self.exit()

    async def on_unmount(self) -> None:
        await self._stack.aclose()

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Screenshots (Ctrl+P → "Screenshot") go to `$RL_INTERVIEW_HOME/screenshots`, made when
        needed: Textual's default, the user's Downloads folder, is missing on many machines, and a
        trial user got only "Failed to save screenshot"."""
        folder = Path(path) if path else self.settings.home / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        return super().deliver_screenshot(filename, str(folder), time_format)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for binding in getattr(screen, "PALETTE", []):
            if isinstance(screen, AppScreen):
                binding = screen.described(binding)
            yield SystemCommand(
                binding.description,
                binding.tooltip,  # what it does, in a few words; never the title again
                lambda action=binding.action: screen.run_action(action),
            )


def run_tui(
    settings: Settings,
    *,
    request: PlanRequest,
    lang: Lang | None,
    resume: str | None,
    drill: DrillOptions | None = None,
    start_now: bool = False,
) -> None:
    break_between_cjk_characters()  # for this process, which is the TUI's: not in tests that build apps
    InterviewApp(
        settings, request=request, lang=lang, resume=resume, drill=drill, start_now=start_now, remember_choices=True
    ).run()
