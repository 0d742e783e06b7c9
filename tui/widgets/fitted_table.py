"""A table that fits the screen's width: the last column takes what the others leave, and when that
is too little the widest of them gives way; a cut cell ends in an ellipsis. A long question or
passage would otherwise run off the right edge with nothing to say it goes on."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

MIN_LAST = 24
"""The last column (the question, the passage) keeps at least this width while others can give way."""
MIN_OTHER = 8
"""No other column is cut narrower than this."""


class FittedTable(DataTable[Text]):
    def __init__(self, *headings: str, id: str) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.headings = headings
        self._rows: list[tuple[str, ...]] = []
        self._keys: list[str] = []

    def show(self, rows: Sequence[tuple[str, ...]], keys: Sequence[str]) -> None:
        """Replace the rows (plain text, one cell per heading), keeping the cursor's place."""
        self._rows, self._keys = list(rows), list(keys)
        self._fill()

    def on_resize(self) -> None:
        self._fill()

    def _widths(self) -> list[int]:
        widths = [max(map(cell_len, column)) for column in zip(self.headings, *self._rows, strict=True)]
        if not self.size.width:
            return widths  # not laid out yet: the first resize fits it
        room = self.size.width - self.styles.scrollbar_size_vertical - 2 * self.cell_padding * len(widths)
        while sum(widths[:-1]) + MIN_LAST > room and max(widths[:-1]) > MIN_OTHER:
            widths[widths.index(max(widths[:-1]))] -= 1
        widths[-1] = max(MIN_LAST, room - sum(widths[:-1]))
        return widths

    def _fill(self) -> None:
        row = self.cursor_row
        self.clear(columns=True)
        for heading, width in zip(self.headings, self._widths(), strict=True):
            self.add_column(heading, width=width)
        for cells, key in zip(self._rows, self._keys, strict=True):
            self.add_row(*(Text(cell, no_wrap=True, overflow="ellipsis") for cell in cells), key=key)
        if self._rows:
            self.move_cursor(row=min(row, len(self._rows) - 1))
