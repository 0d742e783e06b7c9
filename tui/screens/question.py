"""One question of the library: the rubric (key points by level, misconceptions with corrections,
the model answer) and the reference note, each as Markdown with formulas in Unicode; `d` drills it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Header, Markdown, TabbedContent, TabPane

from agent.labels import labels
from agent.learner.library import SearchHit, question_markdown
from agent.learner.library import drill_now as plan_drill_now
from agent.learner.profile import ProfileError, system_clock
from agent.planning import PlanError
from common.terminal import clean_for_display
from knowledge.chunking import reference_label, section_title
from tui.latex import latex_to_unicode
from tui.screens.base import AppScreen, screen_key
from tui.widgets.fitted_footer import FittedFooter

if TYPE_CHECKING:
    from tui.app import InterviewApp


def drill_now(app: InterviewApp, question_id: str) -> None:
    """Start a drill on one question, opening on what the candidate has not shown yet."""
    services = app.services
    try:
        drill = plan_drill_now(services.profile.history(), services.bank, question_id, system_clock())
    except (PlanError, ProfileError) as exc:
        app.notify(str(exc), severity="error")
        return
    app.start_interview(drill.request, app.lang, max_follow_ups=drill.max_follow_ups)


class QuestionScreen(AppScreen):
    KEYS = "question"
    BINDINGS = [
        screen_key(KEYS, "r", "show('rubric')"),
        screen_key(KEYS, "n", "show('note')"),
        screen_key(KEYS, "d", "drill"),
        screen_key(KEYS, "escape", "back"),
    ]
    PALETTE = BINDINGS

    def __init__(self, question_id: str, heading: str | None = None) -> None:
        """`heading`: open on the note, at this heading (a search hit's)."""
        super().__init__()
        self.question_id = question_id
        self.heading = heading

    def compose(self) -> ComposeResult:
        services = self.app.services
        lang = self.app.lang
        say = labels(lang)
        question = services.bank[self.question_id]
        note = services.bank.note_text(self.question_id) or say("question_no_note")
        tab_names = say.table("question_keys")  # each tab is named as the key that shows it
        yield Header()
        with TabbedContent(initial="note" if self.heading else "rubric", id="question-tabs"):
            with TabPane(tab_names["show('rubric')"], id="rubric"), VerticalScroll(id="rubric-body"):
                yield Markdown(latex_to_unicode(question_markdown(question, lang)), id="rubric-text")
            with TabPane(tab_names["show('note')"], id="note"), VerticalScroll(id="note-body"):
                yield Markdown(latex_to_unicode(note), id="note-text")
        yield FittedFooter()

    def on_mount(self) -> None:
        self._focus_body()
        if self.heading:
            self.call_after_refresh(self._go_to_heading, self.heading)

    def _go_to_heading(self, heading: str) -> None:
        from textual.widgets._markdown import TrackedSlugs

        section = section_title(heading)
        self.query_one("#note-text", Markdown).goto_anchor(TrackedSlugs().slug(latex_to_unicode(section)))

    def _focus_body(self) -> None:
        tabs = self.query_one(TabbedContent)
        self.query_one(f"#{tabs.active}-body", VerticalScroll).focus()

    def action_show(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self._focus_body()

    def action_drill(self) -> None:
        drill_now(self.app, self.question_id)

    def action_back(self) -> None:
        self.app.pop_screen()


class HitScreen(AppScreen):
    """A search hit from a document that belongs to no question: the chunk itself."""

    KEYS = "question"  # back to the library, as from a question
    BINDINGS = [screen_key(KEYS, "escape", "back")]
    PALETTE = BINDINGS

    def __init__(self, hit: SearchHit) -> None:
        super().__init__()
        self.hit = hit

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="hit-body"):
            title = clean_for_display(reference_label(self.hit.source, self.hit.heading))
            yield Markdown(f"# {title}\n\n" + latex_to_unicode(clean_for_display(self.hit.text)))
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one("#hit-body").focus()

    def action_back(self) -> None:
        self.app.pop_screen()
