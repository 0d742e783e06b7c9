"""The question's review (shown when a question closes): its references, its keys, its wording.

The interviewer is the real one (offline brain, our notes as references); expected texts come from
the bank and the notes, never from the code under test.
"""

from __future__ import annotations

from textual.widgets import Collapsible
from textual.widgets.collapsible import CollapsibleTitle
from tui_helpers import CLIP_ANSWER, answer, interviewer_turns, screen_text, settle, skip_to_review, start

from tui.screens.interview import InterviewScreen


async def test_every_reference_title_is_read_in_full_at_80_columns(make_app):
    """The titles were one line each, cut at the right edge (badly below 120 columns)."""
    app = make_app(["algo-12"])
    async with app.run_test(size=(80, 200)) as pilot:
        await start(pilot)
        await skip_to_review(pilot)
        await settle(pilot)
        titles = [str(c.title) for c in app.screen.query(Collapsible)]
        shown = " ".join(screen_text(app).split())
    assert titles and all(t.startswith("notes/algo-12.md › ") for t in titles)
    assert "Choosing group size" not in " ".join(titles), "the note's own title is repeated in every section"
    for title in titles:
        assert title in shown, f"{title!r} is cut"


async def focus_a_reference(pilot) -> Collapsible:
    """Tab until a reference's title has the focus; the reference it opens."""
    for _ in range(10):
        await pilot.press("tab")
        if isinstance(pilot.app.focused, CollapsibleTitle):
            return pilot.app.focused.parent
    raise AssertionError(f"Tab never reached a reference; the focus is on {pilot.app.focused!r}")


async def test_enter_or_space_on_a_reference_opens_it_and_enter_elsewhere_continues(make_app, bank):
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot)
        await skip_to_review(pilot)
        await settle(pilot)
        review = app.screen
        reference = await focus_a_reference(pilot)
        assert reference.collapsed
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is review and not reference.collapsed, "Enter on a reference closed the review"
        await pilot.press("space")
        await settle(pilot)
        assert reference.collapsed
        await pilot.press("space")
        await settle(pilot)
        assert not reference.collapsed

        review.query_one("#review").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, InterviewScreen)
        assert interviewer_turns(app.screen)[-1].raw == bank["infra-01"].prompt.en


async def test_a_section_retrieved_as_two_chunks_is_one_reference(make_app):
    """algo-10's review listed two sections twice each."""
    app = make_app(["algo-10"])
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await skip_to_review(pilot)
        await settle(pilot)
        titles = [str(c.title) for c in app.screen.query(Collapsible)]
        state = await app.screen.session.state()
    references = state["summaries"][0].references
    sections = {(r.source, r.heading) for r in references}
    assert len(sections) < len(references), "the case this test is about: one section in two chunks"
    assert len(titles) == len(set(titles)) == len(sections)


def test_a_statement_with_an_asterisk_keeps_its_bold_and_leaves_no_stray_asterisk(bank):
    """algo-10's "pi*" closed the bold around its statement: "…log-ratio(y_l)])。* (第 2 层)"."""
    from markdown_it import MarkdownIt

    from agent.state import Evidence, QuestionSummary
    from tui.screens.review import review_markdown

    question = bank["algo-10"]
    point = question.key_point("derivation-bt")
    assert "pi*" in point.statement_zh, "the case this test is about"
    summary = QuestionSummary(
        question="algo-10",
        depth=2,
        reason="深度 2",
        covered=[Evidence(key_point=point.id, level=point.level, quote="它来自 RLHF 的最优解。")],
        missed=[kp.id for kp in question.key_points if kp.id != point.id],
        misconceptions=[],
        model_answer=question.model_answer,
        references=[],
    )
    html = MarkdownIt("commonmark").render(review_markdown(summary, question, "zh"))
    shown = next(line for line in html.splitlines() if "Bradley-Terry" in line)
    assert shown.startswith("<li><strong>它来自带 KL 正则的 RLHF 最优解 pi* 正比于")
    assert shown.endswith(f"。</strong>（第 {point.level} 层）"), "full-width brackets, no space after 。"


def test_formulas_keep_their_asterisks_in_quotes_reasons_and_the_model_answer(bank):
    """A user typed "A_t = delta_t + gamma*lambda*A_{t+1}" and the review showed
    "gammalambdaA_{t+1}"; the model answer's "r_t*A_t" read "r_tA_t" (Markdown emphasis)."""
    from markdown_it import MarkdownIt

    from agent.state import Evidence, QuestionSummary
    from tui.screens.review import review_markdown
    from tui.widgets.transcript import InterviewerTurn

    question = bank["algo-05"]
    point = question.key_point("gae-formula-llm")
    typed = "A_t = delta_t + gamma*lambda*A_{t+1}, summed backwards."
    summary = QuestionSummary(
        question="algo-05",
        depth=2,
        reason="Depth 2; not yet: “delta_t = r_t + gamma*V(s_{t+1}) - V(s_t)” (level 2).",
        covered=[Evidence(key_point=point.id, level=point.level, quote=typed)],
        missed=[kp.id for kp in question.key_points if kp.id != point.id],
        misconceptions=[],
        model_answer="The advantage is **A_t** = r_t + gamma*V(s_{t+1}) - V(s_t).",
        references=[],
    )
    html = MarkdownIt("commonmark").render(review_markdown(summary, question, "en"))
    for formula in ("gamma*lambda*A_{t+1}", "gamma*V(s_{t+1})"):
        assert formula in html
    assert html.count("<em>") == 1, "the reason's own italics, and no other"
    assert "<strong>A_t</strong>" in html, "the model answer's bold stays bold"
    follow_up = InterviewerTurn("You wrote “gamma*lambda*A_{t+1}”: why lambda?", "Follow-up")
    assert "<em>" not in MarkdownIt("commonmark").render(follow_up._turn_markdown(follow_up.raw))
