"""The base of the project's screens: `self.app` typed as the project's App subclass, and the hooks
through which a screen takes part in the App's one handling of finished workers."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual import on
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker

if TYPE_CHECKING:
    from tui.app import InterviewApp

ResultType = TypeVar("ResultType")


class AppScreen(Screen[ResultType]):
    """A screen of `InterviewApp`: the type checker sees `self.app` as one (at run time it is Textual's own)."""

    if TYPE_CHECKING:
        app: InterviewApp

    @on(Worker.StateChanged)
    def _tell_the_app(self, event: Worker.StateChanged) -> None:
        # The message stops at the screen that ran the worker; the App handles every worker's end.
        self.app.worker_state_changed(event)

    def described(self, binding: Binding) -> Binding:
        """A key as this screen's footer and the command palette describe it (a screen whose words
        follow a language says it in that language)."""
        return binding

    def worker_done(self, worker: Worker) -> None:
        """A worker of this screen finished, whichever way."""

    def worker_failed(self, worker: Worker, error: BaseException) -> bool:
        """A screen's own handling of a failed worker; True when the App's notice is not needed."""
        return False
