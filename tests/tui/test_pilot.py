"""The interview room driven with Textual's Pilot: every screen, key and flow a candidate uses.

The interviewer is the real one (offline brain, LangGraph, SQLite checkpoints under tmp_path);
expected texts come from the question bank, never from the code under test.
"""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest
from textual.widgets import DataTable, Markdown, Select, Static, TextArea
from tui_helpers import (
    AgentEvents,
    answer,
    candidate_texts,
    confirm,
    interviewer_turns,
    leave,
    make_sessions,
    next_turn,
    notes,
    paste,
    probes,
    screen_names,
    screen_text,
    settle,
    start,
    type_answer,
    wait_loaded,
    wait_until,
)

import agent.interview.graph
from agent.planning import PlanRequest, make_plan
from tui.latex import latex_to_unicode
from tui.screens.confirm import ConfirmScreen
from tui.screens.history import HistoryScreen
from tui.screens.home import HomeScreen
from tui.screens.interview import InterviewScreen
from tui.screens.report import ReportScreen
from tui.screens.review import ReviewScreen
from tui.widgets.side_panel import SidePanel

SIZE = (120, 40)

# Answers for algo-07 (PPO clipping) that use the rubric's own cues.
CLIP_ANSWER = "PPO clips the probability ratio to 1 - epsilon and 1 + epsilon, because it keeps the update small."
TYPED_ANSWER = "It clips the probability ratio."
ZERO_GRAD_ANSWER = "Once the ratio passes 1+eps with a > 0 the gradient is zero, because the clipped term wins."


def first_paragraph(text: str) -> str:
    return latex_to_unicode(text.strip().split("\n\n")[0])


async def test_home_is_the_first_screen_and_the_loading_indicator_goes_away(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, HomeScreen)
        assert screen_names(app) == ["Screen", "HomeScreen"]
        await wait_loaded(pilot)
        assert app.screen.query_one("#loading").display is False
        text = screen_text(app)
        assert "Press Enter to start an interview" in text
        assert "No sessions yet" in text
        assert "loading the interviewer" not in text


async def test_home_says_why_the_interviewer_could_not_load_and_stays_usable(make_app, monkeypatch):
    import agent.app

    def broken(extra=()):
        raise ValueError("bank/algo-07.yaml, line 3: key_points: not a list")

    monkeypatch.setattr(agent.app, "load_bank", broken)
    app = make_app(bank=None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "could not load the interviewer" in screen_text(app), "the failure on Home")
        assert "bank/algo-07.yaml, line 3" in screen_text(app)
        assert not app.ready and isinstance(app.screen, HomeScreen)


async def test_enter_starts_with_the_bank_prompt_of_the_first_planned_question(make_app, bank):
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        turns = interviewer_turns(screen)
        assert len(turns) == 1
        assert turns[0].raw == bank["algo-07"].prompt.en
        assert turns[0].label == "Question · 1/2 · algo-07"
        side = screen.query_one(SidePanel)
        assert (side.number, side.of, side.question) == (1, 2, "algo-07")
        assert side.section == "algorithm"
        assert side.topics == ", ".join(bank["algo-07"].topics)
        assert side.depth is None and side.working is False
        assert app.focused is screen.query_one("#answer", TextArea)
        assert app.services.index.get("tui-0001").status == "active"
        assert "How does clipping work in PPO?" in screen_text(app)


async def test_home_options_decide_the_plan(make_app, bank):
    """No explicit ids: the plan follows Home's length and section selectors (seeded, so predictable)."""
    app = make_app(request=PlanRequest(questions=6, section="both", seed=11))
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        app.screen.query_one("#length", Select).value = 3
        app.screen.query_one("#section", Select).value = "infrastructure"
        await pilot.pause()
        await start(pilot)
        expected = make_plan(bank, PlanRequest(questions=3, section="infrastructure", seed=11))
        assert app.services.index.get("tui-0001").plan == expected
        first = interviewer_turns(app.screen)[0]
        assert first.raw == bank[expected[0]].prompt.en
        assert first.label == f"Question · 1/3 · {expected[0]}"


