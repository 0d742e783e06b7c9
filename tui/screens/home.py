"""Home: start (Enter, with the defaults), resume, history, and the candidate's topics at a glance."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Label, LoadingIndicator, Static

from agent.interview.sessions import SessionDBError, SessionIndex
from agent.learner.past_reports import topic_averages
from tui.screens.base import AppScreen
from tui.widgets.choice import Choice, list_open

LENGTHS = [(f"{n} questions", n) for n in (3, 6, 10, 15)]
SECTIONS = [("both sections", "both"), ("algorithm", "algorithm"), ("infrastructure", "infrastructure")]
LANGS = [("English", "en"), ("中文", "zh")]


def topic_summary(reports_dir: Path) -> str:
    """The candidate's strongest and weakest topics over past sessions, at a glance."""
    averages = topic_averages(reports_dir)
    if not averages:
        return "No sessions yet: your strong and weak topics will show here."
    ranked = sorted(averages.items(), key=lambda kv: -kv[1])
    strong = ", ".join(f"{t} {d:.1f}" for t, d in ranked[:3] if d >= 2.5) or "none yet"
    weak = ", ".join(f"{t} {d:.1f}" for t, d in reversed(ranked[-3:]) if d < 2.5) or "none"
    return f"[b]Strong:[/b] {strong}\n[b]Weak:[/b] {weak}"


def unfinished_line(sessions_db: Path) -> str:
    """The session waiting to be resumed, if any: when it started, how far it got, and the key."""
    if not sessions_db.exists():
        return ""
    try:
        index = SessionIndex(sessions_db)
        row = index.latest_unfinished()
        saved = index.answers_saved(row.id) if row else 0
    except SessionDBError:
        return ""  # named where the sessions are listed (History, `rl-interview sessions`)
    if row is None:
        return ""
    started = row.started.replace("T", " ")[:16]
    return (
        f"[b]Unfinished session[/b] {row.id}, started {started} UTC: {len(row.plan)} questions "
        f"({', '.join(row.plan)}), {saved} {'answer' if saved == 1 else 'answers'} saved. "
        "Press [b]R[/b] to resume it."
    )


class HomeScreen(AppScreen):
    BINDINGS = [
        Binding("enter", "start", "Start interview", priority=True),
        Binding("r", "resume", "Resume"),
        Binding("h", "history", "History"),
        Binding("d", "drill", "Drill weak spots"),
        Binding("l", "library", "Library"),
    ]
    PALETTE = BINDINGS

    def compose(self) -> ComposeResult:
        app = self.app
        yield Header()
        with Vertical(id="home"):
            yield Static(
                "[b]rl-interview[/b]  a mock interviewer for RL post-training and infrastructure roles", id="title"
            )
            yield Static("Press [b]Enter[/b] to start an interview with these settings.", id="intro")
            yield Static(id="unfinished")
            with Horizontal(id="options"):
                yield Choice(
                    LENGTHS,
                    value=app.request.questions if app.request.questions in (3, 6, 10, 15) else 6,
                    allow_blank=False,
                    id="length",
                )
                yield Choice(SECTIONS, value=app.request.section, allow_blank=False, id="section")
                yield Choice(LANGS, value=app.lang, allow_blank=False, id="lang")
            with Horizontal(id="loading"):
                yield LoadingIndicator()
                yield Label("loading the interviewer…", id="loading-label")
            yield Static(topic_summary(app.settings.reports_dir), id="topics")
        yield Footer()

    def _loaded(self, failure: str | None) -> None:
        if failure is None:
            self.query_one("#loading").display = False
        else:
            self.query_one("#loading-label", Label).update(f"[red]could not load the interviewer:[/] {failure}")

    def on_mount(self) -> None:
        if self.app.ready or self.app.load_failure:
            self._loaded(self.app.load_failure)
        else:
            self.app.loaded.subscribe(self, self._loaded)
        self._show_unfinished()

    def _show_unfinished(self) -> None:
        line = unfinished_line(self.app.settings.sessions_db)
        shown = self.query_one("#unfinished", Static)
        shown.update(line)
        shown.display = bool(line)

    def on_screen_resume(self) -> None:
        self.query_one("#topics", Static).update(topic_summary(self.app.settings.reports_dir))
        self._show_unfinished()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Enter is the open list's (it picks the option), and the footer stops offering a start.
        return not (action == "start" and list_open(self))

    def on_screen_suspend(self) -> None:
        for choice in self.query(Choice):  # a list left open is closed when Home comes back
            choice.expanded = False

    def action_start(self) -> None:
        request = self.app.request.model_copy(
            update={
                "questions": self.query_one("#length", Choice).value,
                "section": self.query_one("#section", Choice).value,
            }
        )
        self.app.start_interview(request, self.query_one("#lang", Choice).selection)  # allow_blank=False: never None

    def action_resume(self) -> None:
        self.app.resume_session("latest")

    def action_drill(self) -> None:
        self.app.open_drill()

    def action_library(self) -> None:
        from tui.screens.library import LibraryScreen

        self.app.when_ready(lambda: self.app.push_screen(LibraryScreen()))

    def action_history(self) -> None:
        from tui.screens.history import HistoryScreen

        self.app.when_ready(lambda: self.app.push_screen(HistoryScreen()))
