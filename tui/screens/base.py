"""The base of the project's screens: `self.app` typed as the project's App subclass, and one place
where a screen's failed workers are told to the user."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual import on
from textual.screen import Screen
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from tui.app import InterviewApp

ResultType = TypeVar("ResultType")

WORKER_FAILURES = {
    "report": "The report could not be built",
    "library-search": "The search failed",
}
"""What the user is told when a worker of this group fails (the error itself follows)."""


class AppScreen(Screen[ResultType]):
    """A screen of `InterviewApp`: the type checker sees `self.app` as one (at run time it is Textual's own)."""

    if TYPE_CHECKING:
        app: InterviewApp

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        # Workers run with exit_on_error=False, so an error nobody handles would be lost: every
        # failure is either the screen's own business (`worker_failed`) or shown here.
        if event.state == WorkerState.SUCCESS or event.state == WorkerState.CANCELLED:
            self.worker_done(event.worker)
        elif event.state == WorkerState.ERROR:
            self.worker_done(event.worker)
            error = event.worker.error
            if error is not None and not self.worker_failed(event.worker, error):
                what = WORKER_FAILURES.get(event.worker.group, "Something failed")
                self.notify(f"{what}: {type(error).__name__}: {error}", severity="error", timeout=10)

    def worker_done(self, worker: Worker) -> None:
        """A worker of this screen finished, whichever way."""

    def worker_failed(self, worker: Worker, error: BaseException) -> bool:
        """A screen's own handling of a failed worker; True when it needs no general message."""
        return False