async def test_chinese_session_asks_the_chinese_prompt(make_app, bank):
    app = make_app(["infra-01"], lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        assert interviewer_turns(app.screen)[0].raw == bank["infra-01"].prompt.zh


@pytest.mark.slow  # typed key by key: about 5 s
async def test_an_answer_shows_the_candidate_turn_then_a_bank_probe(make_app, bank):
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        screen = app.screen
        await type_answer(pilot, TYPED_ANSWER)
        await next_turn(pilot, ("ctrl+s",))
        assert candidate_texts(screen) == [TYPED_ANSWER]
        assert screen.query_one("#answer", TextArea).text == ""
        follow_up = interviewer_turns(screen)[-1]
        assert follow_up.label == "Follow-up · 1/2 · algo-07"
        assert any(probe in follow_up.raw for probe in probes(bank["algo-07"])), follow_up.raw
        assert follow_up.raw != bank["algo-07"].prompt.en
        side = screen.query_one(SidePanel)
        assert side.follow_ups == 1
        assert side.depth is not None and side.depth >= 1
        # the candidate's turn is drawn between the question and the follow-up
        text = screen_text(app)
        assert text.index("How does clipping work") < text.index(TYPED_ANSWER) < text.index("Follow-up")


async def test_side_panel_shows_the_thinking_status_in_full(make_app, bank):
    """While the interviewer works, the panel's last line says so. algo-03's topics fit on one line of
    the panel and algo-07's wrap to two, so the panel must grow when algo-07 comes up."""
    assert len(", ".join(bank["algo-03"].topics)) <= 25 < len(", ".join(bank["algo-07"].topics))
    app = make_app(["algo-03", "algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        interview = app.screen
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is interview and interview.session.waiting.question == "algo-07"
        side = interview.query_one(SidePanel)
        assert side.topics == ", ".join(bank["algo-07"].topics)
        side.working = True  # as run_agent does while the interviewer thinks
        await pilot.pause()
        await pilot.pause()
        rows = screen_text(app).splitlines()[side.region.y : side.region.bottom]
        panel = "\n".join(row[side.region.x : side.region.right] for row in rows)
        assert "grpo-variants" in panel
        assert "interviewer is thinking" in panel, f"the status line is cut off; the panel shows:\n{panel}"


async def test_ctrl_s_with_an_empty_answer_sends_nothing(make_app):
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await pilot.press("space", "enter", "ctrl+s")
        await settle(pilot)
        assert candidate_texts(app.screen) == []
        assert len(interviewer_turns(app.screen)) == 1
        assert app.screen.session.waiting.turn == 0, "the interviewer still waits for the first answer"
        assert any("Write an answer first" in n.message for n in app._notifications)


async def test_agent_events_arrive_in_order(make_app):
    """ask, then (after the answer) the assessment, then the follow-up; the skip closes the question."""
    hook = AgentEvents()
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await start(pilot)
        assert hook.types == ["ask"]
        await answer(pilot, CLIP_ANSWER)
        assert hook.types == ["ask", "assessment", "follow_up"]
        assert hook.events[1].question == "algo-07" and hook.events[1].depth >= 1
        await next_turn(pilot, ("f4",))
        await wait_until(pilot, lambda: "ask" in hook.types[3:], "the next question")
        await settle(pilot)
        assert hook.types == ["ask", "assessment", "follow_up", "assessment", "question_done", "ask"]
        assert hook.events[-1].question == "infra-01"
        assert [e.turn for e in hook.events if e.type in ("ask", "follow_up")] == [0, 1, 2]


async def test_two_answers_then_skip_shows_the_review_with_depth_and_model_answer(make_app, bank):
    hook = AgentEvents()
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await start(pilot)
        interview = app.screen
        await answer(pilot, CLIP_ANSWER)
        assert interviewer_turns(interview)[-1].label.startswith("Follow-up")
        await answer(pilot, ZERO_GRAD_ANSWER)
        assert interviewer_turns(interview)[-1].label.startswith("Follow-up")
        assert candidate_texts(interview) == [CLIP_ANSWER, ZERO_GRAD_ANSWER]
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await wait_until(pilot, lambda: app.screen.query(Markdown), "the review's content")
        await settle(pilot)
        review = app.screen
        assert review.question_id == "algo-07"
        depth = hook.last("assessment").depth
        assert depth >= 1, "the answers showed level-1 and level-2 key points"
        source = review.query(Markdown).first().source
        assert source.startswith(f"# algo-07: depth {depth}/4")
        assert "## Model answer" in source
        assert first_paragraph(bank["algo-07"].model_answer) in source
        assert "PPO clips the probability ratio" in source, "the candidate's own words are quoted"
        assert f"algo-07: depth {depth}/4" in screen_text(app)
        # Enter closes the review; the interview goes on with the next planned question
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is interview
        assert interviewer_turns(interview)[-1].raw == bank["infra-01"].prompt.en
        assert interviewer_turns(interview)[-1].label == "Question · 2/2 · infra-01"
        assert interview.query_one(SidePanel).depth is None
        assert "(skip)" in notes(interview)


async def test_review_opens_even_if_question_done_arrives_before_the_checkpoint(make_app, monkeypatch):
    """The close node emits question_done before its summary is checkpointed (agent/interview/runner.py says so);
    a slow moment between the two must not crash the review (nor the app)."""
    emit = agent.interview.graph._emit

    def slow_after_question_done(runtime, event) -> None:
        emit(runtime, event)
        if event["type"] == "question_done":
            time.sleep(0.5)  # the node runs in a worker thread: the UI goes on meanwhile

    monkeypatch.setattr(agent.interview.graph, "_emit", slow_after_question_done)
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen) or not app.is_running, "the review")
        await wait_until(pilot, lambda: app.screen.query(Markdown) or not app.is_running, "the review's content")
        await settle(pilot)
        assert app.is_running and app._exception is None, f"the app crashed: {app._exception!r}"
        assert app.screen.query(Markdown).first().source.startswith("# algo-07: depth 0/4")


async def test_f2_hint_shows_a_hint_turn_built_from_the_rubric(make_app, bank):
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        screen = app.screen
        await next_turn(pilot, ("f2",))
        hint = interviewer_turns(screen)[-1]
        assert hint.label == "Hint · 1/2 · algo-07"
        first_rungs = [kp.hints[0].en for kp in bank["algo-07"].key_points if kp.hints]
        assert any(rung in hint.raw for rung in first_rungs), hint.raw
        assert notes(screen) == ["(hint)"]
        assert candidate_texts(screen) == []
        assert "Hint · 1/2 · algo-07" in screen_text(app)


async def test_f3_i_dont_know_gets_a_hint_then_moves_on(make_app, bank):
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        screen = app.screen
        await next_turn(pilot, ("f3",))
        assert notes(screen) == ["(idk)"]
        assert interviewer_turns(screen)[-1].label.startswith("Hint")
        # still stuck after the hint: the interviewer closes the question
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await wait_until(pilot, lambda: app.screen.query(Markdown), "the review's content")
        assert app.screen.query(Markdown).first().source.startswith("# algo-07: depth 0/4")


async def test_f5_repeat_asks_the_same_question_again(make_app, bank):
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        screen = app.screen
        await next_turn(pilot, ("f5",))
        turns = interviewer_turns(screen)
        assert [t.raw for t in turns] == [bank["algo-07"].prompt.en] * 2
        assert [t.label for t in turns] == ["Question · 1/2 · algo-07"] * 2
        assert notes(screen) == ["(repeat)"]
        assert screen.query_one(SidePanel).follow_ups == 0
        # a repeated question is answered like the original
        await answer(pilot, CLIP_ANSWER)
        assert interviewer_turns(screen)[-1].label == "Follow-up · 1/2 · algo-07"


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
        # where the candidate was: the question, their answer, then the follow-up still waiting
        assert [t.label for t in turns] == ["Question · algo-07", "Follow-up · 1/2 · algo-07"]
        assert turns[-1].raw == pending
        assert candidate_texts(resumed) == [CLIP_ANSWER]
        assert app.focused is resumed.query_one("#answer", TextArea)
        # and the session goes on from there
        await answer(pilot, ZERO_GRAD_ANSWER)
        assert candidate_texts(resumed) == [CLIP_ANSWER, ZERO_GRAD_ANSWER]
        assert interviewer_turns(resumed)[-1].label == "Follow-up · 1/2 · algo-07"
        assert len(app.services.index.list()) == 1


async def test_r_with_nothing_to_resume_stays_home(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert any("No unfinished session" in n.message for n in app._notifications)


async def test_a_report_that_cannot_be_built_is_told_to_the_user(make_app, monkeypatch):
    """A failed worker is never lost: the report screen says why it is empty and stays usable."""
    import tui.screens.report

    def broken(state, bank):
        raise RuntimeError("the session file is unreadable")

    monkeypatch.setattr(tui.screens.report, "build_report", broken)
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.ready, "the services")
        app.push_screen(ReportScreen("tui-0001"))
        await wait_until(
            pilot,
            lambda: any("The report could not be built" in n.message for n in app._notifications),
            "the report's failure, told",
        )
        message = next(n.message for n in app._notifications if "The report could not be built" in n.message)
        assert "RuntimeError: the session file is unreadable" in message
        assert isinstance(app.screen, ReportScreen) and app.screen.report is None
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)


