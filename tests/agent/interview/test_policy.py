"""decide(): the interviewer's next move after an answer, on assessments built from the bank."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from agent_helpers import BANK_IDS, cached_bank
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.brains.parts import untouched_parts
from agent.brains.wording import point_behind
from agent.interview.policy import Limits, decide
from agent.state import Assessment, CandidateAction, Evidence, Flag, Heard, MisconceptionHit, QuestionProgress

QID = "algo-07"


def assessment_for(question, covered_ids, depth, *, misconceptions=(), flags=()) -> Assessment:
    covered = [
        Evidence(key_point=kp.id, level=kp.level, quote=f"about {kp.id}")
        for kp in question.key_points
        if kp.id in covered_ids
    ]
    missed = [kp.id for kp in sorted(question.key_points, key=lambda k: k.level) if kp.id not in covered_ids]
    hits = [
        MisconceptionHit(misconception=m.id, quote=f"wrong about {m.id}", correction=m.correction)
        for m in question.misconceptions
        if m.id in misconceptions
    ]
    return Assessment(
        question=question.id,
        depth=depth,
        answer_depth=depth,
        covered=covered,
        missed=missed,
        misconceptions=hits,
        flags=list(flags),
    )


@dataclass(frozen=True)
class At:
    """Where the question stands when the decision is taken, as the graph hands it to `decide`."""

    progress: QuestionProgress
    limits: Limits
    heard: Heard | None = None
    partly: tuple[str, ...] = ()


def progress(follow_ups=0, max_follow_ups=3, stalls=0, probed=(), hints=(), max_hints=2, partly=(), heard=None) -> At:
    kept = QuestionProgress(follow_ups=follow_ups, stalls=stalls, probed=tuple(probed), hints=tuple(hints))
    return At(kept, Limits(follow_ups=max_follow_ups, hints=max_hints), heard, tuple(partly))


def decide_at(question, assessment, action, at: At):
    judged = at.progress.model_copy(update={"assessment": assessment})
    return decide(question, judged, action, at.limits, heard=at.heard, partly=at.partly)


def first_untouched_point(question, shown) -> str:
    """The lowest-level key point still missing of the first part not answered yet."""
    part = untouched_parts(question, set(shown))[0]
    return min((kp for kp in question.points_of(part.id) if kp.id not in shown), key=lambda kp: kp.level).id


def ids_at(question, *levels):
    return [kp.id for kp in question.key_points if kp.level in levels]


@pytest.fixture
def question(bank):
    return bank[QID]


def test_moves_on_at_expert_depth(question):
    everything = assessment_for(question, ids_at(question, 1, 2, 3, 4), 4)
    assert decide_at(question, everything, CandidateAction.answer, progress()).action == "move_on"
    # Even with key points left unshown, depth 4 ends the question.
    almost = assessment_for(question, ids_at(question, 1, 2, 3), 4)
    assert decide_at(question, almost, CandidateAction.answer, progress()).action == "move_on"


@pytest.mark.parametrize("max_follow_ups", [0, 1, 3, 6])
def test_moves_on_after_the_maximum_follow_ups(question, max_follow_ups):
    shallow = assessment_for(question, ids_at(question, 1)[:1], 1)
    assert (
        decide_at(
            question,
            shallow,
            CandidateAction.answer,
            progress(follow_ups=max_follow_ups, max_follow_ups=max_follow_ups),
        ).action
        == "move_on"
    )
    if max_follow_ups:
        assert (
            decide_at(
                question,
                shallow,
                CandidateAction.answer,
                progress(follow_ups=max_follow_ups - 1, max_follow_ups=max_follow_ups),
            ).action
            == "follow_up"
        )


def test_moves_on_after_two_stalls(question):
    shallow = assessment_for(question, ids_at(question, 1)[:1], 1)
    assert decide_at(question, shallow, CandidateAction.answer, progress(follow_ups=1, stalls=1)).action == "follow_up"
    assert decide_at(question, shallow, CandidateAction.answer, progress(follow_ups=2, stalls=2)).action == "move_on"


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_skip_moves_on_whatever_the_depth(question, depth):
    levels = [1, 2, 3][:depth]
    state = assessment_for(question, ids_at(question, *levels), depth)
    assert decide_at(question, state, CandidateAction.skip, progress()).action == "move_on"


@pytest.mark.parametrize(
    ("action", "flags"),
    [(CandidateAction.idk, [Flag.dont_know]), (CandidateAction.hint, []), (CandidateAction.answer, [Flag.dont_know])],
)
def test_a_hint_when_stuck_more_only_when_asked_for(question, action, flags):
    shown = ids_at(question, 1)[:1]
    state = assessment_for(question, shown, 1, flags=flags)
    first = decide_at(question, state, action, progress())
    assert (first.action, first.rung) == ("hint", 0)
    assert first.target in {kp.id for kp in question.key_points} - set(shown), "a hint points at a missing key point"
    assert first.target == first_untouched_point(question, shown)
    second = decide_at(question, state, action, progress(follow_ups=1, hints=[first.target]))
    if action is CandidateAction.hint:
        assert (second.action, second.target, second.rung) == ("hint", first.target, 1), "the next rung"
        third = decide_at(question, state, action, progress(follow_ups=2, max_follow_ups=6, hints=[first.target] * 2))
        assert third.action == "move_on", "max_hints reached"
    else:
        assert second.action == "move_on", "still stuck after a hint"


@pytest.mark.parametrize(
    ("action", "flags"), [(CandidateAction.idk, [Flag.dont_know]), (CandidateAction.answer, [Flag.dont_know])]
)
def test_i_dont_know_to_a_follow_up_beyond_what_was_shown_closes_the_question(question, action, flags):
    """Not knowing what a follow-up asked past the shown depth marks where the depth ends; with
    nothing shown yet, or when the candidate asks for one, a hint comes instead."""
    shown = ids_at(question, 1)[:1]
    asked = progress(follow_ups=1, probed=ids_at(question, 2)[:1])
    decision = decide_at(question, assessment_for(question, shown, 1, flags=flags), action, asked)
    assert (decision.action, decision.why) == ("move_on", "does not know what the follow-up asked")
    nothing_shown = decide_at(question, assessment_for(question, [], 0, flags=flags), action, asked)
    assert nothing_shown.action == "hint"
    asked_for = decide_at(question, assessment_for(question, shown, 1), CandidateAction.hint, asked)
    assert asked_for.action == "hint"


def test_the_hint_goes_to_the_key_point_just_asked_about(question):
    shown = ids_at(question, 1)
    asked = ids_at(question, 2)[0]
    state = assessment_for(question, shown, 1)
    decision = decide_at(question, state, CandidateAction.hint, progress(follow_ups=1, probed=[asked]))
    assert (decision.action, decision.target) == ("hint", asked)
    assert decide_at(question, state, CandidateAction.hint, progress(max_hints=0)).action == "move_on"


def test_probes_a_stated_misconception_first(question):
    wrong = question.misconceptions[-1]
    shown = ids_at(question, 1)[:1] + ids_at(question, 2)[:1]
    state = assessment_for(question, shown, 2, misconceptions=[wrong.id])
    first = decide_at(question, state, CandidateAction.answer, progress())
    assert (first.action, first.target) == ("follow_up", wrong.id)
    # Once challenged, the next probe goes to the first part nothing was said on.
    after = decide_at(question, state, CandidateAction.answer, progress(follow_ups=1, probed=[wrong.id]))
    assert (after.action, after.target) == ("follow_up", first_untouched_point(question, shown))


def test_a_first_answer_of_unsure_recall_beside_a_wrong_claim_gets_a_hint_that_names_it(question):
    """A first answer whose only footing is recall the judge is not sure of, next to a wrong claim,
    has no footing for a probe: the claim is named and a hint follows. With sure recall, later in
    the question, or with more than recall shown, the claim is challenged by a follow-up."""
    wrong = question.misconceptions[-1]
    shown = ids_at(question, 1)[:1]
    state = assessment_for(question, shown, 1, misconceptions=[wrong.id])
    unsure = state.model_copy(update={"covered": [e.model_copy(update={"strength": 0.8}) for e in state.covered]})
    sure = state.model_copy(update={"covered": [e.model_copy(update={"strength": 0.99}) for e in state.covered]})
    first = decide_at(question, unsure, CandidateAction.answer, progress())
    assert (first.action, first.challenge) == ("hint", wrong.id)
    assert first.target in set(state.missed)
    for later in (
        decide_at(question, unsure, CandidateAction.answer, progress(follow_ups=1)),
        decide_at(question, sure, CandidateAction.answer, progress()),
    ):
        assert (later.action, later.target) == ("follow_up", wrong.id)


def test_an_answer_standing_on_a_wrong_claim_gets_a_hint_that_names_it(question):
    """Nothing shown and a wrong claim stated: the wrong claim is named and the hint points at the
    key point that claim gets wrong, as an interviewer redirects; without hints left, the claim is
    challenged by a follow-up as before."""
    for wrong in question.misconceptions:
        state = assessment_for(question, [], 0, misconceptions=[wrong.id], flags=[Flag.misconception])
        decision = decide_at(question, state, CandidateAction.answer, progress())
        assert (decision.action, decision.challenge, decision.rung) == ("hint", wrong.id, 0)
        assert decision.target == point_behind(question, wrong).id
    wrong = question.misconceptions[0]
    state = assessment_for(question, [], 0, misconceptions=[wrong.id], flags=[Flag.misconception])
    no_hints = decide_at(question, state, CandidateAction.answer, progress(max_hints=0))
    assert (no_hints.action, no_hints.target) == ("follow_up", wrong.id)
    # Once the claim was challenged, a second answer of the same is not redirected again for it.
    again = decide_at(question, state, CandidateAction.answer, progress(follow_ups=1, probed=[wrong.id]))
    assert again.challenge is None


def test_an_answer_about_a_neighbouring_concept_gets_a_hint_toward_the_one_asked(question):
    state = assessment_for(question, [], 0, flags=[Flag.other_concept])
    decision = decide_at(question, state, CandidateAction.answer, progress())
    assert (decision.action, decision.challenge) == ("hint", None)
    assert decision.target == first_untouched_point(question, [])
    # One unasked-for hint per question: the same answer after it is asked again, not hinted at.
    hinted = progress(follow_ups=1, probed=[decision.target], hints=[decision.target])
    assert decide_at(question, state, CandidateAction.answer, hinted).action == "follow_up"
    # Plain off-topic talk is asked again, not hinted at; and once something is shown, no redirect.
    off = decide_at(
        question, assessment_for(question, [], 0, flags=[Flag.off_topic]), CandidateAction.answer, progress()
    )
    assert off.action == "follow_up"
    shown = ids_at(question, 1)[:1]
    later = decide_at(
        question, assessment_for(question, shown, 1, flags=[Flag.other_concept]), CandidateAction.answer, progress()
    )
    assert later.action == "follow_up"


def test_untouched_parts_come_before_depth(question):
    """algo-07: naming its level-1 concepts answers none of its four parts. The first follow-up goes
    to the first part; the follow-ups stay on parts not answered yet, in the prompt's order, and a
    part whose entry point was asked stays open until something is shown on it."""
    shown = ids_at(question, 1)
    state = assessment_for(question, shown, 1)
    open_parts = [p.id for p in untouched_parts(question, set(shown))]
    assert open_parts[0] == question.parts[0].id
    probed, seen = [], []
    # Below expert level: at depth 1 a level-4 point is not asked, even on an untouched part.
    askable = [kp for kp in question.key_points if kp.part in open_parts and kp.id not in shown and kp.level < 4]
    for _ in askable:
        decision = decide_at(
            question, state, CandidateAction.answer, progress(follow_ups=len(probed), max_follow_ups=9, probed=probed)
        )
        assert decision.action == "follow_up"
        seen.append(question.key_point(decision.target).part)
        assert decision.why == f"part {seen[-1]} not touched yet"
        probed.append(decision.target)
    assert seen == sorted(seen, key=open_parts.index), "in the prompt's order"
    # With the first part answered, the next follow-up goes to the next part, not deeper.
    answered = shown + [kp.id for kp in question.points_of(question.parts[0].id)]
    later = decide_at(question, assessment_for(question, answered, 2), CandidateAction.answer, progress())
    assert question.key_point(later.target).part == question.parts[1].id


@pytest.mark.parametrize("qid", BANK_IDS)
def test_no_expert_point_below_depth_3_even_on_an_untouched_part(bank, qid):
    """infra-12, a troll's reply at depth 0: its first part's entry point already asked, the part's
    other point is level 4 ("how big is the effect in practice?"), which is no question for a
    candidate who has shown nothing."""
    question = bank[qid]
    for depth in (0, 1, 2):
        probed: list[str] = []
        state = assessment_for(question, [], depth)
        decision = decide_at(question, state, CandidateAction.answer, progress(max_follow_ups=99))
        while decision.action == "follow_up":
            assert question.key_point(decision.target).level < 4, (depth, decision.target)
            probed.append(decision.target)
            decision = decide_at(question, state, CandidateAction.answer, progress(probed=probed, max_follow_ups=99))
        assert {kp.id for kp in question.key_points if kp.level < 4} <= set(probed), "every basic point is asked"


def test_naming_a_concept_does_not_answer_a_part_that_asks_more(bank):
    """infra-05, "continuous batching 就是动态组 batch" said toward its definition (level 1): the part
    asks what continuous batching breaks in RL, so it is still the one to ask about."""
    question = bank["infra-05"]
    first_part = question.parts[0]
    named = [kp.id for kp in question.points_of(first_part.id) if kp.level == 1]
    other = [kp.id for kp in question.key_points if kp.part != first_part.id and kp.level == 1]
    assert named and other, "the bank's infra-05 has changed"
    state = assessment_for(question, other, 1)
    decision = decide_at(question, state, CandidateAction.answer, progress(partly=named))
    assert question.key_point(decision.target).part == first_part.id
    assert decision.why == f"part {first_part.id} not touched yet"


def test_a_partly_said_point_comes_after_the_others(question):
    state = assessment_for(question, ids_at(question, 1), 1)
    untouched = untouched_parts(question, set(ids_at(question, 1)))
    # A point the candidate has said something toward counts as touching its part.
    partly = [first_untouched_point(question, ids_at(question, 1))]
    decision = decide_at(question, state, CandidateAction.answer, progress(partly=partly))
    assert question.key_point(decision.target).part == untouched[1].id


def test_expert_depth_with_an_untouched_part_asks_that_part(question):
    part = question.parts[-1]
    shown = [kp.id for kp in question.key_points if kp.part != part.id]
    decision = decide_at(question, assessment_for(question, shown, 4), CandidateAction.answer, progress())
    assert decision.action == "follow_up" and question.key_point(decision.target).part == part.id


def half_said_parts(question):
    """Per part with basic points (of a question with several parts): the part, its basic points,
    every other part's points as shown, and its own points as half said."""
    for part in question.parts if len(question.parts) > 1 else []:
        basic = [kp for kp in question.points_of(part.id) if kp.level < 4]
        if basic:
            shown = [kp.id for kp in question.key_points if kp.part != part.id]
            yield part, basic, shown, [kp.id for kp in question.points_of(part.id)]


