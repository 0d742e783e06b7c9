"""Question review: what was shown (with the candidate's own words), what was missed, the
misconceptions and their corrections, the model answer and the references (expandable)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Header, Markdown

from agent.brains.parts import coverage_with_earlier
from agent.brains.wording import shown_words
from agent.labels import labels
from agent.state import HINTED_AT_BEST, QuestionSummary, Reference, by_quote
from agent.text import clean_for_display, formula_stars, markdown_literal
from knowledge.chunking import reference_label, section_title
from knowledge.models import Question, in_language
from tui.latex import latex_to_unicode
from tui.screens.base import AppScreen, screen_key
from tui.widgets.fitted_footer import FittedFooter

if TYPE_CHECKING:  # the runner brings LangGraph, which loads off the UI thread (tui.app)
    from agent.interview.runner import Interview


def review_markdown(
    summary: QuestionSummary,
    question: Question,
    lang: str,
    offline: Sequence[str] = (),
    shown_before: Sequence[str] = (),
) -> str:
    """`offline`: why the model failed, for each answer to this question that was scored offline instead.
    `shown_before`: in a drill, the key points shown in earlier drills (they add up), listed apart
    from what is still not shown."""
    say = labels(lang)
    depth = summary.depth
    lines = [
        f"# {say('review_title', question=question.id, depth=depth, name=say.depth_name(depth))}",
        "",
        latex_to_unicode(question.prompt.get(lang)),
        "",
        f"*{markdown_literal(summary.reason)}*",
        "",
    ]
    if summary.capped_by:
        lines += [say(summary.capped_by, depth=HINTED_AT_BEST), ""]
    if offline:
        lines += [say("scored_offline", count=len(offline), reasons="; ".join(dict.fromkeys(offline))), ""]
    # what earlier drills showed counts toward the parts, as it does toward the profile
    coverage = coverage_with_earlier(question, summary.covered, shown_before)
    if len(coverage) > 1:
        lines += [f"## {say('parts_heading')}", ""]
        lines += [
            f"- {say.part_line(c.mark, latex_to_unicode(c.part.get(lang)), c.shown, c.of, c.hinted)}" for c in coverage
        ]
        lines.append("")
    if summary.covered:
        lines += [f"## {say('shown_heading')}", ""]
        for evidence in summary.covered:
            point = question.key_point(evidence.key_point)
            lines += [
                f"- **{markdown_literal(point.statement_in(lang))}**{say.level(point.level, evidence.hinted)}",
                f"  > {markdown_literal(shown_words(question, evidence))}",
            ]
    before = [kp for kp in summary.missed if kp in shown_before]
    for heading, points in (
        ("not_shown_heading", [kp for kp in summary.missed if kp not in before]),
        ("shown_before_heading", before),
    ):
        if points:
            lines += ["", f"## {say(heading)}", ""]
            lines += [
                f"- {markdown_literal(question.key_point(kp).statement_in(lang))}{say.level(question.key_point(kp).level)}"
                for kp in points
            ]
    if summary.misconceptions:
        lines += ["", f"## {say('misconceptions')}", ""]
        for same in by_quote(summary.misconceptions):
            lines.append(f"- {say('you_said', quote=markdown_literal(clean_for_display(same[0].quote)))}")
            # a sentence that turns both roles of a pair round has one correction for both (blind trial 36)
            corrections = dict.fromkeys(question.correction_in(hit.misconception, hit.correction, lang) for hit in same)
            lines += [f"  - {say('correction', correction=markdown_literal(text))}" for text in corrections]
            lines += [
                f"  - {say('put_right_later', quote=markdown_literal(clean_for_display(right)))}"
                for right in dict.fromkeys(hit.put_right for hit in same if hit.put_right)
            ]
    model_answer = in_language(summary.model_answer, question.model_answer_zh, lang)
    lines += ["", f"## {say('model_answer')}", "", formula_stars(latex_to_unicode(model_answer))]
    return "\n".join(lines)


def _by_section(references: Sequence[Reference]) -> dict[tuple[str, str], list[str]]:
    """The references' texts by (source, heading): a section cut into two chunks is one reference,
    not the same title twice."""
    sections: dict[tuple[str, str], list[str]] = {}
    for ref in references:
        sections.setdefault((ref.source, ref.heading), []).append(ref.text)
    return sections


class ReferenceView(Collapsible):
    """A reference, closed until opened: Enter on its title (Textual's own key) or Space."""

    BINDINGS = [screen_key("review", "space", "open_or_close")]  # the review's footer says it in its language

    def action_open_or_close(self) -> None:
        self.collapsed = not self.collapsed


class ReviewScreen(AppScreen):
    # Enter is not a priority: on a reference's title it opens the reference; anywhere else it continues
    KEYS = "review"
    BINDINGS = [screen_key(KEYS, "escape", "close", priority=True), screen_key(KEYS, "enter", "close")]
    PALETTE = BINDINGS[:1]

    def __init__(self, session: Interview, question_id: str) -> None:
        super().__init__()
        self.session = session
        self.question_id = question_id

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(id="review")
        yield FittedFooter()

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
        lang = state.get("lang", "en")
        self.session_read(lang)
        request = state.get("request")
        shown_before = request.shown_before(question) if request else []
        await body.mount(Markdown(review_markdown(summary, question, lang, offline, shown_before)))
        if summary.references:
            await body.mount(Markdown(f"## {labels(lang)('references')}"))
            for (source, heading), texts in _by_section(summary.references).items():
                await body.mount(
                    ReferenceView(
                        Markdown(latex_to_unicode(clean_for_display("\n\n".join(texts)))),
                        # the note's title heads every one of its sections: the innermost says which
                        title=reference_label(source, section_title(heading)),
                        collapsed=True,
                    )
                )

    def action_close(self) -> None:
        self.app.pop_screen()
