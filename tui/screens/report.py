"""The session report: per-question table, per-topic bars, what to study next; exports."""

from __future__ import annotations

from typing import Literal

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Header, Static

from agent.interview.report import SessionReport, build_report, export_as
from tui.screens.base import AppScreen


def topic_bars(report: SessionReport, width: int = 16) -> str:
    lines = []
    for topic, depth in report.topics.items():
        filled = round(depth / 4 * width)
        lines.append(f"{topic:<18} {'█' * filled}{'░' * (width - filled)} {depth:.1f}")
    return "\n".join(lines) or "no questions answered"


class ReportScreen(AppScreen):
    BINDINGS = [
        Binding("m", "export('md')", "Export Markdown", tooltip="Save the report as a Markdown file"),
        Binding("j", "export('json')", "Export JSON", tooltip="Save the report as a JSON file"),
        Binding("escape", "home", "Home", tooltip="Back to Home"),
    ]
    PALETTE = BINDINGS

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id
        self.report: SessionReport | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="report"):
            yield Static(f"[b]Report for session {self.session_id}[/b]", id="report-title")
            yield DataTable(id="questions", cursor_type="row", zebra_stripes=True)
            yield Static("", id="bars")
            yield Static("", id="study")
        yield Footer()

    def on_mount(self) -> None:
        self.load_report()

    @work(exclusive=True, group="report", exit_on_error=False)
    async def load_report(self) -> None:
        """Reads the session and fills the screen; a failure is told by the App, the screen stays."""
        services = self.app.services
        state = await services.interview(self.session_id).state()
        self.report = build_report(state, services.bank)
        table = self.query_one("#questions", DataTable)
        table.add_columns("#", "question", "depth", "reason")
        for i, q in enumerate(self.report.questions, 1):
            table.add_row(str(i), q.question, f"{q.depth}/4", q.reason)
        average = self.report.average_depth
        self.query_one("#report-title", Static).update(
            f"[b]Report for session {self.session_id}[/b]  ({self.report.status}; average depth {average:.2f})"
            if average is not None
            else f"[b]Report for session {self.session_id}[/b]  ({self.report.status})"
        )
        self.query_one("#bars", Static).update("[b]Topics[/b]\n" + topic_bars(self.report))
        study = "\n".join(
            f"• {s.question} / {s.key_point}: {s.statement}\n    read: {'; '.join(s.read) or 'the model answer'}"
            for s in self.report.study_next
        )
        self.query_one("#study", Static).update("[b]Study next[/b]\n" + (study or "nothing: well done"))

    def action_export(self, fmt: Literal["md", "json"]) -> None:
        if self.report is None:
            return
        path = export_as(self.report, self.app.services.bank, self.app.settings.reports_dir, fmt)
        self.notify(f"Saved {path}")

    def action_home(self) -> None:
        while len(self.app.screen_stack) > 2:  # [default screen, Home, ...]
            self.app.pop_screen()