@pytest.mark.parametrize("qid", BANK_IDS)
def test_a_part_with_nothing_shown_opens_with_its_basic_question_though_half_said(bank, qid):
    """The twenty-fourth session's blind trial (algo-07, depth 3): a sentence about the min was read
    as half-saying CISPO's motivation, which took the CISPO part off the untouched list, and the
    follow-up asked for CISPO's full objective and reported speedup (level 4) first."""
    question = bank[qid]
    for part, basic, shown, half_said in half_said_parts(question):
        decision = decide_at(
            question, assessment_for(question, shown, 3), CandidateAction.answer, progress(partly=half_said)
        )
        assert decision.action == "follow_up"
        assert decision.target == min(basic, key=lambda kp: kp.level).id, part.id


@pytest.mark.parametrize("qid", BANK_IDS)
def test_expert_depth_with_a_half_said_part_asks_that_part_before_moving_on(bank, qid):
    """A user trial (algo-12, depth 4 on one answer): the PPO-epochs part, 0 of 2 shown but half said,
    was not asked; the question closed with "Still open: how to choose the number of PPO epochs"."""
    question = bank[qid]
    for part, basic, shown, half_said in half_said_parts(question):
        state = assessment_for(question, shown, 4)
        decision = decide_at(question, state, CandidateAction.answer, progress(partly=half_said))
        assert decision.action == "follow_up" and question.key_point(decision.target).part == part.id, part.id
        # Once its basic points have been asked, depth 4 ends the question.
        asked = progress(partly=half_said, probed=[kp.id for kp in basic], follow_ups=len(basic))
        assert decide_at(question, state, CandidateAction.answer, asked).action == "move_on", part.id


