"""The base of the project's screens: `self.app` typed as the project's App subclass, the hooks
through which a screen takes part in the App's one handling of finished workers, and its keys
described (footer and command palette) in the language its words are in."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import on
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen
from textual.worker import Worker

from agent.labels import labels

if TYPE_CHECKING:
    from tui.app import InterviewApp

ResultType = TypeVar("ResultType")

APP_KEYS = "app"
"""The labels' table of the app's own keys (quit, the palette), shown in every screen's footer."""


def screen_key(keys: str, key: str, action: str, **options: Any) -> Binding:
    """A key of the screen whose keys the labels' tables `<keys>_keys` and `<keys>_key_tips` name,
    described in English: the one copy of the words, which `AppScreen.described` translates."""
    say = labels("en")
    return Binding(
        key, action, say.table(f"{keys}_keys")[action], tooltip=say.table(f"{keys}_key_tips")[action], **options
    )


class AppScreen(Screen[ResultType]):
    """A screen of `InterviewApp`: the type checker sees `self.app` as one (at run time it is Textual's own)."""

    if TYPE_CHECKING:
        app: InterviewApp

    KEYS: ClassVar[str | None] = None
    """The labels' tables that name this screen's keys (`screen_key`); None keeps them as BINDINGS say."""

    session_lang: str | None = None
    """The language of the session this screen shows, once read; None for a screen of no session."""

    @property
    def keys_lang(self) -> str:
        """The language the keys are described in: the session's, if the screen shows one, else Home's."""
        return self.session_lang or self.app.lang

    def session_read(self, lang: str) -> None:
        """The session shown here is in `lang`: the footer describes the keys in it from now on."""
        self.session_lang = lang
        self.refresh_bindings()

    @on(Worker.StateChanged)
    def _tell_the_app(self, event: Worker.StateChanged) -> None:
        # The message stops at the screen that ran the worker; the App handles every worker's end.
        self.app.worker_state_changed(event)

    def described(self, binding: Binding) -> Binding:
        """A key as this screen's footer and the command palette describe it: its own keys, and the
        app's, in `keys_lang`; any other (a widget's) as it is."""
        if self.KEYS is None:
            return binding
        say = labels(self.keys_lang)
        for keys in (self.KEYS, APP_KEYS):
            names = say.table(f"{keys}_keys")
            if binding.action in names:
                tip = say.table(f"{keys}_key_tips")[binding.action]
                return replace(binding, description=names[binding.action], tooltip=tip)
        return binding

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """As Textual has them, described as `described` says (the footer shows these)."""
        shown = {}
        for key, active in super().active_bindings.items():
            binding = self.described(active.binding)
            shown[key] = active._replace(binding=binding, tooltip=binding.tooltip)
        return shown

    def worker_done(self, worker: Worker) -> None:
        """A worker of this screen finished, whichever way."""

    def worker_failed(self, worker: Worker, error: BaseException) -> bool:
        """A screen's own handling of a failed worker; True when the App's notice is not needed."""
        return False
