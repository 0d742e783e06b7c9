"""The interviewer graph, compiled with an in-memory checkpointer and driven through interrupts."""

from __future__ import annotations

import pytest
from agent_helpers import answer_for_levels, explain, stating
from langgraph.types import Command

from agent.state import CandidateAction, Turn, progress_of

PLAN = ["algo-07", "infra-10"]
OFF_TOPIC = "My favourite pasta recipe uses garlic and olive oil and takes twenty minutes."


def responsive_answer(bank, waiting: dict) -> str:
    """A reply that shows exactly what the interviewer asked for (one key point at a time)."""
    question = bank[waiting["question"]]
    target = waiting.get("target")
    if target is None:
        return explain(min(question.key_points, key=lambda kp: kp.level).cues.en[0])
    if target.startswith("expert:"):
        return answer_for_levels(question, 4)
    if target in {kp.id for kp in question.key_points}:
        return explain(question.key_point(target).cues.en[0])
    return "I see, I was wrong about that and take it back."


async def run_to_end(driver, bank, answer=None, limit=60) -> list[dict]:
    """Answer every interviewer turn until the graph stops waiting; returns the turns it waited at."""
    seen = []
    while driver.waiting is not None:
        assert len(seen) < limit, "the interview does not end"
        seen.append(driver.waiting)
        await driver.reply("answer", (answer or responsive_answer)(bank, driver.waiting))
    return seen


async def test_first_interrupt_is_the_bank_prompt(graph_driver, bank):
    driver = graph_driver()
    await driver.start()
    waiting = driver.waiting
    assert waiting["kind"] == "ask"
    assert waiting["question"] == "algo-07"
    assert waiting["text"] == bank["algo-07"].prompt.en
    assert waiting["target"] is None
    assert (waiting["number"], waiting["of"]) == (1, 2)
    assert driver.values["status"] == "active"
    assert driver.values["plan"] == PLAN
    assert driver.values["turns"] == []


async def test_first_interrupt_in_chinese(graph_driver, bank):
    driver = graph_driver(lang="zh")
    await driver.start()
    assert driver.waiting["text"] == bank["algo-07"].prompt.zh


async def test_partial_answer_gets_a_follow_up_on_a_missing_key_point(graph_driver, bank):
    question = bank["algo-07"]
    first_part, second_part = question.parts[0].id, question.parts[1].id
    named = min(question.points_of(first_part), key=lambda kp: kp.level)
    driver = graph_driver()
    await driver.start()
    await driver.reply("answer", explain(named.cues.en[0]))
    waiting = driver.waiting
    assert waiting["kind"] == "follow_up"
    assert waiting["question"] == "algo-07"
    target = question.key_point(waiting["target"])
    assessment = driver.progress.assessment
    assert target.id in assessment.missed
    assert named.id not in assessment.missed
    # Naming the concept does not answer "how does clipping work?": the follow-up stays on that part.
    assert target.part == first_part and target.level > named.level
    assert target.probe.en in waiting["text"]
    assert driver.progress.follow_ups == 1
    assert driver.progress.probed == (target.id,)
    # Once the part is explained, the next follow-up turns to the next part and names it.
    await driver.reply("answer", explain(target.cues.en[0]))
    turned = question.key_point(driver.waiting["target"])
    assert turned.part == second_part
    assert question.parts[1].en.lower() in driver.waiting["text"].lower()


async def test_the_answer_is_in_state_before_it_is_assessed(graph_driver):
    driver = graph_driver()
    await driver.start()
    answer = "The probability ratio matters because it keeps the update small."
    stream = driver.graph.astream(
        Command(resume={"action": "answer", "text": answer}),
        driver.config,
        context=driver.context,
        stream_mode="updates",
    )
    first = await anext(stream)
    await stream.aclose()
    assert list(first) == ["ask"]
    written = first["ask"]["turns"]
    assert written.answer == answer, "the ask node's own update is the new turn"
    assert written.assessment is None
    # The checkpoint after the ask node holds the answer and nothing has judged it yet.
    snapshot = driver.snapshot
    assert snapshot.next == ("retrieve",)
    assert snapshot.values["turns"][-1].answer == answer
    assert snapshot.values["turns"][-1].assessment is None
    assert progress_of(snapshot.values).assessment is None
    # Resuming from there finishes the step.
    await driver._run(None)
    assert driver.values["turns"][-1].assessment is not None
    assert driver.waiting["kind"] == "follow_up"


