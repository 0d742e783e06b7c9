"""Home: start (Enter, with the defaults), resume, history, and the candidate's topics at a glance."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Label, LoadingIndicator, Static

from agent.interview.sessions import SessionDBError, SessionIndex, SessionRow
from agent.learner.past_reports import topic_averages
from common.errors import InputError
from tui.screens.base import AppScreen
from tui.widgets.choice import Choice, list_open

LENGTHS = [(f"{n} questions", n) for n in (3, 6, 10, 15)]
SECTIONS = [("both sections", "both"), ("algorithm", "algorithm"), ("infrastructure", "infrastructure")]
LANGS = [("English", "en"), ("中文", "zh")]


def topic_summary(averages: dict[str, float], unfinished: bool) -> str:
    """The candidate's strongest and weakest topics (`topic_averages`), at a glance."""
    if not averages:
        return (
            "No finished session yet: your strong and weak topics will show here as questions are scored."
            if unfinished
            else "No sessions yet: your strong and weak topics will show here."
        )
    ranked = sorted(averages.items(), key=lambda kv: -kv[1])
    strong = ", ".join(f"{t} {d:.1f}" for t, d in ranked[:3] if d >= 2.5) or "none yet"
    weak = ", ".join(f"{t} {d:.1f}" for t, d in reversed(ranked[-3:]) if d < 2.5) or "none"
    return f"[b]Strong:[/b] {strong}\n[b]Weak:[/b] {weak}"


def unfinished_session(sessions_db: Path) -> tuple[SessionRow, int, bool] | None:
    """The session waiting to be resumed, if any: how many answers the candidate typed in it, and
    whether an answer being written is kept (a session with nothing in it is not offered)."""
    if not sessions_db.exists():
        return None
    try:
        index = SessionIndex(sessions_db)
        row = index.latest_unfinished()
        return (row, index.answers_saved(row.id), index.drafted(row.id)) if row else None
    except SessionDBError:
        return None  # named where the sessions are listed (History, `rl-interview sessions`)


def counted(n: int, noun: str) -> str:
    """A count in words: 1 question, 2 questions."""
    return f"{n} {noun}{'s' * (n != 1)}"


def unfinished_line(row: SessionRow, saved: int, drafted: bool) -> str:
    """The session waiting to be resumed: when it started, how far it got, and the key."""
    started = row.started.replace("T", " ")[:16]
    draft = " and a draft not yet sent" if drafted else ""
    return (
        f"[b]Unfinished session[/b] {row.id}, started {started} UTC: {counted(len(row.plan), 'question')} "
        f"({', '.join(row.plan)}), {counted(saved, 'answer')} saved{draft}. Press [b]R[/b] to resume it."
    )


class HomeScreen(AppScreen):
    BINDINGS = [
        Binding(
            "enter",
            "start",
            "Start interview",
            tooltip="Begin an interview with the length, sections and language chosen here",
            priority=True,
        ),
        Binding("r", "resume", "Resume", tooltip="Go on with the latest unfinished session where it stopped"),
        Binding("h", "history", "History", tooltip="Past sessions: open a report, or resume one"),
        Binding(
            "d", "drill", "Drill weak spots", tooltip="Practise what you missed: due questions first, then weak topics"
        ),
        Binding("l", "library", "Library", tooltip="Browse the questions, their rubrics and notes; search the notes"),
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
            yield Static(id="topics")
        yield Footer()

    def _loaded(self, failure: str | None) -> None:
        if failure is None:
            self.query_one("#loading").display = False
            self._show_sessions()  # the profile can be read now
        else:
            self.query_one("#loading-label", Label).update(f"[red]could not load the interviewer:[/] {failure}")

    def on_mount(self) -> None:
        if self.app.ready or self.app.load_failure:
            self._loaded(self.app.load_failure)
        else:
            self.app.loaded.subscribe(self, self._loaded)
        self._show_sessions()

    def on_screen_resume(self) -> None:
        self._show_sessions()

    def _show_sessions(self) -> None:
        """The unfinished session and the candidate's topics, as the stores have them now."""
        unfinished = unfinished_session(self.app.settings.sessions_db)
        shown = self.query_one("#unfinished", Static)
        shown.update(unfinished_line(*unfinished) if unfinished else "")
        shown.display = unfinished is not None
        so_far = [self._scored_so_far(unfinished[0].id)] if unfinished and self.app.ready else []
        averages = topic_averages(self.app.settings.reports_dir, so_far)
        self.query_one("#topics", Static).update(topic_summary(averages, unfinished is not None))

    def _scored_so_far(self, session_id: str) -> dict[str, float]:
        """The topics of an unfinished session's questions scored so far: the profile records each
        question as it closes, where the session's report comes only at its end."""
        from agent.interview.report import session_topics  # loaded with the interviewer

        services = self.app.services
        try:
            attempts = services.profile.history().attempts
        except InputError:
            return {}  # a damaged profile is named where it is used (progress, drill)
        scored = [(r.attempt.question, r.attempt.depth) for r in attempts if r.attempt.session_id == session_id]
        return session_topics(((q, depth) for q, depth in scored if q in services.bank), services.bank)

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
