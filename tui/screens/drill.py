"""Drill: the queue (due questions, then weak topics, then new ones) with what each opens on,
and the progress chart. Enter starts a short drill from the highlighted question on."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Header, Static

from agent.labels import labels
from agent.learner.drill import DrillItem, DrillOptions, drill_of, drill_queue
from agent.learner.profile import ProfileError, mastery, system_clock
from agent.learner.progress import due_counts, trend
from agent.planning import PlanError
from agent.text import shorten
from knowledge.models import Question
from tui.screens.base import AppScreen, screen_key
from tui.widgets.fitted_footer import FittedFooter
from tui.widgets.mastery_chart import MasteryChart


class DrillScreen(AppScreen):
    KEYS = "drill"
    BINDINGS = [screen_key(KEYS, "enter", "start", priority=True), screen_key(KEYS, "escape", "back")]
    PALETTE = BINDINGS

    def __init__(self, options: DrillOptions | None = None) -> None:
        super().__init__()
        self.options = options or DrillOptions()
        self.queue: list[DrillItem] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="drill"):
            yield Static("", id="drill-title")
            yield DataTable(id="drill-queue", cursor_type="row", zebra_stripes=True)
            yield MasteryChart(id="drill-chart")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*labels(self.app.lang).columns("drill_columns"))
        self._load()
        self.query_one(DataTable).focus()

    def on_screen_resume(self) -> None:
        self._load()

    def _load(self) -> None:
        services = self.app.services
        say = labels(self.app.lang)
        now = system_clock()
        title = self.query_one("#drill-title", Static)
        try:
            history = services.profile.history()
            self.queue = drill_queue(history, services.bank, now, self.options.topic)
        except (PlanError, ProfileError) as exc:
            title.update(f"[red]{exc}[/]")
            return
        topic = self.options.topic
        heading = say("drill_heading_on", topic=say.topic(topic)) if topic else say("drill_heading")
        title.update(say("drill_title", heading=heading, count=self.options.count))
        table = self.query_one(DataTable)
        table.clear()
        for i, item in enumerate(self.queue, 1):
            table.add_row(
                str(i),
                item.question,
                say.name("drill_why", item.why),
                opener_text(services.bank[item.question], item.opener, self.app.lang) or say("drill_whole_question"),
                "-" if item.last_depth is None else f"{item.last_depth}/4",
                item.due.date().isoformat() if item.due else "-",
                say.topics(services.bank[item.question].topics),
                key=item.question,
            )
        self.query_one(MasteryChart).show(
            say, mastery(history, services.bank, now), trend(history, services.bank, now), *due_counts(history, now)
        )

    def action_start(self) -> None:
        if not self.queue:
            return
        row = self.query_one(DataTable).cursor_row
        drill = drill_of(self.queue[row : row + self.options.count])
        self.app.start_interview(drill.request, self.app.lang, max_follow_ups=drill.max_follow_ups)

    def action_back(self) -> None:
        self.app.pop_screen()


OPENER_CHARS = 40


def opener_text(question: Question, opener: str | None, lang: str) -> str | None:
    """What a drilled question opens on, as the part (sub-question) its key point answers, in the
    screen's language: its id, "agentic-async", told a trial user nothing, and its statement is
    the answer the drill is about to ask for."""
    if opener is None:
        return None
    point = question.key_point(opener)
    said = question.part(point.part).get(lang) if point.part else point.probe.get(lang)
    return shorten(said.rstrip("?？."), OPENER_CHARS)
