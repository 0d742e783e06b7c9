"""The side panel names a depth with the same words as the review and the report."""

from textual.app import App, ComposeResult

from tui.screens.review import review_markdown
from tui.widgets.side_panel import SidePanel


class _Panel(App):
    def compose(self) -> ComposeResult:
        yield SidePanel()


async def test_the_panel_words_each_depth_as_the_review_does(bank):
    from agent.state import QuestionSummary

    question = bank["algo-07"]
    app = _Panel()
    async with app.run_test() as pilot:
        panel = app.query_one(SidePanel)
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
            heading = review_markdown(summary, question, "en").splitlines()[0]
            name = heading.split("(", 1)[1].rstrip(")")
            assert f"{depth}/4 {name}" in str(panel.render()), (depth, heading)
