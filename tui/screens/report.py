"""The session report: per-question table, per-topic bars, what to study next; exports."""

from __future__ import annotations

import asyncio
from typing import Literal

from rich import box
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Header, Static

from agent.interview.report import (
    SessionReport,
    build_report,
    depth_bar,
    export_as,
    report_facts,
    report_title,
    study_reading,
    study_statement,
)
from agent.labels import Labels, labels
from agent.state import HINTED_AT_BEST
from tui.progress_view import padded
from tui.screens.base import AppScreen, screen_key
from tui.widgets.fitted_footer import FittedFooter


class ReportScreen(AppScreen):
    KEYS = "report"
    BINDINGS = [
        screen_key(KEYS, "m", "export('md')"),
        screen_key(KEYS, "j", "export('json')"),
        screen_key(KEYS, "escape", "home"),
    ]
    PALETTE = BINDINGS

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id
        self.report: SessionReport | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="report"):
            yield Static("", id="report-title")
            yield Static("", id="questions")
            yield Static("", id="bars")
            yield Static("", id="study")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.load_report()

    @work(exclusive=True, group="report", exit_on_error=False)
    async def load_report(self) -> None:
        """Reads the session and fills the screen; a failure is told by the App, the screen stays."""
        services = self.app.services
        state = await services.interview(self.session_id).state()
        # Off the UI thread: each key point to study is looked up in the notes or the store
        report = await asyncio.to_thread(build_report, state, services.bank, services.context.retriever)
        self.report = report
        self.session_read(report.lang)
        # The session's language, as the exported Markdown has it (the reasons already are)
        say = labels(report.lang)
        self.query_one("#questions", Static).update(questions_table(report, say))
        title = Text(report_title(report, say), style="bold")
        self.query_one("#report-title", Static).update(title + "\n" + " · ".join(report_facts(report, say)))
        bars = [
            f"{padded(say.topic(topic), 18)} {depth_bar(depth)} {depth:.1f}" for topic, depth in report.topics.items()
        ]
        self.query_one("#bars", Static).update(_section(say("topics"), bars or [say("no_topics")]))
        study = [
            # The question, as the table above names it; the point in words, not its id.
            f"• {s.question}: {study_statement(s, services.bank, report.lang)}\n    {study_reading(s, say)}"
            for s in report.study_next
        ]
        self.query_one("#study", Static).update(_section(say("study_next"), study or [say("nothing_to_study")]))

    def action_export(self, fmt: Literal["md", "json"]) -> None:
        if self.report is None:
            return
        path = export_as(self.report, self.app.services.bank, self.app.settings.reports_dir, fmt)
        self.notify(f"Saved {path}")

    def action_home(self) -> None:
        while len(self.app.screen_stack) > 2:  # [default screen, Home, ...]
            self.app.pop_screen()


def questions_table(report: SessionReport, say: Labels) -> Table:
    """One row per question: its depth and the reason, and where progress counts it lower (a hint),
    that too: the library, the Drill list and Home show the lower figure."""
    number, question, depth, reason = say.columns("table_columns")
    # A Rich table wraps the reason within the screen's width, however narrow
    table = Table(box=box.SIMPLE_HEAD, expand=True, header_style="bold", pad_edge=False)
    for heading in (number, question, depth):
        table.add_column(heading, no_wrap=True)
    table.add_column(reason, ratio=1)
    for i, q in enumerate(report.questions, 1):
        why = q.reason + ("\n" + say(q.capped_by, depth=HINTED_AT_BEST) if q.capped_by else "")
        table.add_row(str(i), q.question, f"{q.depth}/4", Text(why))
    return table


def _section(heading: str, lines: list[str]) -> Text:
    """A bold heading over its lines, as plain text: statements may hold brackets Rich would read as markup."""
    return Text(heading, style="bold") + "\n" + "\n".join(lines)