async def test_finishing_every_question_shows_the_report_and_exports_it(make_app, bank, home):
    hook = AgentEvents()
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await pilot.press("f4")
        # the last question's review comes first; closing it shows the report beneath
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the last question's review")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen), "the report")
        await wait_until(pilot, lambda: app.screen.report is not None, "the report's content")
        await settle(pilot)
        report = app.screen
        depth = hook.last("assessment").depth
        assert report.session_id == "tui-0001"
        assert app.services.index.get("tui-0001").status == "finished"
        table = report.query_one("#questions", DataTable)
        assert table.row_count == 1
        row = table.get_row_at(0)
        assert row[:3] == ["1", "algo-07", f"{depth}/4"]
        title = str(report.query_one("#report-title", Static).render())
        assert "finished" in title and f"average depth {depth:.2f}" in title
        bars = str(report.query_one("#bars", Static).render())
        for topic in bank["algo-07"].topics:
            assert topic in bars

        await pilot.press("m")
        await pilot.press("j")
        await settle(pilot)
        markdown = (home / "reports" / "tui-0001.md").read_text(encoding="utf-8")
        assert markdown.startswith("# Interview report tui-0001")
        assert "Status: finished" in markdown
        assert f"| 1 | algo-07 | {depth} |" in markdown
        data = json.loads((home / "reports" / "tui-0001.json").read_text(encoding="utf-8"))
        assert data["session_id"] == "tui-0001" and data["status"] == "finished"
        assert [q["question"] for q in data["questions"]] == ["algo-07"]
        assert data["transcript"][0]["answer"] == CLIP_ANSWER

        # Escape goes back Home, which now summarises the exported report's topics
        await pilot.press("escape")
        await settle(pilot)
        assert screen_names(app) == ["Screen", "HomeScreen"]
        topics = str(app.screen.query_one("#topics", Static).render())
        assert "No sessions yet" not in topics
        assert "ppo" in topics


