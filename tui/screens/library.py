"""Library: every question by section and topic with your depth and due date; type to filter them,
Enter in the box searches the knowledge store; Enter opens a question or a hit, `d` drills it now."""

from __future__ import annotations

import re

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Header, Input, Static

from agent.labels import Labels, labels
from agent.learner.library import Entry, SearchHit, SearchResult, entries, search
from agent.learner.profile import History, ProfileError
from common.terminal import clean_for_display
from knowledge.chunking import reference_label, section_title
from tui.latex import latex_to_unicode
from tui.screens.base import AppScreen, screen_key
from tui.widgets.fitted_footer import FittedFooter
from tui.widgets.fitted_table import FittedTable

EMPHASIS = re.compile(r"(\*\*|__)(\S.*?)\1")
"""Markdown's bold, as the notes write it: a table cell shows plain text, not the asterisks."""


def one_line(text: str, limit: int | None = None) -> str:
    """`text` on one line, as plain text; cut to `limit` characters with an ellipsis, if given."""
    flat = " ".join(EMPHASIS.sub(r"\2", latex_to_unicode(clean_for_display(text))).split())
    return flat if limit is None or len(flat) <= limit else flat[: limit - 1] + "…"


class LibraryScreen(AppScreen):
    KEYS = "library"
    BINDINGS = [
        screen_key(KEYS, "slash", "focus_query"),
        screen_key(KEYS, "down", "focus_list", show=False),
        screen_key(KEYS, "d", "drill"),
        screen_key(KEYS, "escape", "back"),
    ]
    PALETTE = BINDINGS

    def __init__(self) -> None:
        super().__init__()
        self.all: list[Entry] = []
        self.shown: list[Entry] = []
        self.hits: list[SearchHit] = []

    @property
    def say(self) -> Labels:
        """The words of the language chosen on Home."""
        return labels(self.app.lang)

    def compose(self) -> ComposeResult:
        say = self.say
        yield Header()
        with Vertical(id="library"):
            yield Input(placeholder=say("library_placeholder"), id="library-query")
            yield Static("", id="library-problems")
            yield FittedTable(*say.columns("library_columns"), id="library-questions")
            yield Static("", id="library-search-note")
            yield FittedTable(*say.columns("library_hit_columns"), id="library-hits")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one("#library-hits").display = False
        self.query_one("#library-search-note").display = False
        problems = self.app.services.bank.problems
        notice = self.query_one("#library-problems", Static)
        notice.display = bool(problems)
        if problems:
            notice.update(
                f"[red]{self.say('library_problems', count=len(problems))}[/]\n"
                + "\n".join(clean_for_display(str(p)) for p in problems)
            )
        self._load()
        self.query_one("#library-query", Input).focus()

    def on_screen_resume(self) -> None:
        self._load()

    def _load(self) -> None:
        services = self.app.services
        try:
            self.all = entries(services.bank, services.profile.history())
        except ProfileError as exc:
            self.notify(str(exc), severity="error")
            self.all = entries(services.bank, History())
        self._filter(self.query_one("#library-query", Input).value)

    def _filter(self, text: str) -> None:
        self.shown = [e for e in self.all if e.matches(text)]
        lang, say = self.app.lang, self.say
        rows = [
            (
                e.question.id,
                "-" if e.depth is None else f"{e.depth}/4",
                "-" if e.due is None else e.due.date().isoformat(),
                say("library_yours") if e.question.yours else "",
                say.name("sections", e.question.section.value),
                say.topics(e.question.topics),
                one_line(e.question.prompt.get(lang)),
            )
            for e in self.shown
        ]
        self.query_one("#library-questions", FittedTable).show(rows, [e.question.id for e in self.shown])

    @on(Input.Changed, "#library-query")
    def _typed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    @on(Input.Submitted, "#library-query")
    def _search(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.run_search(event.value)

    @work(exclusive=True, group="library-search", thread=True, exit_on_error=False)
    def run_search(self, query: str) -> None:
        result = search(self.app.settings, query, bank=self.app.services.bank)
        self.app.call_from_thread(self._show_hits, result)

    def _show_hits(self, result: SearchResult) -> None:
        self.hits = result.hits
        note = self.query_one("#library-search-note", Static)
        note.display = True
        why = self.say("library_unbuilt") if result.unbuilt else result.note
        note.update(
            f"[b]{self.say('library_hits', count=len(result.hits))}[/b]"
            + (f"  [dim]({clean_for_display(why)})[/]" if why else "")
        )
        table = self.query_one("#library-hits", FittedTable)
        table.display = True
        # the note's title comes first in its heading; its innermost section says more in a narrow column
        rows = [
            (
                hit.question_id or "-",
                one_line(reference_label(hit.source, section_title(hit.heading)), 48),
                one_line(hit.text),
            )
            for hit in result.hits
        ]
        table.show(rows, [str(i) for i in range(len(rows))])
        if result.hits:
            table.focus()

    @on(DataTable.RowSelected, "#library-questions")
    def _open_question(self, event: DataTable.RowSelected) -> None:
        from tui.screens.question import QuestionScreen

        question_id = event.row_key.value
        assert question_id is not None  # every row is added with its question's id as key
        self.app.push_screen(QuestionScreen(question_id))

    @on(DataTable.RowSelected, "#library-hits")
    def _open_hit(self, event: DataTable.RowSelected) -> None:
        from tui.screens.question import HitScreen, QuestionScreen

        index = event.row_key.value
        assert index is not None  # every row is added with its hit's index as key
        hit = self.hits[int(index)]
        if hit.question_id is not None and hit.question_id in self.app.services.bank:
            self.app.push_screen(QuestionScreen(hit.question_id, heading=hit.heading))
        else:
            self.app.push_screen(HitScreen(hit))

    def action_focus_query(self) -> None:
        query = self.query_one("#library-query", Input)
        query.focus()
        query.select_all()

    def action_focus_list(self) -> None:
        if self.focused is self.query_one("#library-query"):
            self.query_one("#library-questions").focus()

    def selected_question(self) -> str | None:
        """The question under the cursor of the focused list (a hit's question for the hits)."""
        hits = self.query_one("#library-hits", DataTable)
        if self.focused is hits and self.hits:
            return self.hits[hits.cursor_row].question_id
        if self.shown:
            return self.shown[self.query_one("#library-questions", DataTable).cursor_row].question.id
        return None

    def action_drill(self) -> None:
        from tui.screens.question import drill_now

        question = self.selected_question()
        if question is not None and question in self.app.services.bank:
            drill_now(self.app, question)

    def action_back(self) -> None:
        self.app.pop_screen()