async def test_asking_for_hints_climbs_the_ladder_up_to_max_hints(graph_driver, bank):
    question = bank["algo-07"]
    driver = graph_driver()
    await driver.start()
    await driver.reply("hint")
    first = driver.waiting
    assert first["kind"] == "hint"
    assert first["question"] == "algo-07"
    target = question.key_point(first["target"])
    assert target.part == question.parts[0].id and target.level == 1
    assert target.hints[0].en in first["text"], "the gentlest hint of the key point comes first"
    assert driver.values["turns"][-1].action is CandidateAction.hint
    await driver.reply("answer", "Can I get another hint?")
    second = driver.waiting
    assert (second["kind"], second["target"]) == ("hint", target.id)
    assert target.hints[1].en in second["text"], "the next rung of the same ladder"
    assert driver.progress.hints == (target.id, target.id)
    await driver.reply("hint")
    # max_hints (2 by default) reached: the question closes.
    assert driver.waiting["kind"] == "ask"
    assert driver.waiting["question"] == "infra-10"
    assert [s.question for s in driver.values["summaries"]] == ["algo-07"]


async def test_max_hints_is_the_interviewer_s_setting(graph_driver, bank):
    from dataclasses import replace

    driver = graph_driver()
    driver.context = replace(driver.context, max_hints=1)
    await driver.start()
    await driver.reply("hint")
    assert driver.waiting["kind"] == "hint"
    await driver.reply("hint")
    assert driver.waiting["question"] == "infra-10"
    none = graph_driver(thread="none")
    none.context = replace(none.context, max_hints=0)
    await none.start()
    await none.reply("hint")
    assert none.waiting["question"] == "infra-10", "no hints at all: a stuck candidate moves on"


async def test_what_is_shown_after_a_hint_is_marked_with_a_hint(graph_driver, bank):
    question = bank["algo-07"]
    driver = graph_driver()
    await driver.start()
    await driver.reply("hint")
    target = question.key_point(driver.waiting["target"])
    await driver.reply("answer", explain(target.cues.en[0]))
    [evidence] = [e for e in driver.progress.assessment.covered if e.key_point == target.id]
    assert evidence.hinted is True
    await driver.reply("skip")
    [summary] = driver.values["summaries"]
    assert [e.key_point for e in summary.covered if e.hinted] == [target.id]
    done = next(e for e in driver.events if e["type"] == "question_done")
    assert done["hinted"] == [target.id]
    assert any(p["hinted"] for p in done["parts"] if p["part"] == target.part)


@pytest.mark.parametrize("plea", ["Can I get a hint?", "能给点提示吗？", "有没有什么提示？"])
async def test_asking_for_a_hint_in_words_is_a_hint(graph_driver, plea):
    driver = graph_driver()
    await driver.start()
    await driver.reply("answer", plea)
    assert driver.waiting["kind"] == "hint"
    assert driver.values["turns"][-1].action is CandidateAction.hint


async def test_skip_moves_to_the_next_question(graph_driver, bank):
    driver = graph_driver()
    await driver.start()
    await driver.reply("skip")
    assert driver.waiting["kind"] == "ask"
    assert driver.waiting["question"] == "infra-10"
    assert driver.waiting["text"] == bank["infra-10"].prompt.en
    [summary] = driver.values["summaries"]
    assert summary.question == "algo-07"
    assert summary.skipped is True
    assert summary.depth == 0
    assert set(summary.missed) == {kp.id for kp in bank["algo-07"].key_points}
    assert driver.values["turns"][-1].action is CandidateAction.skip
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    assert (done["question"], done["depth"], done["hinted"]) == ("algo-07", 0, [])
    assert [(p["part"], p["shown"]) for p in done["parts"]] == [(p.id, 0) for p in bank["algo-07"].parts]


