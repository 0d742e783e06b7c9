"""Leaving and coming back, driven with Textual's Pilot: the confirm dialog, resuming where the
candidate stopped, the unsent draft, and a session open in two windows.

The interviewer is the real one (offline brain, LangGraph, SQLite checkpoints under tmp_path);
expected texts come from the question bank, never from the code under test.
"""

from __future__ import annotations

import pytest
from textual.widgets import Static, TextArea
from tui_helpers import (
    CLIP_ANSWER,
    SIZE,
    ZERO_GRAD_ANSWER,
    answer,
    candidate_texts,
    confirm,
    interviewer_turns,
    leave,
    next_turn,
    notes,
    paste,
    probes,
    screen_names,
    screen_text,
    settle,
    start,
    wait_loaded,
    wait_until,
)

from tui.screens.confirm import ConfirmScreen
from tui.screens.home import HomeScreen
from tui.screens.interview import InterviewScreen
from tui.widgets.side_panel import SidePanel


async def test_escape_in_the_answer_box_asks_to_confirm_leaving(make_app):
    """The footer offers "Esc Leave", and the answer box has the focus after every question."""
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        assert app.focused is app.screen.query_one("#answer", TextArea)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen), (
            f"one Escape should ask to leave; focus went to {app.focused!r} instead"
        )


async def test_escape_asks_to_confirm_and_no_keeps_the_interview(make_app, bank):
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        interview = app.screen
        app.screen.query_one("#transcript").focus()  # Escape in the answer box is test_escape_in_the_answer_box_...
        await confirm(pilot, "escape", "n", "Leave the interview?")
        assert app.screen is interview
        assert interview.session.waiting.text == bank["algo-07"].prompt.en
        assert app.services.index.get("tui-0001").status == "active"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_the_confirm_dialog_shows_its_whole_question(make_app, size):
    app = make_app(["algo-07"])
    async with app.run_test(size=size) as pilot:
        await start(pilot)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirm dialog")
        await settle(pilot)
        dialog = app.screen.query_one("#dialog").region
        rows = screen_text(app).splitlines()[dialog.y : dialog.bottom]
        shown = " ".join(" ".join(row[dialog.x : dialog.right].strip("█▀▄ ") for row in rows).split())
        assert app.screen.question in shown, f"the dialog shows: {shown!r}"


async def test_leaving_keeps_the_session_resumable_and_r_resumes_the_pending_question(make_app, bank):
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        pending = interviewer_turns(app.screen)[-1].raw
        assert any(probe in pending for probe in probes(bank["algo-07"]))
        depth = app.screen.query_one(SidePanel).depth
        assert depth is not None
        await leave(pilot)  # the Quit key asks the same question as Escape on the interview
        assert isinstance(app.screen, HomeScreen)
        assert screen_names(app) == ["Screen", "HomeScreen"]
        row = app.services.index.get("tui-0001")
        assert row.status == "active"
        assert app.services.index.latest_unfinished().id == "tui-0001"
        waiting = app.screen.query_one("#unfinished", Static)
        assert waiting.display, "Home names the unfinished session"
        shown = str(waiting.render())
        assert "tui-0001" in shown and "1 answer saved" in shown and "R" in shown

        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the resumed interview")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the pending question")
        await settle(pilot)
        resumed = app.screen
        assert resumed.session.session_id == "tui-0001"
        turns = interviewer_turns(resumed)
        # where the candidate was: the question, their answer, then the follow-up still waiting,
        # numbered as they were, and the depth the panel had
        assert [t.label for t in turns] == ["Question · Q1/2 · algo-07", "Follow-up · Q1/2 · algo-07"]
        assert resumed.query_one(SidePanel).depth == depth
        assert turns[-1].raw == pending
        assert candidate_texts(resumed) == [CLIP_ANSWER]
        assert app.focused is resumed.query_one("#answer", TextArea)
        # and the session goes on from there
        await answer(pilot, ZERO_GRAD_ANSWER)
        assert candidate_texts(resumed) == [CLIP_ANSWER, ZERO_GRAD_ANSWER]
        assert interviewer_turns(resumed)[-1].label == "Follow-up · Q1/2 · algo-07"
        assert len(app.services.index.list()) == 1


DRAFT = (
    "Half an answer: the ratio is clipped so that one batch cannot move the policy far, and the min "
    "then picks the more pessimistic of the two terms, which I was about to"
)


async def test_an_answer_being_written_survives_leaving_and_comes_back_on_resume(make_app, settings):
    """Issue 15: the editor's text is kept (sessions.sqlite) once typing pauses and when leaving;
    resumed, it is back in the editor, marked as a draft; sending it clears the draft."""
    from agent.interview.sessions import SessionIndex

    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await paste(pilot, DRAFT)
        await wait_until(pilot, lambda: app.screen.session.draft() == DRAFT, "the draft to be kept after a pause")
        await leave(pilot)
    index = SessionIndex(settings.sessions_db)
    turn = max(t for t in range(10) if index.draft("tui-0001", t))
    assert index.draft("tui-0001", turn) == DRAFT

    again = make_app(["algo-07", "infra-01"])
    async with again.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(again.screen, InterviewScreen), "the resumed interview")
        await wait_until(pilot, lambda: again.screen.query_one("#answer", TextArea).text, "the draft in the editor")
        await settle(pilot)
        assert again.screen.query_one("#answer", TextArea).text == DRAFT
        assert any("unsent answer from before" in n for n in notes(again.screen))
        await next_turn(pilot, ("ctrl+s",))
        assert candidate_texts(again.screen)[-1] == DRAFT
        assert index.draft("tui-0001", turn) is None


