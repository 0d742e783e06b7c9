"""A footer that keeps every key on a narrow terminal: at 80 columns the default spacing cut off
Home's "Library" and the Quit key, and the Interview screen's "Leave". Narrow, it closes up the
spaces; narrower, it leaves out the palette's own key (Ctrl+P still opens it, and it lists every key)."""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

COMPACT_BELOW = 110
"""Columns under which the keys are closed up."""
PALETTE_KEY_FROM = 90
"""Columns from which the palette's key is shown on the right."""


class FittedFooter(Footer):
    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < COMPACT_BELOW
        self.show_command_palette = event.size.width >= PALETTE_KEY_FROM
