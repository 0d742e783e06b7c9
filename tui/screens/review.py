"""Question review: what was shown (with the candidate's own words), what was missed, the
misconceptions and their corrections, the model answer and the references (expandable)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Footer, Header, Markdown

from agent.brains.parts import part_coverage
from agent.state import QuestionSummary
from agent.text import clean_for_display
from knowledge.chunking import reference_label
from knowledge.models import DEPTH_NAMES, Question
from tui.latex import latex_to_unicode
from tui.screens.base import AppScreen

if TYPE_CHECKING:  # the runner brings LangGraph, which loads off the UI thread (tui.app)
    from agent.interview.runner import Interview


def review_markdown(summary: QuestionSummary, question: Question, lang: str, offline: Sequence[str] = ()) -> str:
    """`offline`: why the model failed, for each answer to this question that was scored offline instead."""
    lines = [
        f"# {question.id}: depth {summary.depth}/4 ({DEPTH_NAMES[summary.depth]})",
        "",
        latex_to_unicode(question.prompt.get(lang)),
        "",
        f"*{summary.reason}*",
        "",
    ]
    if offline:
        reasons = "; ".join(dict.fromkeys(offline))
        lines += [
            f"**Scored offline** for {len(offline)} of your answers here, because the model failed: {reasons}.",
            "",
        ]
    coverage = part_coverage(question, summary.covered)
    if len(coverage) > 1:
        lines += ["## Parts of the question", ""]
        lines += [
            f"- {c.mark} {latex_to_unicode(c.part.get(lang))}: {c.shown} of {c.of} key point{'s' * (c.of != 1)}"
            + (" (with a hint)" if c.hinted else "")
            for c in coverage
        ]
        lines.append("")
    if summary.covered:
        lines += ["## What you showed", ""]
        for evidence in summary.covered:
            point = question.key_point(evidence.key_point)
            hinted = ", with a hint" if evidence.hinted else ""
            lines += [
                f"- **{point.statement}** (level {point.level}{hinted})",
                f"  > {clean_for_display(evidence.quote)}",
            ]
    if summary.missed:
        lines += ["", "## Not shown yet", ""]
        lines += [
            f"- {question.key_point(kp).statement} (level {question.key_point(kp).level})" for kp in summary.missed
        ]
    if summary.misconceptions:
        lines += ["", "## Misconceptions", ""]
        for hit in summary.misconceptions:
            lines += [f"- You said: *{clean_for_display(hit.quote)}*", f"  - **Correction:** {hit.correction}"]
    lines += ["", "## Model answer", "", latex_to_unicode(summary.model_answer)]
    return "\n".join(lines)


class ReviewScreen(AppScreen):
    BINDINGS = [Binding("escape,enter", "close", "Continue", priority=True)]
    PALETTE = BINDINGS

    def __init__(self, session: Interview, question_id: str) -> None:
        super().__init__()
        self.session = session
        self.question_id = question_id

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(id="review")
        yield Footer()

    async def on_mount(self) -> None:
        state = await self.session.state()
        summary = next(s for s in reversed(state["summaries"]) if s.question == self.question_id)
        question = self.app.services.bank[self.question_id]
        body = self.query_one("#review", VerticalScroll)
        offline = [
            t.assessment.fallback_reason
            for t in state["turns"]
            if t.question == self.question_id and t.assessment and t.assessment.fallback_reason
        ]
        await body.mount(Markdown(review_markdown(summary, question, state.get("lang", "en"), offline)))
        if summary.references:
            await body.mount(Markdown("## References"))
            for ref in summary.references:
                await body.mount(
                    Collapsible(
                        Markdown(latex_to_unicode(clean_for_display(ref.text))),
                        title=reference_label(ref.source, ref.heading),
                        collapsed=True,
                    )
                )

    def action_close(self) -> None:
        self.app.pop_screen()
