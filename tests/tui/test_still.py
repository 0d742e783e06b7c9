"""The wait every snapshot is taken after: `still` must show the cursor whatever the blink's phase.

Under load (#15's stress runs) the wait before a snapshot outlasted the editor's 0.5 s blink, and
the interview and confirm snapshots came out without the cursor: Textual drew the cached line of
the blink's dark half once blinking was off."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import TextArea
from tui_helpers import settle, still, wait_until


class _OneEditor(App):
    def compose(self) -> ComposeResult:
        yield TextArea(id="answer")


def cursor_cell_stands_out(editor: TextArea) -> bool:
    """The empty editor's first cell (where the cursor is) is drawn unlike the rest of its row."""
    first, *rest = editor.render_line(0)
    return bool(rest) and first.style != rest[0].style


async def test_a_cursor_caught_in_the_dark_half_of_a_blink_is_drawn():
    app = _OneEditor()
    async with app.run_test(size=(30, 5)) as pilot:
        editor = app.query_one(TextArea)
        editor.focus()
        await settle(pilot)
        await wait_until(pilot, lambda: not editor._cursor_visible, "the dark half of the cursor's blink")
        editor.blink_timer.pause()  # held dark, however slow the machine is to get to the next line
        await pilot.pause()
        assert not cursor_cell_stands_out(editor), "the dark half draws no cursor"
        await still(pilot)
        assert not editor.cursor_blink
        assert cursor_cell_stands_out(editor)