async def test_a_session_left_before_anything_was_sent_is_empty_and_home_offers_the_older_one(make_app):
    """The user trial: an interview left with 0 answers stayed `active` and Home offered it over an
    older one with answers. Now it is listed as empty; named in History, it opens again."""
    from textual.widgets import DataTable

    from tui.screens.history import HistoryScreen

    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await leave(pilot)
        await start(pilot)  # tui-0002: left at its first question, nothing typed
        await leave(pilot)
        assert any("Nothing was sent in session tui-0002" in n.message for n in app._notifications)
        assert [app.services.index.get(s).status for s in ("tui-0001", "tui-0002")] == ["active", "empty"]
        offered = str(app.screen.query_one("#unfinished", Static).render())
        assert "tui-0001" in offered and "tui-0002" not in offered

        await pilot.press("h")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        await settle(pilot)
        table = app.screen.query_one("#sessions", DataTable)
        assert [(row[0], row[4]) for row in map(table.get_row_at, range(table.row_count))] == [
            ("tui-0002", "empty"),
            ("tui-0001", "active"),
        ]
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the empty session, opened again")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "its first question")
        assert app.screen.session.session_id == "tui-0002"
        assert interviewer_turns(app.screen)[0].label == "Question · Q1/2 · algo-07"
        assert app.services.index.get("tui-0002").status == "active"


async def test_a_session_left_with_only_a_draft_in_it_is_offered_on_home(make_app):
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await paste(pilot, DRAFT)
        await leave(pilot)  # keeps the draft first
        assert app.services.index.get("tui-0001").status == "active"
        offered = str(app.screen.query_one("#unfinished", Static).render())
        assert "tui-0001" in offered and "0 answers saved and a draft not yet sent" in offered
        assert any("Session tui-0001 saved" in n.message for n in app._notifications)


def sent_answers(app, session_id: str = "tui-0001") -> list[str]:
    saved = (app.services.index.saved_answer(session_id, turn) for turn in range(20))
    return [text for action, text in filter(None, saved) if action == "answer"]


async def test_resuming_a_session_open_elsewhere_offers_to_take_it_over(make_app):
    """Issue 15: a second window resuming a session says it is open elsewhere and offers to take
    it over; no goes back Home, yes drives it here from where it stopped."""
    import agent.interview.runner

    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await leave(pilot)
        app.services.index.take("tui-0001", "another-window")  # a live process (this one's pid) holds it

        await confirm(pilot, "r", "n", "open in another process")
        assert "Take it over here?" not in screen_text(app)
        assert isinstance(app.screen, HomeScreen)
        assert not app.services.index.holds("tui-0001", agent.interview.runner.PROCESS_OWNER)

        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the take-over question")
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the resumed interview")
        await wait_until(pilot, lambda: len(interviewer_turns(app.screen)) == 2, "the pending follow-up")
        await settle(pilot)
        assert candidate_texts(app.screen) == [CLIP_ANSWER]
        await answer(pilot, ZERO_GRAD_ANSWER)
        assert app.services.index.holds("tui-0001", agent.interview.runner.PROCESS_OWNER)
    assert sent_answers(app) == [CLIP_ANSWER, ZERO_GRAD_ANSWER]


async def test_a_window_whose_session_was_taken_over_keeps_its_answer_and_can_take_it_back(make_app):
    """Issue 15: the first window learns at its next answer that another took the session over; the
    answer is not sent (it could overwrite the other's turn) but stays in the editor, and taking the
    session back sends it from here."""
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        app.services.index.take("tui-0001", "another-window", take_over=True)
        first = app.screen
        await paste(pilot, ZERO_GRAD_ANSWER)
        await confirm(pilot, "ctrl+s", "n", "was taken over by another process")
        assert app.screen is first
        assert first.query_one("#answer", TextArea).text == ZERO_GRAD_ANSWER
        assert any("Not sent" in n for n in notes(first))
        assert sent_answers(app) == [CLIP_ANSWER]

        await pilot.press("ctrl+s")  # sending again asks again
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the take-over question")
        await pilot.press("y")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, InterviewScreen) and app.screen is not first,
            "the session reopened here",
        )
        await wait_until(pilot, lambda: len(interviewer_turns(app.screen)) == 2, "the pending follow-up")
        await settle(pilot)
        assert app.screen.query_one("#answer", TextArea).text == ZERO_GRAD_ANSWER
        await next_turn(pilot, ("ctrl+s",))
    assert sent_answers(app) == [CLIP_ANSWER, ZERO_GRAD_ANSWER]
