"""History: past sessions; Enter opens a report, or resumes an unfinished session."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import DataTable, Header, Static

from agent.labels import labels
from tui.screens.base import AppScreen, screen_key
from tui.widgets.fitted_footer import FittedFooter


class HistoryScreen(AppScreen):
    KEYS = "history"
    BINDINGS = [screen_key(KEYS, "enter", "open", priority=True), screen_key(KEYS, "escape", "back")]
    PALETTE = BINDINGS

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(labels(self.app.lang)("history_title"), id="history-title")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield FittedFooter()

    def on_mount(self) -> None:
        say = labels(self.app.lang)
        table = self.query_one(DataTable)
        # "depth" is the session's average: the table fits 80 columns with 12-character ids
        table.add_columns(*say.columns("history_columns"))
        for row in self.app.services.index.list():
            depth = f"{row.average_depth:.2f}" if row.average_depth is not None else "-"
            started = row.started.replace("T", " ")[:16]
            kind = say.name("kinds", row.kind) if row.kind else "-"
            status = say.name("session_statuses", row.status)
            cells = (row.id, started, kind, row.lang, status, str(len(row.plan)), depth)
            table.add_row(*cells, key=row.id)
        table.focus()

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return
        session_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        assert session_id is not None  # every row is added with its session's id as key
        row = self.app.services.index.get(session_id)
        self.app.pop_screen()
        if row and not row.over:  # active, or empty: left before anything was sent
            self.app.resume_session(session_id)
        else:
            from tui.screens.report import ReportScreen

            self.app.push_screen(ReportScreen(session_id))

    def action_back(self) -> None:
        self.app.pop_screen()