async def test_idk_gets_one_hint_then_moves_on(graph_driver):
    driver = graph_driver()
    await driver.start()
    await driver.reply("idk")
    assert driver.waiting["kind"] == "hint"
    assert "dont_know" in driver.assessments()[-1]["flags"]
    await driver.reply("idk")
    assert driver.waiting["kind"] == "ask"
    assert driver.waiting["question"] == "infra-10"
    summary = driver.values["summaries"][0]
    assert (summary.question, summary.depth, summary.skipped) == ("algo-07", 0, False)


async def test_idk_in_words_after_progress_keeps_the_depth(graph_driver, bank):
    driver = graph_driver()
    await driver.start()
    await driver.reply("answer", answer_for_levels(bank["algo-07"], 1, 2))
    depth = driver.progress.assessment.depth
    assert depth >= 2
    await driver.reply("answer", "I don't know")
    closed = driver.values["turns"][-1]
    assert closed.assessment.depth == depth
    assert closed.decision.action == "move_on", "not knowing what the follow-up asked closes the question"
    assert driver.values["summaries"][0].depth == depth


async def test_repeat_asks_the_same_thing_again_without_a_turn(graph_driver):
    driver = graph_driver()
    await driver.start()
    await driver.reply("answer", "The probability ratio matters because it keeps the update small.")
    before = driver.waiting
    turns = list(driver.values["turns"])
    await driver.reply("repeat")
    assert driver.waiting == before
    assert driver.values["turns"] == turns
    assert driver.progress.follow_ups == 1


async def test_end_closes_the_question_and_ends_the_session(graph_driver, bank):
    driver = graph_driver()
    await driver.start()
    await driver.reply("answer", answer_for_levels(bank["algo-07"], 1, 2))
    await driver.reply("end")
    assert driver.waiting is None
    values = driver.values
    assert values["status"] == "ended"
    assert values["pending"] is None
    assert [s.question for s in values["summaries"]] == ["algo-07"]
    assert values["summaries"][0].depth >= 2
    assert [e for e in driver.events if e["type"] == "session_done"] == [
        {"type": "session_done", "session_id": "t", "status": "ended"}
    ]
    assert driver.snapshot.next == ()


async def test_end_before_answering_reports_nothing_for_the_untouched_question(graph_driver):
    driver = graph_driver()
    await driver.start()
    await driver.reply("end")
    assert driver.values["status"] == "ended"
    assert driver.values["summaries"] == []


async def test_a_stated_misconception_is_probed_first_quoting_the_candidate(graph_driver, bank):
    question = bank["algo-07"]
    wrong = question.misconceptions[0]
    sentence = stating(wrong.cues.en[0])
    driver = graph_driver()
    await driver.start()
    await driver.reply("answer", answer_for_levels(question, 1))
    assert driver.waiting["kind"] == "follow_up"
    await driver.reply("answer", sentence)
    waiting = driver.waiting
    # Challenged at once, although parts of the question are still untouched.
    assert (waiting["kind"], waiting["target"]) == ("follow_up", wrong.id)
    # The clause that makes the claim, without the filler in front of it.
    assert f"“{wrong.cues.en[0]} in this case”" in waiting["text"]


async def test_a_first_answer_of_cue_recall_and_a_wrong_claim_is_named_and_given_its_check(graph_driver, bank):
    """Recall by a cue phrase alone (which the judge is not sure of) beside a wrong claim: the claim
    is named in the candidate's words and the hint is the misconception's own check."""
    question = bank["algo-07"]
    wrong = question.misconceptions[0]
    driver = graph_driver()
    await driver.start()
    await driver.reply("answer", f"{answer_for_levels(question, 1)} {stating(wrong.cues.en[0])}")
    waiting = driver.waiting
    assert waiting["kind"] == "hint"
    assert f"“{wrong.cues.en[0]} in this case”" in waiting["text"]
    assert wrong.challenge is not None and wrong.challenge.en in waiting["text"]


async def test_two_follow_ups_without_progress_move_on(graph_driver):
    driver = graph_driver()
    await driver.start()
    kinds = []
    while driver.waiting["question"] == "algo-07":
        kinds.append(driver.waiting["kind"])
        await driver.reply("answer", OFF_TOPIC)
    # The first question, then two follow-ups that raised nothing.
    assert kinds == ["ask", "follow_up", "follow_up"]
    assert driver.values["summaries"][0].depth == 0


