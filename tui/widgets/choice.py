"""A dropdown the keyboard drives fully: in the open list, Space picks the highlighted option as Enter does."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, TypeVar

from rich.console import RenderableType
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import OptionList, Select

ChoiceType = TypeVar("ChoiceType", bound=Hashable)


class Choice(Select[ChoiceType]):
    """Textual's Select without typing to search: its open list took Space as a letter to search for,
    so Space on an option did nothing (and with a few options, searching helps little). A screen
    whose own keys must give way to an open list asks `list_open`."""

    BINDINGS = [Binding("space", "pick", "Pick", show=False)]  # in place of Select's Space

    def __init__(self, options: Iterable[tuple[RenderableType, ChoiceType]], **kwargs: Any) -> None:
        super().__init__(options, type_to_search=False, **kwargs)

    def relabel(self, options: Iterable[tuple[RenderableType, ChoiceType]]) -> None:
        """The same options in other words (another language), the choice kept and shown in them.
        Select refreshes what it shows only when its value changes, so a kept first option went on
        showing its old words ("both sections" on a Home switched to 中文)."""
        chosen = self.value
        self.set_options(options)
        self.value = chosen
        self.mutate_reactive(Select.value)  # type: ignore[misc]  # the descriptor, whatever ChoiceType is

    def action_pick(self) -> None:
        if self.expanded:
            self.query_one(OptionList).action_select()
        else:
            self.action_show_overlay()

    def watch_expanded(self) -> None:
        self.refresh_bindings()  # the screen's keys (and its footer) may depend on a list being open


def list_open(node: DOMNode) -> bool:
    """Is the list of a Choice under `node` open?"""
    return any(choice.expanded for choice in node.query(Choice))
