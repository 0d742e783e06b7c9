"""The side panel names a depth with the same words as the review and the report, in the session's
language."""

import pytest
from textual.app import App, ComposeResult

from tui.screens.review import review_markdown
from tui.widgets.side_panel import SidePanel


class _Panel(App):
    def compose(self) -> ComposeResult:
        yield SidePanel()


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_panel_words_each_depth_as_the_review_does(bank, lang):
    from agent.state import QuestionSummary

    question = bank["algo-07"]
    app = _Panel()
    async with app.run_test() as pilot:
        panel = app.query_one(SidePanel)
        panel.lang = lang
        for depth in range(5):
            panel.depth = depth
            await pilot.pause()
            summary = QuestionSummary(
                question=question.id,
                depth=depth,
                reason="r",
                covered=[],
                missed=[],
                misconceptions=[],
                model_answer="",
                references=[],
            )
            heading = review_markdown(summary, question, lang).splitlines()[0]
            name = heading.replace("（", "(").split("(", 1)[1].rstrip(")）")
            assert f"{depth}/4 {name}" in str(panel.render()), (depth, heading)