@pytest.mark.parametrize("max_follow_ups", [0, 1, 3])
async def test_full_session_finishes_with_one_summary_per_question(graph_driver, bank, max_follow_ups):
    driver = graph_driver(max_follow_ups=max_follow_ups)
    await driver.start()
    seen = await run_to_end(driver, bank)
    values = driver.values
    assert values["status"] == "finished"
    assert values["pending"] is None
    assert [s.question for s in values["summaries"]] == PLAN
    turns: list[Turn] = values["turns"]
    assert len(turns) == len(seen)
    for qid in PLAN:
        mine = [t for t in turns if t.question == qid]
        assert mine[0].kind == "ask"
        follow_ups = [t for t in mine if t.kind in ("follow_up", "hint")]
        assert len(follow_ups) <= max_follow_ups
        targets = [t.target for t in mine if t.kind == "follow_up"]
        assert len(targets) == len(set(targets)), f"a probe was repeated on {qid}: {targets}"
        depths = [t.assessment.depth for t in mine]
        assert depths == sorted(depths), "depth never goes down"
        summary = next(s for s in values["summaries"] if s.question == qid)
        assert summary.depth == depths[-1]
        assert summary.model_answer == bank[qid].model_answer
        for t in mine:
            assert t.assessment is not None and t.decision is not None
        assert mine[-1].decision.action == "move_on"
        assert all(t.decision.action != "move_on" for t in mine[:-1])
    done = [e for e in driver.events if e["type"] == "question_done"]
    assert [e["question"] for e in done] == PLAN
    assert [e["type"] for e in driver.events].count("session_done") == 1
    assert len(driver.assessments()) == len(turns)


async def test_follow_up_texts_carry_the_probes_of_their_targets(graph_driver, bank):
    driver = graph_driver(max_follow_ups=6)
    await driver.start()
    seen = await run_to_end(driver, bank)
    follow_ups = [w for w in seen if w["kind"] == "follow_up"]
    assert follow_ups
    for waiting in follow_ups:
        question = bank[waiting["question"]]
        target = waiting["target"]
        if target.startswith("expert:"):
            probe = question.expert_probes[int(target.split(":")[1])].en
        else:
            probe = question.key_point(target).probe.en
        assert probe in waiting["text"]


async def test_no_probe_repeats_even_when_the_candidate_never_improves(graph_driver, bank):
    """Answers that show nothing keep the interviewer probing; targets still never repeat."""
    driver = graph_driver(plan=["algo-07", "infra-12"], max_follow_ups=6)
    await driver.start()
    seen = await run_to_end(driver, bank, answer=lambda bank, waiting: answer_for_levels(bank["algo-07"], 1))
    for qid in ("algo-07", "infra-12"):
        targets = [w["target"] for w in seen if w["question"] == qid and w["kind"] == "follow_up"]
        assert len(targets) == len(set(targets)), targets
    assert driver.values["status"] == "finished"


async def test_turn_numbers_in_interrupts_count_recorded_turns(graph_driver, bank):
    driver = graph_driver()
    await driver.start()
    while driver.waiting is not None:
        assert driver.waiting["turn"] == len(driver.values["turns"])
        assert driver.waiting["follow_ups"] == driver.progress.follow_ups
        await driver.reply("answer", responsive_answer(bank, driver.waiting))


async def test_chinese_session_asks_follow_ups_in_chinese(graph_driver, bank):
    question = bank["algo-07"]
    level_1 = [kp for kp in question.key_points if kp.level == 1]
    driver = graph_driver(lang="zh")
    await driver.start()
    await driver.reply("answer", f"{level_1[0].cues.zh[0]}很重要，因为它可以防止每次更新太大。")
    waiting = driver.waiting
    assert waiting["kind"] == "follow_up"
    assert question.key_point(waiting["target"]).probe.zh in waiting["text"]
    await driver.reply("hint")
    hint = driver.waiting
    assert hint["kind"] == "hint"
    assert question.key_point(hint["target"]).hints[0].zh in hint["text"]