def test_a_request_to_move_on_moves_on(question):
    state = assessment_for(question, ids_at(question, 1), 1)
    decision = decide_at(question, state, CandidateAction.answer, progress(heard=Heard.move_on))
    assert (decision.action, decision.why) == ("move_on", "the candidate asked to move on")


@pytest.mark.parametrize("qid", BANK_IDS)
def test_escalates_to_expert_depth_once_depth_is_3(bank, qid):
    question = bank[qid]
    # One level-3 point still missing: at depth 3, once every part is touched, the interviewer goes
    # for expert depth anyway: the rubric's own level-4 points first, then the expert probes.
    level_3 = ids_at(question, 3)
    shown = ids_at(question, 1, 2) + level_3[:-1]
    state = assessment_for(question, shown, 3)
    open_parts = {p.id for p in untouched_parts(question, set(shown))}
    level_4 = set(ids_at(question, 4))
    probed = []
    decision = decide_at(question, state, CandidateAction.answer, progress(max_follow_ups=9))
    while decision.target in {kp.id for kp in question.key_points}:
        point = question.key_point(decision.target)
        if point.part in open_parts:
            assert all(question.key_point(t).part in open_parts for t in probed), "untouched parts come first"
        else:
            assert point.id in level_4, "past the untouched parts, only a level-4 point comes before the expert probes"
        probed.append(decision.target)
        decision = decide_at(question, state, CandidateAction.answer, progress(probed=probed, max_follow_ups=9))
    assert level_4 <= set(probed), "every missing level-4 point is asked before an expert probe"
    assert (decision.action, decision.target) == ("follow_up", "expert:0")
    second = decide_at(
        question, state, CandidateAction.answer, progress(follow_ups=1, probed=[*probed, "expert:0"], max_follow_ups=6)
    )
    if len(question.expert_probes) > 1:
        assert second.target == "expert:1"
    else:
        assert second.target != "expert:0"
    # At depth 2 there is no expert probe yet: a part not touched (whatever its level), else level 3.
    shallow = assessment_for(question, ids_at(question, 1, 2), 2)
    early = decide_at(question, shallow, CandidateAction.answer, progress())
    open_parts = {p.id for p in untouched_parts(question, set(ids_at(question, 1, 2)))}
    assert early.target in ids_at(question, 3) or question.key_point(early.target).part in open_parts


