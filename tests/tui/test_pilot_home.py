"""Home driven with Textual's Pilot: the first screen, the plan its options make, history, quitting.

The interviewer is the real one (offline brain, LangGraph, SQLite checkpoints under tmp_path);
expected texts come from the question bank, never from the code under test.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta

from learner_records import attempt
from textual.widgets import DataTable, Select, Static, TextArea
from tui_helpers import (
    SIZE,
    interviewer_turns,
    leave,
    make_sessions,
    report_rows,
    screen_names,
    screen_text,
    settle,
    skip_to_review,
    start,
    wait_loaded,
    wait_until,
)

from agent.labels import labels
from agent.learner.drill import MASTERED
from agent.learner.profile import Profile, profile_path
from agent.learner.progress import progress_report
from agent.planning import PlanRequest, make_plan
from tui.screens.history import HistoryScreen
from tui.screens.home import HomeScreen, unfinished_line, unfinished_session
from tui.screens.interview import InterviewScreen
from tui.screens.report import ReportScreen
from tui.widgets.choice import Choice
from tui.widgets.side_panel import SidePanel


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


async def test_enter_starts_with_the_bank_prompt_of_the_first_planned_question(make_app, bank):
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        turns = interviewer_turns(screen)
        assert len(turns) == 1
        assert turns[0].raw == bank["algo-07"].prompt.en
        assert turns[0].label == "Question · Q1/2 · algo-07"
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
        assert first.label == f"Question · Q1/3 · {expected[0]}"


async def tab_to(pilot, choice_id: str) -> Choice:
    """Tab through Home until the dropdown `choice_id` has the focus."""
    choice = pilot.app.screen.query_one(f"#{choice_id}", Choice)
    for _ in range(5):
        if pilot.app.focused is choice:
            return choice
        await pilot.press("tab")
    raise AssertionError(f"Tab never reached #{choice_id}; the focus is on {pilot.app.focused!r}")


async def test_a_language_picked_by_keyboard_is_the_interview_s(make_app, bank):
    """Enter in the open list picks the highlighted option (it started an English interview); Enter
    starts only once no list is open, and the footer offers the start only then."""
    app = make_app(["infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        lang = await tab_to(pilot, "lang")
        await pilot.press("space", "down")
        await settle(pilot)
        assert lang.expanded
        assert "Start interview" not in screen_text(app).splitlines()[-1]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen) and not lang.expanded
        assert lang.value == "zh"
        assert "开始面试" in screen_text(app).splitlines()[-1], "Start interview, in the language just picked"
        await start(pilot)
        assert app.services.index.get("tui-0001").lang == "zh"
        assert interviewer_turns(app.screen)[0].raw == bank["infra-01"].prompt.zh


async def test_space_in_the_open_list_picks_the_highlighted_section(make_app, bank):
    app = make_app(request=PlanRequest(questions=3, section="both", seed=11))
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        section = await tab_to(pilot, "section")
        await pilot.press("down", "down", "space")  # open, highlight "algorithm", pick it
        await settle(pilot)
        assert (section.value, section.expanded) == ("algorithm", False)
        await start(pilot)
        plan = app.services.index.get("tui-0001").plan
        assert len(plan) == 3 and {bank[qid].section for qid in plan} == {"algorithm"}


async def test_a_list_left_open_is_closed_when_home_comes_back(make_app):
    """The interview can open over an open list (a command-line start once the interviewer loads)."""
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        length = await tab_to(pilot, "length")
        await pilot.press("space")
        await settle(pilot)
        assert length.expanded
        app.start_interview()
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the interview")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the first question")
        await settle(pilot)
        await leave(pilot)
        assert isinstance(app.screen, HomeScreen) and not length.expanded


async def test_chinese_session_asks_the_chinese_prompt(make_app, bank):
    app = make_app(["infra-01"], lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        assert interviewer_turns(app.screen)[0].raw == bank["infra-01"].prompt.zh


async def test_questions_named_on_the_command_line_start_at_once(make_app, bank):
    """`rl-interview interview --question algo-05 --questions 1` is an explicit request: no Home to
    confirm it on, the interview opens on that question once the interviewer is loaded."""
    app = make_app(["algo-05"], start_now=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the interview")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the first question")
        first = interviewer_turns(app.screen)[0]
        assert first.label.startswith("Question · Q1/1 · algo-05")
        assert screen_names(app) == ["Screen", "HomeScreen", "InterviewScreen"]


def test_home_counts_only_the_answers_the_candidate_typed(settings):
    """A hint, a repeat or "I don't know" asked for with a key is saved in the inbox too, but is no answer."""
    from agent.interview.sessions import SessionIndex

    index = SessionIndex(settings.sessions_db)
    index.create("s1", ["algo-07", "infra-01"], "en", "offline")
    for turn, action in enumerate(["answer", "hint", "answer", "repeat", "idk"]):
        index.save_answer("s1", turn, action, "PPO clips the ratio." if action == "answer" else "")
    assert "2 answers saved" in unfinished_line(*unfinished_session(settings.sessions_db), labels("en"))


def test_home_counts_one_question_in_the_singular_and_names_a_draft(settings):
    """A session with only a draft in it is offered (nothing typed is lost), and says so."""
    from agent.interview.sessions import SessionIndex

    index = SessionIndex(settings.sessions_db)
    index.create("s1", ["algo-05"], "en", "offline")
    assert unfinished_session(settings.sessions_db) is None, "nothing in it yet"
    index.save_draft("s1", 0, "GRPO drops the critic")
    assert ": 1 question (algo-05), 0 answers saved and a draft not yet sent." in unfinished_line(
        *unfinished_session(settings.sessions_db), labels("en")
    )


async def test_home_shows_the_topics_an_unfinished_session_scored(make_app, bank):
    """A session killed before its end has no report, but its closed questions are in the profile:
    Home's topics show them, not "No sessions yet"."""
    app = make_app(["algo-07", "infra-01"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await skip_to_review(pilot)  # algo-07 closes at depth 0
        await pilot.press("escape")
        # the first question, the interviewer's close of it, the second question
        await wait_until(pilot, lambda: len(interviewer_turns(app.screen)) == 3, "the second question")
        await settle(pilot)
    again = make_app()
    async with again.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert again.services.index.latest_unfinished().id == "tui-0001"
        topics = str(again.screen.query_one("#topics", Static).render())
        assert "No sessions yet" not in topics
        assert all(f"{topic} 0%" in topics for topic in bank["algo-07"].topics), topics


async def test_home_s_weak_topics_are_the_weakest_by_mastery_as_progress_ranks_them(
    make_app, settings, bank, notes_retriever
):
    """Home said "Weak: parallelism 2.0, exploration 2.0, trust-region 2.0" (the reports' mean depths)
    where Drill and `rl-interview progress` put grpo-variants weakest at 20% (mastery, which counts
    misconceptions and fades with age): Home ranks by mastery now, as they do."""
    answered = datetime.now(UTC) - timedelta(days=1)
    Profile(profile_path(settings)).record(
        [
            attempt("algo-05", answered, 2, wrong=["baseline-adds-bias", "grpo-uses-gae"]),
            attempt("infra-01", answered, 2, position=1),
            attempt("algo-07", answered, 4, [kp.id for kp in bank["algo-07"].key_points], position=2),
        ],
        bank,
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        topics = str(app.screen.query_one("#topics", Static).render())
        progress = progress_report(Profile(profile_path(settings)).history(), bank, datetime.now(UTC), notes_retriever)
    weak_line = next(line for line in topics.splitlines() if line.startswith("Weak:"))
    shown = [tuple(item.rsplit(" ", 1)) for item in weak_line.removeprefix("Weak: ").split(", ")]
    weakest = [t for t in progress.topics if t.mastery < MASTERED][:3]
    assert shown == [(t.topic, f"{round(t.mastery * 100)}%") for t in weakest]
    assert shown[0][0] == "advantage", "the topic whose answer carried two misconceptions"


async def test_r_with_nothing_to_resume_stays_home(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert any("No unfinished session" in n.message for n in app._notifications)


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
        assert [(r[0], r[2], r[3], r[4], r[5], r[6]) for r in rows] == [
            ("tui-0002", "interview", "en", "active", "2", "-"),
            ("tui-0001", "interview", "en", "finished", "1", "0.00"),
        ]
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", r[1]) for r in rows)
        text = screen_text(app)
        assert "tui-0002" in text and "tui-0001" in text

        # Enter on the finished one opens its report
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen), "the report")
        await wait_until(pilot, lambda: app.screen.report is not None, "the report's content")
        assert app.screen.session_id == "tui-0001"
        assert report_rows(app) == [["1", "algo-07", "0/4"]]
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


async def test_history_says_which_sessions_were_drills_and_in_which_language(make_app):
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        async for _ in app.services.interview("drill-zh").start(PlanRequest(ids=["algo-07"], drill=True), "zh", 1):
            pass
        async for _ in app.services.interview("talk-en").start(PlanRequest(ids=["infra-01"]), "en", 3):
            pass
        await pilot.press("h")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        await settle(pilot)
        table = app.screen.query_one("#sessions", DataTable)
        headings = [str(column.label) for column in table.columns.values()]
        shown = {row[0]: dict(zip(headings, row, strict=True)) for row in map(table.get_row_at, range(table.row_count))}
        assert {sid: (cells["kind"], cells["lang"]) for sid, cells in shown.items()} == {
            "drill-zh": ("drill", "zh"),
            "talk-en": ("interview", "en"),
        }


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
