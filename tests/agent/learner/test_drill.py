"""The drill queue (due first, then weak topics, then unseen) with a fixed clock, what a drilled
question opens with, the graph's opener, and the plain front end's `previous_gap` event."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from agent_helpers import GraphDriver, explain
from learner_records import attempt

from agent.interview.events import Assessed, QuestionDone, SessionDone
from agent.learner.drill import MASTERED, DrillOptions, drill_queue, plan_drill
from agent.learner.profile import Profile
from agent.planning import PlanError, PlanRequest, make_plan
from tui.plain import DrillRenderer, Renderer

NOW = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture
def history(tmp_path, bank):
    """algo-08 and algo-07 answered badly days ago (due now), algo-02 and algo-03 answered today on
    weak topics, infra-01 answered perfectly today (mastered, not due)."""
    profile = Profile(tmp_path / "profile.sqlite")
    everything = [kp.id for kp in bank["infra-01"].key_points]
    level_1 = [kp.id for kp in bank["algo-02"].key_points if kp.level == 1]
    profile.record(
        [
            attempt("algo-08", NOW - timedelta(days=3), 0, session="a"),
            attempt("algo-07", NOW - timedelta(days=1, hours=12), 0, session="b"),
            attempt("algo-02", NOW, 3, level_1, session="c"),
            attempt("algo-03", NOW, 2, session="c"),
            attempt("infra-01", NOW, 4, everything, session="c"),
        ],
        bank,
    )
    return profile.history()


def test_queue_is_due_cards_then_weakest_topics_then_unseen(history, bank):
    queue = drill_queue(history, bank, NOW)
    assert [item.question for item in queue[:4]] == ["algo-08", "algo-07", "algo-02", "algo-03"]
    assert [item.why for item in queue[:4]] == ["due", "due", "weak topic", "weak topic"]
    assert queue[0].due < queue[1].due <= NOW
    assert all(item.due > NOW for item in queue[2:4])
    assert queue[2].mastery <= queue[3].mastery < MASTERED
    new = queue[4:]
    assert {item.why for item in new} == {"new"}
    assert {item.question for item in new} == set(bank) - {"algo-08", "algo-07", "algo-02", "algo-03", "infra-01"}
    difficulties = [bank[item.question].difficulty for item in new]
    assert difficulties == sorted(difficulties)
    assert "infra-01" not in {item.question for item in queue}, "mastered and not due: it waits"


def test_a_card_becomes_due_as_the_clock_moves(history, bank):
    later = NOW + timedelta(days=30)
    due = [item.question for item in drill_queue(history, bank, later) if item.why == "due"]
    assert set(due) == {"algo-08", "algo-07", "algo-02", "algo-03", "infra-01"}


def test_a_seen_question_opens_on_its_lowest_missing_key_point(history, bank):
    queue = {item.question: item for item in drill_queue(history, bank, NOW)}
    algo_07 = bank["algo-07"]
    assert queue["algo-07"].opener == min(algo_07.key_points, key=lambda kp: kp.level).id
    assert set(queue["algo-07"].gap) == {kp.id for kp in algo_07.key_points}
    shown = {kp.id for kp in bank["algo-02"].key_points if kp.level == 1}
    assert queue["algo-02"].opener not in shown
    assert bank["algo-02"].key_point(queue["algo-02"].opener).level == 2
    assert queue["algo-01"].opener is None and queue["algo-01"].gap == []


def test_plan_drill_takes_count_and_topic(history, bank):
    drill = plan_drill(history, bank, NOW, DrillOptions(count=2))
    assert drill.request.ids == ["algo-08", "algo-07"]
    assert drill.request.openers == {"algo-08": drill.items[0].opener, "algo-07": drill.items[1].opener}
    assert drill.max_follow_ups in (1, 2)
    assert make_plan(bank, drill.request) == ["algo-08", "algo-07"]

    on_kl = plan_drill(history, bank, NOW, DrillOptions(topic="kl", count=35))
    assert on_kl.items[0].question == "algo-08"
    assert all("kl" in bank[item.question].topics for item in on_kl.items)
    with pytest.raises(PlanError, match=r"topics: .*ppo"):
        plan_drill(history, bank, NOW, DrillOptions(topic="cooking"))


def test_nothing_to_drill_says_when_the_next_card_is_due(tmp_path, bank):
    assert [qid for qid in bank if "dpo" in bank[qid].topics] == ["algo-10"]
    profile = Profile(tmp_path / "profile.sqlite")
    profile.record([attempt("algo-10", NOW, 4, [kp.id for kp in bank["algo-10"].key_points])], bank)
    history = profile.history()
    due = history.cards["algo-10"].due
    assert due > NOW
    with pytest.raises(PlanError, match=f"nothing to drill on dpo: .* due on {due:%Y-%m-%d}"):
        drill_queue(history, bank, NOW, "dpo")
    assert [item.question for item in drill_queue(history, bank, due, "dpo")] == ["algo-10"]


def test_an_unknown_opener_is_a_plan_error(bank):
    with pytest.raises(PlanError, match="algo-07:no-such-point"):
        make_plan(bank, PlanRequest(ids=["algo-07"], openers={"algo-07": "no-such-point"}))


async def test_the_graph_opens_a_drilled_question_with_the_probe(bank, notes_retriever):
    question = bank["algo-07"]
    opener = next(kp for kp in question.key_points if kp.level == 2)
    driver = GraphDriver(bank, notes_retriever, ["algo-07", "infra-10"], max_follow_ups=1)
    driver.input["request"] = PlanRequest(ids=["algo-07", "infra-10"], openers={"algo-07": opener.id})
    await driver.start()
    waiting = driver.waiting
    assert (waiting["kind"], waiting["text"], waiting["target"]) == ("ask", opener.probe.en, opener.id)
    await driver.reply("answer", explain(question.key_points[0].cues.en[0]))
    follow = driver.waiting
    assert (follow["question"], follow["kind"]) == ("algo-07", "follow_up")
    assert follow["target"] != opener.id, "the opener is never probed again"
    await driver.reply("answer", "I don't know")
    nxt = driver.waiting
    assert (nxt["question"], nxt["kind"], nxt["text"]) == ("infra-10", "ask", bank["infra-10"].prompt.en)
    turns = [t for t in driver.values["turns"] if t.question == "algo-07"]
    assert len(turns) == 2 and turns[0].target == opener.id, "one opener and one follow-up, then move on"


async def test_a_drilled_question_opens_in_chinese(bank, notes_retriever):
    opener = bank["algo-08"].key_points[0]
    driver = GraphDriver(bank, notes_retriever, ["algo-08"], lang="zh", max_follow_ups=1)
    driver.input["request"] = PlanRequest(ids=["algo-08"], openers={"algo-08": opener.id})
    await driver.start()
    assert driver.waiting["text"] == opener.probe.zh


def test_previous_gap_follows_the_first_assessment_only(bank):
    gap = ["clip-the-ratio", "zero-gradient-cases"]
    assessment = Assessed(question="algo-07", depth=1, missed=gap)
    out = io.StringIO()
    renderer = DrillRenderer(out, True, bank, {"algo-07": gap})
    for event in (assessment, assessment, QuestionDone(question="algo-07", depth=1)):
        renderer.show(event)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e["type"] for e in events] == ["assessment", "previous_gap", "assessment", "question_done"]
    assert events[1] == {"type": "previous_gap", "question": "algo-07", "key_points": gap}

    # In words, as the TUI tells it: the parts still missing, never the statements (a trial's
    # candidate read the answer to the next follow-up printed just before it); a point the answer
    # has just shown is left out.
    question = bank["algo-07"]
    text = io.StringIO()
    shown_now = Assessed(question="algo-07", depth=1, missed=gap[1:], covered=(gap[0],))
    DrillRenderer(text, False, bank, {"algo-07": gap}).show(shown_now)
    said = text.getvalue()
    assert "Last time you had not shown, and have not yet:" in said
    assert f"- {question.part('how-clipping-works').en}: 1 key point\n" in said
    assert not any(question.key_point(point).statement[:30] in said for point in gap)
    all_shown = Assessed(question="algo-07", depth=2, missed=[], covered=tuple(gap))
    quiet = io.StringIO()
    DrillRenderer(quiet, False, bank, {"algo-07": gap}).show(all_shown)
    assert "Last time" not in quiet.getvalue()


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_drill_that_fills_its_gap_reports_the_depth_it_is_rated_on(bank, notes_retriever, lang):
    """A trial user answered a drill's level-4 probe in full and read "Depth 1 (recall)", while the
    card was rated on everything shown so far (depth 4): the drill now reports that depth, says it
    counts the earlier sessions, and the profile rates the question on the same depth."""
    question = bank["algo-07"]
    expert = next(kp for kp in question.key_points if kp.level == 4)
    driver = GraphDriver(bank, notes_retriever, ["algo-07"], lang=lang, max_follow_ups=1)
    driver.input["request"] = PlanRequest(
        ids=["algo-07"], openers={"algo-07": expert.id}, gaps={"algo-07": [expert.id]}
    )
    await driver.start()
    await driver.reply("answer", explain(expert.cues.en[0]))
    [assessed] = [e for e in driver.events if e["type"] == "assessment"]
    assert expert.id in assessed["covered"] and assessed["depth"] == 4, assessed
    await driver.reply("answer", "I don't know.")
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    [summary] = driver.values["summaries"]
    assert done["depth"] == summary.depth == 4
    assert ("earlier sessions" if lang == "en" else "之前答到的") in summary.reason, summary.reason
    assert summary.reason.startswith("Depth 4" if lang == "en" else "深度 4"), summary.reason


async def test_a_drill_that_does_not_fill_its_gap_reports_its_own_depth(bank, notes_retriever):
    question = bank["algo-07"]
    expert = next(kp for kp in question.key_points if kp.level == 4)
    driver = GraphDriver(bank, notes_retriever, ["algo-07"], max_follow_ups=1)
    driver.input["request"] = PlanRequest(
        ids=["algo-07"], openers={"algo-07": expert.id}, gaps={"algo-07": [expert.id]}
    )
    await driver.start()
    await driver.reply("answer", "I'm not sure, maybe it just makes training a bit faster?")
    await driver.reply("answer", "I don't know.")
    [summary] = driver.values["summaries"]
    assert summary.depth <= 1 and "earlier sessions" not in summary.reason, summary
    # The close still counts the points shown in earlier sessions toward the parts: a trial's plain
    # close said "✗ vLLM 和 SGLang 有什么区别：2 个要点中答到 0 个" over two points shown before.
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    by_part = {p["part"]: (p["shown"], p["of"]) for p in done["parts"]}
    for part in question.parts:
        points = question.points_of(part.id)
        earlier = sum(1 for kp in points if kp.id != expert.id)
        assert by_part[part.id] == (earlier, len(points)), (part.id, by_part)


@pytest.mark.parametrize("lang, said", [("en", "Drill d1 finished."), ("zh", "练习 d1 已完成。")])
def test_a_drill_ends_as_a_drill_new_or_resumed(bank, lang, said):
    """A trial's drill ended on "面试 0fbd7b74adf5 已完成。" while its report was a 练习报告."""
    done = SessionDone(session_id="d1", status="finished")
    new = io.StringIO()
    DrillRenderer(new, False, bank, {}, lang).show(done)
    resumed = io.StringIO()
    renderer = Renderer(resumed, False, bank, lang)
    renderer.so_far({"request": PlanRequest(ids=["algo-07"], drill=True), "turns": []})
    renderer.show(done)
    interview = io.StringIO()
    Renderer(interview, False, bank, lang).show(done)
    assert said in new.getvalue() and said in resumed.getvalue()
    assert said not in interview.getvalue()