def _valid_targets(question, state) -> set[str]:
    return (
        {kp.id for kp in question.key_points}
        | {m.misconception for m in state.misconceptions}
        | {f"expert:{i}" for i in range(len(question.expert_probes))}
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_never_probes_a_target_twice(data):
    bank = cached_bank()
    question = bank[data.draw(st.sampled_from(BANK_IDS))]
    kp_ids = [kp.id for kp in question.key_points]
    wrong_ids = [m.id for m in question.misconceptions]
    covered = data.draw(st.sets(st.sampled_from(kp_ids)))
    depth = data.draw(st.integers(0, 3))
    said_wrong = data.draw(st.sets(st.sampled_from(wrong_ids)))
    targets = kp_ids + wrong_ids + [f"expert:{i}" for i in range(len(question.expert_probes))]
    probed = data.draw(st.lists(st.sampled_from(targets), unique=True))
    action = data.draw(st.sampled_from([CandidateAction.answer, CandidateAction.idk, CandidateAction.hint]))
    flags = data.draw(st.sets(st.sampled_from(list(Flag))))
    state = assessment_for(question, covered, depth, misconceptions=said_wrong, flags=flags)
    hints = data.draw(st.lists(st.sampled_from(kp_ids), max_size=2))
    prog = progress(
        follow_ups=data.draw(st.integers(0, 2)),
        stalls=data.draw(st.integers(0, 1)),
        probed=probed,
        hints=hints,
        partly=data.draw(st.lists(st.sampled_from(kp_ids), unique=True)),
    )
    decision = decide_at(question, state, action, prog)
    if decision.action == "follow_up":
        assert decision.target not in probed
        assert decision.target in _valid_targets(question, state)
        assert decision.target not in covered, "never a point already shown"
    elif decision.action == "hint":
        assert len(prog.progress.hints) < prog.limits.hints, "max_hints per question"
        assert action is CandidateAction.hint or not hints, "more than one hint only when asked for"
        assert decision.target in {kp.id for kp in question.key_points} - covered
        assert decision.rung == hints.count(decision.target)
    else:
        assert decision.target is None


def test_a_hint_asked_for_is_given_after_the_last_follow_up(question):
    """Asking for another hint once the follow-ups are spent gets the hint, not a silent move on;
    the hints' own limit still holds, and an answer there still closes the question."""
    shown = ids_at(question, 1)[:1]
    state = assessment_for(question, shown, 1)
    spent = progress(follow_ups=3, max_follow_ups=3, hints=["x"])
    decision = decide_at(question, state, CandidateAction.hint, spent)
    assert (decision.action, decision.target) == ("hint", first_untouched_point(question, shown))
    assert decide_at(question, state, CandidateAction.answer, spent).action == "move_on"
    both_spent = progress(follow_ups=3, max_follow_ups=3, hints=["x", "y"])
    assert decide_at(question, state, CandidateAction.hint, both_spent).action == "move_on"


@pytest.mark.parametrize(
    ("wrong", "part"),
    [
        ("std-norm-required", "std-normalisation"),
        ("baseline-adds-bias", "why-baseline"),
        ("baseline-needed-for-unbiased", "why-baseline"),
    ],
)
def test_a_hint_right_after_a_challenge_helps_with_the_challenged_claim(wrong, part):
    """After "what would make training diverge without the std division?", a hint asked for said
    "write the advantage out" (the lowest missing point), which does not help with std (a user trial)."""
    question = cached_bank()["algo-05"]
    shown = ids_at(question, 1)
    state = assessment_for(question, shown, 1, misconceptions=[wrong])
    decision = decide_at(question, state, CandidateAction.hint, progress(follow_ups=1, probed=[wrong]))
    assert decision.action == "hint"
    assert question.key_point(decision.target).part == part


@pytest.mark.parametrize(
    ("question_id", "swap", "behind"),
    [
        ("infra-05", "misattributed-radixattention", "engine-core-ideas"),
        ("infra-02", "misattributed-pp-across-nodes", "tp-pp-tradeoffs"),
        ("algo-11", "misattributed-r3-recorded-in-inference", "routing-replay"),
    ],
)
def test_a_hint_after_challenging_a_swap_is_filed_under_the_point_it_gets_wrong(question_id, swap, behind):
    """Trial 31: the hint that challenged "vLLM 的核心是 RadixAttention" was filed under another point,
    and the candidate's correction was then marked as shown "with a hint" there."""
    question = cached_bank()[question_id]
    wrong = question.misconception(swap)
    state = assessment_for(question, (), 0).model_copy(
        update={
            "misconceptions": [MisconceptionHit(misconception=swap, quote="the swap", correction=wrong.correction)],
            "flags": [Flag.misconception],
        }
    )
    decision = decide_at(question, state, CandidateAction.answer, progress())
    assert (decision.action, decision.challenge, decision.target) == ("hint", swap, behind)


def test_a_swap_on_a_question_whose_points_do_not_name_it_gets_the_usual_hint():
    question = cached_bank()["algo-07"]
    swap = "misattributed-radixattention"
    wrong = question.misconception(swap)
    state = assessment_for(question, (), 0).model_copy(
        update={"misconceptions": [MisconceptionHit(misconception=swap, quote="the swap", correction=wrong.correction)]}
    )
    decision = decide_at(question, state, CandidateAction.answer, progress())
    assert decision.challenge == swap and decision.target == first_untouched_point(question, set())
