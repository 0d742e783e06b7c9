"""The conversation: interviewer turns as Markdown (formulas in Unicode), candidate turns as text."""

from __future__ import annotations

from rich.text import Text
from textual.await_complete import AwaitComplete
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from agent.text import clean_for_display, formula_stars
from tui.latex import latex_to_unicode


class InterviewerTurn(Markdown):
    DEFAULT_CSS = """
    InterviewerTurn { margin: 1 1 0 0; padding: 0 1; border-left: thick $accent; background: $boost; }
    """

    def __init__(self, text: str, label: str) -> None:
        self.label = label
        self.raw = text
        super().__init__(self._turn_markdown(text), classes="interviewer")

    def _turn_markdown(self, text: str) -> str:
        return f"**{self.label}**\n\n{formula_stars(latex_to_unicode(clean_for_display(text)))}"

    def append(self, markdown: str) -> AwaitComplete:
        """A streamed token: the turn grows as the brain writes it (the whole turn is drawn again)."""
        self.raw += markdown
        return self.update(self._turn_markdown(self.raw))


class CandidateTurn(Static):
    DEFAULT_CSS = """
    CandidateTurn { margin: 1 0 0 6; padding: 0 1; border-right: thick $secondary; }
    """

    def __init__(self, text: str) -> None:
        super().__init__(Text(clean_for_display(text)), classes="candidate")


class Transcript(VerticalScroll):
    DEFAULT_CSS = """
    Transcript { height: 1fr; }
    """

    def add_interviewer(self, text: str, label: str) -> InterviewerTurn:
        turn = InterviewerTurn(text, label)
        self.mount(turn)
        self.scroll_end(animate=False)
        return turn

    def add_candidate(self, text: str) -> None:
        self.mount(CandidateTurn(text))
        self.scroll_end(animate=False)

    def add_note(self, text: str) -> None:
        self.mount(Static(Text(text), classes="note"))
        self.scroll_end(animate=False)

    def add_action(self, text: str) -> None:
        """A reply that is not an answer ("[asked for a hint]"): noted in italics, apart from what you typed."""
        self.mount(Static(Text(text, style="italic"), classes="note action"))
        self.scroll_end(animate=False)
