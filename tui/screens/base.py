"""The base of the project's screens: `self.app` typed as the project's App subclass."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.screen import Screen

if TYPE_CHECKING:
    from tui.app import InterviewApp

ResultType = TypeVar("ResultType")


class AppScreen(Screen[ResultType]):
    """A screen of `InterviewApp`: the type checker sees `self.app` as one (at run time it is Textual's own)."""

    if TYPE_CHECKING:
        app: InterviewApp
