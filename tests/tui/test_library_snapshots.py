"""SVG snapshots of the Library and of a question in it, at 120x40 and 80x24.

Deterministic: a fresh profile (no depths, no due dates), the notes searched directly (no store),
the search box's cursor not blinking. Regenerate with
`pytest tests/tui/test_library_snapshots.py --snapshot-update` and look at the SVGs first."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from tui_helpers import settle, still, wait_loaded, wait_until

from tui.screens.library import LibraryScreen
from tui.screens.question import QuestionScreen

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]


@pytest.fixture(autouse=True)
def no_exemplars(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge's exemplars are another issue's data: the picture must not change when they do."""
    import agent.learner.library

    monkeypatch.setattr(agent.learner.library, "EXEMPLAR_DIR", tmp_path / "no-exemplars")


async def to_library_search(pilot: Pilot) -> None:
    await wait_loaded(pilot)
    await pilot.press("l")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, LibraryScreen), "the library")
    await settle(pilot)
    await pilot.press(*"ppo", "enter")
    await wait_until(pilot, lambda: pilot.app.screen.hits, "the search hits")
    await still(pilot)


async def to_question(pilot: Pilot) -> None:
    await wait_loaded(pilot)
    await pilot.press("l")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, LibraryScreen), "the library")
    await settle(pilot)
    await pilot.press(*"clip", "down", "enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, QuestionScreen), "the question")
    await still(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_library_with_a_filter_and_search_hits(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=to_library_search)


@pytest.mark.parametrize("size", SIZES)
def test_question_in_the_library(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=to_question)
