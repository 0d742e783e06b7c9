"""The conversation widget: an interviewer turn grows token by token as a model streams it."""

from textual.app import App, ComposeResult

from tui.widgets.transcript import InterviewerTurn, Transcript


class _OneTranscript(App):
    def compose(self) -> ComposeResult:
        yield Transcript()


async def test_a_streamed_turn_grows_with_each_token():
    app = _OneTranscript()
    async with app.run_test() as pilot:
        turn = app.query_one(Transcript).add_interviewer("", "Interviewer")
        await pilot.pause()
        for token in ("Why does ", "the $\\min$ ", "make it pessimistic?"):
            await turn.append(token)
        await pilot.pause()
        assert turn.raw == "Why does the $\\min$ make it pessimistic?"
        shown = "\n".join(str(block.render()) for block in turn.query("*"))
        assert "pessimistic" in shown and "min" in shown
        assert app.query(InterviewerTurn).first() is turn
