"""Chinese lines in the TUI wrap where the line is full, not at the last space before a Latin word."""

from __future__ import annotations

import rich._wrap
from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

from tui.cjk_wrap import break_between_cjk_characters

MIXED = "记下了：“目的是让 group 里既有对的也有错的”。下一个问题：为什么在组内做归一化之后，优势的方差会变小？"


class OneLine(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(Text(MIXED), id="line")


async def lines_at(width: int) -> list[str]:
    app = OneLine()
    async with app.run_test(size=(width, 10)) as pilot:
        await pilot.pause()
        static = app.screen.query_one("#line", Static)
        rendered = static.render_lines(static.region.reset_offset)
        return [text for text in ("".join(s.text for s in line).rstrip() for line in rendered) if text]


async def test_a_chinese_run_fills_the_line_before_it_wraps(monkeypatch):
    """A user trial: "记下了：“目的是让 group" stood alone on a 160-column line's first 26 cells."""
    monkeypatch.setattr(rich._wrap, "re_word", rich._wrap.re_word)  # restored after the test
    assert break_between_cjk_characters()
    lines = await lines_at(50)
    assert "".join(lines).replace(" ", "") == MIXED.replace(" ", "")
    assert all(cell_len(line) >= 46 for line in lines[:-1]), lines
    assert not any(line[0] in "，。、；：！？”" for line in lines[1:]), "closing punctuation stays with its character"
    assert lines[0].startswith("记下了：“目的是让 group 里")


async def test_english_still_wraps_between_words(monkeypatch):
    monkeypatch.setattr(rich._wrap, "re_word", rich._wrap.re_word)
    assert break_between_cjk_characters()
    words = "the clipped objective takes the minimum of the two terms so the update stays pessimistic"
    app = App[None]()
    async with app.run_test(size=(30, 10)) as pilot:
        await app.mount(Static(Text(words), id="en"))
        await pilot.pause()
        static = app.screen.query_one("#en", Static)
        lines = ["".join(s.text for s in line).strip() for line in static.render_lines(static.region.reset_offset)]
    assert " ".join(line for line in lines if line).split() == words.split()
