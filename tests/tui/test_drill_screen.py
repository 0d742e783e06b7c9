"""The Drill screen: reached from Home with `d`, it lists the queue (due first) and starts a short
drill in the interview room that opens on last time's missed key point."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from learner_records import attempt
from textual.widgets import DataTable, Static
from tui_helpers import (
    CLIP_ANSWER,
    AgentEvents,
    answer,
    finish_to_report,
    interviewer_turns,
    notes,
    screen_names,
    settle,
    skip_to_review,
    wait_loaded,
    wait_until,
)

from agent.learner.profile import Profile, profile_path
from tui.screens.drill import DrillScreen
from tui.screens.interview import InterviewScreen
from tui.widgets.mastery_chart import MasteryChart

SIZE = (120, 40)
ANSWERED = datetime(2026, 12, 1, tzinfo=UTC)


def seed_profile(settings, bank) -> None:
    """algo-07 answered with nothing three days before the drill; infra-01 answered perfectly."""
    everything = [kp.id for kp in bank["infra-01"].key_points]
    Profile(profile_path(settings)).record(
        [
            attempt("algo-07", ANSWERED, 0, session="earlier"),
            attempt("infra-01", ANSWERED, 4, everything, session="earlier", position=1),
        ],
        bank,
    )


async def test_d_on_home_lists_the_queue_and_starts_a_drill_on_the_gap(make_app, settings, bank, monkeypatch):
    seed_profile(settings, bank)
    monkeypatch.setenv("RL_INTERVIEW_NOW", (ANSWERED + timedelta(days=3)).isoformat())
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_drill(pilot, app)
        table = app.screen.query_one(DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        opener = min(bank["algo-07"].key_points, key=lambda kp: kp.level)
        assert rows[0][1:3] == ["algo-07", "due"]
        part = bank["algo-07"].part(opener.part)
        assert rows[0][3] == part.en, "what it opens on, in words: not its id, nor the answer (its statement)"
        assert "infra-01" not in [row[1] for row in rows], "mastered and not due"
        chart = str(app.screen.query_one(MasteryChart).render())
        assert "ppo" in chart and "memory" in chart and "Trend" in chart

        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the drill to start")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the first question")
        await settle(pilot)
        assert screen_names(app)[-2:] == ["DrillScreen", "InterviewScreen"]
        first = interviewer_turns(app.screen)[0]
        assert first.raw == opener.probe.en
        assert first.label == "Question · Q1/3 · algo-07"
        state = await app.screen.session.state()
        assert state["max_follow_ups"] == 1
        assert state["request"].openers == {"algo-07": opener.id}
        # after the first answer, what was not shown last time (as the plain drill tells it)
        assert not [n for n in notes(app.screen) if n.startswith("Last time")]
        await answer(pilot, "I am not sure, something about the ratio.")
        told = [n for n in notes(app.screen) if n.startswith("Last time")]
        assert len(told) == 1
        heading, *parts = told[0].splitlines()
        assert heading == "Last time you had not shown, and have not yet:"
        # none was shown: every part, with its key points counted, and never a statement (the answer
        # to the follow-up that comes next)
        assert parts == [f"  • {p.en}: {gap_count(bank['algo-07'], p.id)}" for p in bank["algo-07"].parts]
        assert parts[0] == "  • How clipping works in PPO: 3 key points"
        assert not any(kp.statement[:30] in told[0] for kp in bank["algo-07"].key_points)


def gap_count(question, part_id: str, shown=()) -> str:
    """How many of a part's key points are still missing, as the note counts them ("3 key points");
    "" when none is (the note then leaves the part out)."""
    count = sum(1 for kp in question.points_of(part_id) if kp.id not in shown)
    return f"{count} key point{'s' * (count != 1)}" if count else ""


async def open_drill(pilot, app) -> None:
    """From Home, `d`: the Drill screen is up."""
    await wait_loaded(pilot)
    await pilot.press("d")
    await wait_until(pilot, lambda: isinstance(app.screen, DrillScreen), "the Drill screen")
    await settle(pilot)


async def drill_algo_07(pilot, app) -> None:
    """From Home, `d`, and Enter on algo-07 (first in the queue): its opener is on screen."""
    await open_drill(pilot, app)
    await pilot.press("enter")
    await wait_until(pilot, lambda: interviewer_turns(app.screen), "the drill's opener")
    await settle(pilot)


async def test_the_note_leaves_out_what_the_first_answer_just_showed(make_app, settings, bank, monkeypatch):
    seed_profile(settings, bank)
    monkeypatch.setenv("RL_INTERVIEW_NOW", (ANSWERED + timedelta(days=3)).isoformat())
    hook = AgentEvents()
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await drill_algo_07(pilot, app)
        await answer(pilot, CLIP_ANSWER)
        shown = hook.last("assessment").covered
        told = next(n for n in notes(app.screen) if n.startswith("Last time"))
    assert shown, "the answer shows a key point"
    question = bank["algo-07"]
    told_parts = told.splitlines()[1:]
    expected = [(p.en, gap_count(question, p.id, shown)) for p in question.parts]
    assert told_parts == [f"  • {part}: {count}" for part, count in expected if count]
    assert any(gap_count(question, p.id, shown) != gap_count(question, p.id) for p in question.parts)


async def test_a_chinese_drill_tells_the_gap_in_chinese(make_app, settings, bank, monkeypatch):
    seed_profile(settings, bank)
    monkeypatch.setenv("RL_INTERVIEW_NOW", (ANSWERED + timedelta(days=3)).isoformat())
    app = make_app(lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await drill_algo_07(pilot, app)
        await answer(pilot, "我不太确定。")
        told = next(n for n in notes(app.screen) if n.startswith("上次"))
    opener = min(bank["algo-07"].key_points, key=lambda kp: kp.level)
    assert told.splitlines()[0] == "上次没答到、这次还没答到的："
    assert told.splitlines()[1] == f"  • {bank['algo-07'].part(opener.part).zh}：3 个要点"


async def test_the_drill_command_opens_the_drill_screen_on_its_topic(make_app, settings, bank, monkeypatch):
    from agent.learner.drill import DrillOptions

    seed_profile(settings, bank)
    monkeypatch.setenv("RL_INTERVIEW_NOW", (ANSWERED + timedelta(days=3)).isoformat())
    app = make_app(drill=DrillOptions(topic="kl", count=1))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, DrillScreen), "the Drill screen")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        questions = [table.get_row_at(i)[1] for i in range(table.row_count)]
        assert questions and all("kl" in bank[qid].topics for qid in questions)
        assert "algo-07" not in questions


async def test_a_drills_report_is_titled_a_drill_report(make_app, settings, bank, home, monkeypatch):
    from agent.learner.drill import DrillOptions

    seed_profile(settings, bank)
    monkeypatch.setenv("RL_INTERVIEW_NOW", (ANSWERED + timedelta(days=3)).isoformat())
    app = make_app(drill=DrillOptions(count=1))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, DrillScreen), "the Drill screen")
        await settle(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the drill's opener")
        await settle(pilot)
        await finish_to_report(pilot)
        await settle(pilot)
        title = str(app.screen.query_one("#report-title", Static).render())
    assert title.startswith("Drill report tui-0001\n")
    assert (home / "reports" / "tui-0001.md").read_text(encoding="utf-8").startswith("# Drill report tui-0001")


async def test_the_drill_review_lists_what_was_shown_before_apart_from_what_is_missing(
    make_app, settings, bank, monkeypatch
):
    """Key points shown before add up in a drill (the profile and the drill's note count them), but the
    review listed them under "Not shown yet" (a user trial)."""
    shown_before = "clip-the-ratio"
    Profile(profile_path(settings)).record([attempt("algo-07", ANSWERED, 1, [shown_before], session="earlier")], bank)
    monkeypatch.setenv("RL_INTERVIEW_NOW", (ANSWERED + timedelta(days=3)).isoformat())
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await drill_algo_07(pilot, app)
        await answer(
            pilot, "CISPO clips the importance-sampling weight itself and detaches it, so every token keeps a gradient."
        )
        review = await skip_to_review(pilot)
    missing, _, before = review.partition("## Shown before")
    statement = bank["algo-07"].key_point(shown_before).statement
    assert statement[:40] in before and statement[:40] not in missing
    assert "## Not shown yet" in missing
    assert bank["algo-07"].key_point("why-min-pessimistic").statement[:40] in missing
    # nor does the reason under the title name it "not yet", nor the parts count it missing (a user trial)
    reason = next(line for line in review.splitlines() if line.startswith("*") and not line.startswith("**"))
    assert "not yet" in reason and statement[:30] not in reason
    part = bank["algo-07"].part(bank["algo-07"].key_point(shown_before).part)
    of = len(bank["algo-07"].points_of(part.id))
    assert f"{part.en}: 1 of {of} key points" in missing


async def test_the_trend_of_a_single_day_names_it_once(make_app, settings, bank, monkeypatch):
    """Every answer on one day read "Trend 2026-12-05 ▅ 2026-12-05"."""
    seed_profile(settings, bank)  # both answers on ANSWERED
    monkeypatch.setenv("RL_INTERVIEW_NOW", (ANSWERED + timedelta(hours=1)).isoformat())
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_drill(pilot, app)
        chart = str(app.screen.query_one(MasteryChart).render())
    trend = next(line for line in chart.splitlines() if line.startswith("Trend"))
    assert trend.count(ANSWERED.date().isoformat()) == 1, trend
    assert len(trend.split()) == 3, f"the heading, the day and one mark: {trend}"
