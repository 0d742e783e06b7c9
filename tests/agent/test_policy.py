"""decide(): the interviewer's next move after an answer, on assessments built from the bank."""

from __future__ import annotations

import pytest
from agent_helpers import BANK_IDS, cached_bank
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.policy import Progress, decide
from agent.state import Assessment, CandidateAction, Evidence, Flag, MisconceptionHit

QID = "algo-07"


def assessment_for(question, covered_ids, depth, *, misconceptions=(), flags=()) -> Assessment:
    covered = [Evidence(key_point=kp.id, level=kp.level, quote=f"about {kp.id}")
               for kp in question.key_points if kp.id in covered_ids]
    missed = [kp.id for kp in sorted(question.key_points, key=lambda k: k.level) if kp.id not in covered_ids]
    hits = [MisconceptionHit(misconception=m.id, quote=f"wrong about {m.id}", correction=m.correction)
            for m in question.misconceptions if m.id in misconceptions]
    return Assessment(question=question.id, depth=depth, answer_depth=depth, covered=covered, missed=missed,
                      misconceptions=hits, flags=list(flags))


def progress(follow_ups=0, max_follow_ups=3, stalls=0, probed=(), hinted=False) -> Progress:
    return Progress(follow_ups=follow_ups, max_follow_ups=max_follow_ups, stalls=stalls, probed=tuple(probed),
                    hinted=hinted)


def ids_at(question, *levels):
    return [kp.id for kp in question.key_points if kp.level in levels]


@pytest.fixture
def question(bank):
    return bank[QID]


def test_moves_on_at_expert_depth(question):
    everything = assessment_for(question, ids_at(question, 1, 2, 3, 4), 4)
    assert decide(question, everything, CandidateAction.answer, progress()).action == "move_on"
    # Even with key points left unshown, depth 4 ends the question.
    almost = assessment_for(question, ids_at(question, 1, 2, 3), 4)
    assert decide(question, almost, CandidateAction.answer, progress()).action == "move_on"


@pytest.mark.parametrize("max_follow_ups", [0, 1, 3, 6])
def test_moves_on_after_the_maximum_follow_ups(question, max_follow_ups):
    shallow = assessment_for(question, ids_at(question, 1)[:1], 1)
    assert decide(question, shallow, CandidateAction.answer,
                  progress(follow_ups=max_follow_ups, max_follow_ups=max_follow_ups)).action == "move_on"
    if max_follow_ups:
        assert decide(question, shallow, CandidateAction.answer,
                      progress(follow_ups=max_follow_ups - 1, max_follow_ups=max_follow_ups)).action == "follow_up"


def test_moves_on_after_two_stalls(question):
    shallow = assessment_for(question, ids_at(question, 1)[:1], 1)
    assert decide(question, shallow, CandidateAction.answer, progress(follow_ups=1, stalls=1)).action == "follow_up"
    assert decide(question, shallow, CandidateAction.answer, progress(follow_ups=2, stalls=2)).action == "move_on"


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_skip_moves_on_whatever_the_depth(question, depth):
    levels = [1, 2, 3][:depth]
    state = assessment_for(question, ids_at(question, *levels), depth)
    assert decide(question, state, CandidateAction.skip, progress()).action == "move_on"


@pytest.mark.parametrize(
    ("action", "flags"),
    [(CandidateAction.idk, [Flag.dont_know]), (CandidateAction.hint, []), (CandidateAction.answer, [Flag.dont_know])],
)
def test_one_hint_when_stuck_then_move_on(question, action, flags):
    shown = ids_at(question, 1)[:1]
    state = assessment_for(question, shown, 1, flags=flags)
    first = decide(question, state, action, progress(follow_ups=1))
    assert first.action == "hint"
    assert first.target in {kp.id for kp in question.key_points} - set(shown), "a hint points at a missing key point"
    missing_levels = [kp.level for kp in question.key_points if kp.id not in shown]
    assert question.key_point(first.target).level == min(missing_levels)
    second = decide(question, state, action, progress(follow_ups=2, hinted=True))
    assert second.action == "move_on"


def test_probes_a_stated_misconception_first(question):
    wrong = question.misconceptions[-1]
    state = assessment_for(question, ids_at(question, 1)[:1], 1, misconceptions=[wrong.id])
    first = decide(question, state, CandidateAction.answer, progress())
    assert (first.action, first.target) == ("follow_up", wrong.id)
    # Once probed, the next probe is the lowest-level missing key point.
    after = decide(question, state, CandidateAction.answer, progress(follow_ups=1, probed=[wrong.id]))
    missing = [kp for kp in question.key_points if kp.id not in ids_at(question, 1)[:1]]
    assert after.action == "follow_up"
    assert question.key_point(after.target).level == min(kp.level for kp in missing)


def test_below_reasoning_depth_probes_the_lowest_missing_level(question):
    state = assessment_for(question, ids_at(question, 1), 1)
    decision = decide(question, state, CandidateAction.answer, progress())
    assert decision.action == "follow_up"
    assert decision.target in ids_at(question, 2)


@pytest.mark.parametrize("qid", BANK_IDS)
def test_escalates_to_an_expert_probe_once_depth_is_3(bank, qid):
    question = bank[qid]
    # One level-3 point still missing: at depth 3 the interviewer goes for expert depth anyway.
    level_3 = ids_at(question, 3)
    state = assessment_for(question, ids_at(question, 1, 2) + level_3[:-1], 3)
    decision = decide(question, state, CandidateAction.answer, progress())
    assert (decision.action, decision.target) == ("follow_up", "expert:0")
    second = decide(question, state, CandidateAction.answer, progress(follow_ups=1, probed=["expert:0"]))
    if len(question.expert_probes) > 1:
        assert second.target == "expert:1"
    else:
        assert second.target != "expert:0"
    # At depth 2 there is no expert probe yet.
    shallow = assessment_for(question, ids_at(question, 1, 2), 2)
    early = decide(question, shallow, CandidateAction.answer, progress())
    assert early.target in ids_at(question, 3)


def _valid_targets(question, state) -> set[str]:
    return ({kp.id for kp in question.key_points} | {m.misconception for m in state.misconceptions}
            | {f"expert:{i}" for i in range(len(question.expert_probes))})


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
    prog = progress(follow_ups=data.draw(st.integers(0, 2)), stalls=data.draw(st.integers(0, 1)), probed=probed,
                    hinted=data.draw(st.booleans()))
    decision = decide(question, state, action, prog)
    if decision.action == "follow_up":
        assert decision.target not in probed
        assert decision.target in _valid_targets(question, state)
    elif decision.action == "hint":
        assert not prog.hinted, "one hint per question"
        assert decision.target in {kp.id for kp in question.key_points}
    else:
        assert decision.target is None