async def test_home_summarises_a_finished_session_without_a_manual_export(make_app):
    """Home promises "your strong and weak topics will show here" once there are sessions."""
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await pilot.press("f4")
        # the last question's review comes first; closing it shows the report beneath
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the last question's review")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen), "the report")
        await wait_until(pilot, lambda: app.screen.report is not None, "the report's content")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        topics = str(app.screen.query_one("#topics", Static).render())
        assert "No sessions yet" not in topics, "a finished session is not reflected on Home"


async def test_markdown_export_of_a_chinese_session_is_in_chinese(make_app, bank, home):
    """`rl-interview report` writes the session's language; the TUI's export must match it."""
    app = make_app(["infra-01"], lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await pilot.press("f4")
        # the last question's review comes first; closing it shows the report beneath
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the last question's review")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen), "the report")
        await wait_until(pilot, lambda: app.screen.report is not None, "the report's content")
        await pilot.press("m")
        await settle(pilot)
    markdown = (home / "reports" / "tui-0001.md").read_text(encoding="utf-8")
    assert bank["infra-01"].prompt.zh in markdown, "the export shows the English prompt of a Chinese session"


async def test_history_lists_sessions_and_opens_them(make_app, bank):
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await make_sessions(app.services)
        await pilot.press("h")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        await settle(pilot)
        table = app.screen.query_one("#sessions", DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        assert [(r[0], r[2], r[3], r[4]) for r in rows] == [
            ("tui-0002", "active", "2", "-"),
            ("tui-0001", "finished", "1", "0.00"),
        ]
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", r[1]) for r in rows)
        text = screen_text(app)
        assert "tui-0002" in text and "tui-0001" in text

        # Enter on the finished one opens its report
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen), "the report")
        await wait_until(pilot, lambda: app.screen.report is not None, "the report's content")
        assert app.screen.session_id == "tui-0001"
        assert app.screen.query_one("#questions", DataTable).get_row_at(0)[:3] == ["1", "algo-07", "0/4"]
        await pilot.press("escape")
        await settle(pilot)
        assert screen_names(app) == ["Screen", "HomeScreen"]

        # Enter on the unfinished one resumes it at its pending question
        await pilot.press("h")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        await settle(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the resumed interview")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the pending question")
        assert app.screen.session.session_id == "tui-0002"
        assert interviewer_turns(app.screen)[0].raw == bank["infra-01"].prompt.en
        assert screen_names(app) == ["Screen", "HomeScreen", "InterviewScreen"]


async def test_escape_on_history_goes_home(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("h")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        await settle(pilot)
        assert app.screen.query_one("#sessions", DataTable).row_count == 0
        await pilot.press("enter")  # nothing to open: stays
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)


