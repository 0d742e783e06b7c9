"""Home: start (Enter, with the defaults), resume, history, and the candidate's topics at a glance.
Its own words are in the language chosen on it, and change as soon as another one is picked."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Header, Label, LoadingIndicator, Static

from agent.interview.sessions import SessionDBError, SessionIndex, SessionRow
from agent.labels import Labels, labels
from common.errors import InputError
from common.settings import Lang
from tui.remembered import HomeChoices, save_choices
from tui.screens.base import AppScreen, screen_key
from tui.widgets.choice import Choice, list_open
from tui.widgets.fitted_footer import FittedFooter

LENGTHS = (3, 6, 10, 15)
LANGS = [("English", "en"), ("中文", "zh")]  # each language in its own words, whatever Home's


def lengths(say: Labels) -> list[tuple[str, int]]:
    return [(say.counted("home_questions", n), n) for n in LENGTHS]


def sections(say: Labels) -> list[tuple[str, str]]:
    return [(say("home_both_sections"), "both")] + [
        (say.name("sections", section), section) for section in ("algorithm", "infrastructure")
    ]


def topic_summary(ranked: list[tuple[str, float]], mastered: float, unfinished: bool, say: Labels) -> str:
    """The candidate's strongest and weakest topics at a glance: `ranked` is the profile's mastery,
    weakest first, as Drill and `rl-interview progress` show it; a topic below `mastered` is weak."""
    if not ranked:
        return say("home_no_finished" if unfinished else "home_no_sessions")
    sep = say("list_separator")
    strong = sep.join(f"{say.topic(t)} {m:.0%}" for t, m in reversed(ranked[-3:]) if m >= mastered)
    weak = sep.join(f"{say.topic(t)} {m:.0%}" for t, m in ranked[:3] if m < mastered)
    return (
        f"[b]{say.listing('home_strong')}[/b] {strong or say('home_none_yet')}\n"
        f"[b]{say.listing('home_weak')}[/b] {weak or say('home_none')}"
    )


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


def unfinished_line(row: SessionRow, saved: int, drafted: bool, say: Labels) -> str:
    """The session waiting to be resumed: when it started, how far it got, and the key."""
    return say(
        "home_unfinished",
        heading=f"[b]{say.name('home_unfinished_heading', row.kind or 'interview')}[/b]",
        session_id=row.id,
        started=row.started.replace("T", " ")[:16],
        questions=say.counted("home_questions", len(row.plan)),
        plan=", ".join(row.plan),
        answers=say.counted("home_answers", saved),
        draft=say("home_and_a_draft") if drafted else "",
        shortcut="[b]R[/b]",
    )


class HomeScreen(AppScreen):
    KEYS = "home"  # described in the language chosen here, as soon as it is chosen
    BINDINGS = [
        screen_key(KEYS, "enter", "start", priority=True),
        screen_key(KEYS, "r", "resume"),
        screen_key(KEYS, "h", "history"),
        screen_key(KEYS, "d", "drill"),
        screen_key(KEYS, "l", "library"),
    ]
    PALETTE = BINDINGS
    kept: HomeChoices | None = None
    """The choices Home opened on, then the last ones kept (set once mounted)."""

    @property
    def say(self) -> Labels:
        return labels(self.app.lang)

    def compose(self) -> ComposeResult:
        app = self.app
        yield Header()
        with Vertical(id="home"):
            yield Static(id="title")
            yield Static(id="intro")
            yield Static(id="unfinished")
            with Horizontal(id="options"):
                yield Choice(
                    lengths(self.say),
                    value=app.request.questions if app.request.questions in LENGTHS else 6,
                    allow_blank=False,
                    id="length",
                )
                yield Choice(sections(self.say), value=app.request.section, allow_blank=False, id="section")
                yield Choice(LANGS, value=app.lang, allow_blank=False, id="lang")
            with Horizontal(id="loading"):
                yield LoadingIndicator()
                yield Label(id="loading-label")
            yield Static(id="topics")
        yield FittedFooter()

    def _speak(self) -> None:
        """Home's own words, in the language chosen now."""
        say = self.say
        self.app.sub_title = say("app_subtitle")  # the screens opened from here say it too
        self.query_one("#title", Static).update(f"[b]rl-interview[/b]  {say('home_tagline')}")
        self.query_one("#intro", Static).update(say("home_intro", shortcut="[b]Enter[/b]"))
        failure = self.app.load_failure
        loading = f"[red]{say('home_load_failed')}[/] {failure}" if failure else say("home_loading")
        self.query_one("#loading-label", Label).update(loading)
        self._show_sessions()
        self.refresh_bindings()  # the footer describes the keys anew

    @on(Choice.Changed, "#lang")
    def _language_chosen(self, event: Choice.Changed) -> None:
        if event.value == self.app.lang:
            return
        self.app.lang = cast(Lang, event.value)  # a drill or the library opened from here speaks it too
        self.query_one("#length", Choice).relabel(lengths(self.say))
        self.query_one("#section", Choice).relabel(sections(self.say))
        self._speak()

    @on(Choice.Changed)
    def _keep_choices(self) -> None:
        """Kept for the next run as soon as made: quitting from Home keeps them too. What Home opened
        on (the lists report it as a change when they mount) is not a choice: `--lang zh` once is
        not what the next plain `rl-interview` opens on."""
        app = self.app
        choices = self._choices()
        if not app.remember_choices or self.kept in (None, choices):
            return
        self.kept = choices
        problem = save_choices(app.settings.home, choices)
        if problem and problem != app.choices_problem:  # told once, not at every change
            app.choices_problem = problem
            self.notify(self.say("home_choices_not_kept", problem=problem), severity="warning", timeout=10)

    def _loaded(self, failure: str | None) -> None:
        if failure is None:
            self.query_one("#loading").display = False
        self._speak()  # the profile can be read now, or why the interviewer failed is told

    def _choices(self) -> HomeChoices:
        return HomeChoices(
            questions=self.query_one("#length", Choice).value,
            section=self.query_one("#section", Choice).value,
            lang=self.query_one("#lang", Choice).value,
        )

    def on_mount(self) -> None:
        self.kept = self._choices()
        if self.app.choices_problem:
            problem = self.app.choices_problem
            self.notify(self.say("home_choices_unreadable", problem=problem), severity="warning", timeout=10)
        if self.app.ready or self.app.load_failure:
            self._loaded(self.app.load_failure)
        else:
            self.app.loaded.subscribe(self, self._loaded)
            self._speak()

    def on_screen_resume(self) -> None:
        self._show_sessions()

    def _show_sessions(self) -> None:
        """The unfinished session and the candidate's topics, as the stores have them now."""
        unfinished = unfinished_session(self.app.settings.sessions_db)
        shown = self.query_one("#unfinished", Static)
        shown.update(unfinished_line(*unfinished, self.say) if unfinished else "")
        shown.display = unfinished is not None
        self.query_one("#topics", Static).update(self._topics(unfinished is not None))

    def _topics(self, unfinished: bool) -> str:
        """From the profile (each question recorded as it closes, an unfinished session's too), once
        the interviewer has loaded it; a damaged profile is named where it is used (progress, drill)."""
        if not self.app.ready:
            return ""
        from agent.learner.drill import MASTERED  # loaded with the interviewer
        from agent.learner.profile import mastery, system_clock, weakest_first

        services = self.app.services
        try:
            by_topic = mastery(services.profile.history(), services.bank, system_clock())
        except InputError:
            return ""
        return topic_summary(weakest_first(by_topic), MASTERED, unfinished, self.say)

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