async def test_ctrl_q_on_home_quits(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("ctrl+q")
        for _ in range(100):
            if not app.is_running:
                break
            await asyncio.sleep(0.02)
        assert not app.is_running, "Ctrl+Q on Home should exit the app"
        assert app.return_code == 0


@pytest.mark.slow
async def test_a_100_kb_paste_is_sent_whole_without_a_crash(make_app, home):
    paragraph = (
        "PPO clips the probability ratio to 1 - epsilon and 1 + epsilon, so one update stays small. "
        "Without clipping the surrogate is unbounded and multiple epochs push the ratio far from 1.\n"
    )
    pasted = (paragraph * (100_000 // len(paragraph) + 1))[:100_000]
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        screen = app.screen
        await paste(pilot, pasted)
        assert len(screen.query_one("#answer", TextArea).text) == len(pasted)
        await next_turn(pilot, ("ctrl+s",))
        assert app.is_running and app.screen is screen
        assert [len(t) for t in candidate_texts(screen)] == [len(pasted)]
        assert len(interviewer_turns(screen)) == 2
        state = await screen.session.state()
        assert state["turns"][0].answer == pasted, "the whole answer is saved, even past the assessment limit"
        await wait_until(pilot, lambda: screen.query_one(SidePanel).working is False, "the interviewer to be idle")


async def test_ansi_escapes_in_an_answer_are_not_shown(make_app):
    raw = "\x1b[31mPPO clips\x1b[0m the \x1b]0;owned\x07probability ratio\x1b[2J to a band\x1b[?25l."
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        screen = app.screen
        await paste(pilot, raw)
        await next_turn(pilot, ("ctrl+s",))
        shown = candidate_texts(screen)
        assert len(shown) == 1
        assert "\x1b" not in shown[0] and "\x07" not in shown[0]
        assert shown[0] == "PPO clips the probability ratio to a band."
        assert "\x1b" not in screen_text(app)
        assert "PPO clips the probability ratio to a band." in screen_text(app)
        assert app.is_running


async def test_questions_named_on_the_command_line_start_at_once(make_app, bank):
    """`rl-interview interview --question algo-05 --questions 1` is an explicit request: no Home to
    confirm it on, the interview opens on that question once the interviewer is loaded."""
    app = make_app(["algo-05"], start_now=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the interview")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the first question")
        first = interviewer_turns(app.screen)[0]
        assert first.label.startswith("Question · 1/1 · algo-05")
        assert screen_names(app) == ["Screen", "HomeScreen", "InterviewScreen"]


async def test_a_hung_provider_costs_a_turn_no_more_than_its_deadline_and_the_offline_score_is_marked(make_app):
    """Issue 15: a model server that accepts the connection and never answers. The turn completes
    offline within the turn's deadline plus 2 s, and the candidate is told so (and why) beside the
    depth and in the question's review."""
    from agent.brains.llm.brain import LLMBrain
    from agent.brains.llm.client import litellm_module
    from common.settings import LLMSettings
    from evals.scripted_provider import Hanging

    await litellm_module()  # the import is not the provider's delay
    hung = Hanging()
    deadline = 3.0
    brain = LLMBrain(
        LLMSettings(
            model="openai/test",
            api_base=hung.url,
            api_key="sk-test",
            timeout_s=60.0,
            retries=2,
            turn_deadline_s=deadline,
        )
    )
    # The same turn on the offline brain, timed on this machine as it is now: on a busy machine an
    # offline turn in the TUI alone can take seconds, and the bound must hold there too.
    async with make_app(["algo-07"]).run_test(size=SIZE) as pilot:
        await start(pilot)
        started = time.monotonic()
        await answer(pilot, CLIP_ANSWER)
        offline = time.monotonic() - started
    try:
        app = make_app(["algo-07"], brain=brain)
        async with app.run_test(size=SIZE) as pilot:
            await start(pilot)
            started = time.monotonic()
            await answer(pilot, CLIP_ANSWER)
            took = time.monotonic() - started
            panel = str(app.screen.query_one(SidePanel).render())
            assert "Scored offline" in panel and f"no reply within the turn's {deadline:g} s" in panel
            # Not the provider's 60 s x 3 tries: the deadline, then an offline turn (2 s of slack).
            assert took < deadline + offline + 2, f"the turn took {took:.1f} s (offline alone: {offline:.1f} s)"
            await pilot.press("f4")
            await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
            await wait_until(pilot, lambda: app.screen.query(Markdown), "the review's content")
            assert "**Scored offline** for" in app.screen.query(Markdown).first().source
    finally:
        hung.close()


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
