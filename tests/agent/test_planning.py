"""make_plan(): which questions a session asks, and in which order."""

from __future__ import annotations

import itertools

import pytest
from agent_helpers import BANK_IDS

from agent.planning import PlanError, PlanRequest, make_plan


def _share_topic(bank, a: str, b: str) -> bool:
    return bool(set(bank[a].topics) & set(bank[b].topics))


def _separable(bank, ids: list[str]) -> bool:
    """Whether some order of these questions has no two neighbours sharing a topic."""

    def extend(order: list[str], rest: list[str]) -> bool:
        if not rest:
            return True
        return any(
            extend([*order, q], [r for r in rest if r != q])
            for q in rest
            if not order or not _share_topic(bank, order[-1], q)
        )

    return extend([], list(ids))


@pytest.mark.parametrize("n", [1, 2, 5, 6, 12, 35])
def test_plans_n_distinct_bank_questions(bank, n):
    plan = make_plan(bank, PlanRequest(questions=n, seed=1))
    assert len(plan) == n
    assert len(set(plan)) == n
    assert set(plan) <= set(bank)


def test_seed_makes_the_plan_reproducible(bank):
    for seed in range(5):
        request = PlanRequest(questions=6, seed=seed)
        assert make_plan(bank, request) == make_plan(bank, request)
    plans = {tuple(make_plan(bank, PlanRequest(questions=6, seed=seed))) for seed in range(10)}
    assert len(plans) > 1, "different seeds should give different plans"


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_both_sections_present(bank, n):
    for seed in range(20):
        plan = make_plan(bank, PlanRequest(questions=n, seed=seed))
        assert {bank[q].section for q in plan} == {"algorithm", "infrastructure"}, plan


@pytest.mark.parametrize("section", ["algorithm", "infrastructure"])
def test_one_section_only(bank, section):
    plan = make_plan(bank, PlanRequest(questions=5, section=section, seed=3))
    assert len(plan) == 5
    assert {bank[q].section for q in plan} == {section}


def test_topic_filter(bank):
    topic = bank["algo-07"].topics[0]
    with_topic = [q.id for q in bank.questions() if topic in q.topics]
    plan = make_plan(bank, PlanRequest(questions=len(with_topic), topic=topic, seed=0))
    assert sorted(plan) == sorted(with_topic)


def test_unknown_topic_is_a_plan_error_listing_topics(bank):
    with pytest.raises(PlanError) as err:
        make_plan(bank, PlanRequest(questions=3, topic="no-such-topic"))
    for topic in bank["algo-07"].topics:
        assert topic in str(err.value)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_no_neighbours_share_a_topic_when_avoidable(bank, n):
    offenders = []
    for seed in range(40):
        plan = make_plan(bank, PlanRequest(questions=n, seed=seed))
        clash = any(_share_topic(bank, a, b) for a, b in itertools.pairwise(plan))
        if clash and _separable(bank, plan):
            offenders.append((seed, plan, [bank[q].topics for q in plan]))
    assert offenders == [], (
        f"{len(offenders)} plans put topic-sharing questions next to each other needlessly, "
        f"e.g. seed={offenders[0][0]}: {offenders[0][1]} with topics {offenders[0][2]}"
    )


def test_explicit_ids_are_kept_in_order(bank):
    ids = ["infra-12", "algo-07", "algo-01", "infra-10"]
    assert make_plan(bank, PlanRequest(ids=ids, questions=2, seed=5)) == ids


def test_unknown_id_is_a_plan_error_listing_valid_ids(bank):
    with pytest.raises(PlanError) as err:
        make_plan(bank, PlanRequest(ids=["algo-07", "algo-99"]))
    message = str(err.value)
    assert "algo-99" in message
    for qid in BANK_IDS:
        assert qid in message


def test_recent_questions_are_avoided(bank):
    recent = make_plan(bank, PlanRequest(questions=12, seed=7))
    for seed in range(10):
        plan = make_plan(bank, PlanRequest(questions=6, seed=seed, recent=recent))
        assert not set(plan) & set(recent), plan


def test_recent_questions_are_reused_only_when_nothing_else_is_left(bank):
    algorithm = [q.id for q in bank.questions() if q.section == "algorithm"]
    recent = algorithm[:-2]
    plan = make_plan(bank, PlanRequest(questions=4, section="algorithm", seed=0, recent=recent))
    assert len(plan) == 4
    assert set(algorithm[-2:]) <= set(plan)


def test_named_questions_come_first_and_fill_draws_the_rest_as_without_them(bank):
    request = PlanRequest(ids=["algo-05"], questions=3, section="infrastructure", seed=1, fill=True)
    plan = make_plan(bank, request)
    assert plan[0] == "algo-05" and len(set(plan)) == 3
    assert {bank[qid].section for qid in plan[1:]} == {"infrastructure"}
    assert make_plan(bank, request.model_copy(update={"fill": False})) == ["algo-05"], "named only: the plan"
    assert make_plan(bank, PlanRequest(ids=["algo-05", "algo-07"], questions=1, fill=True)) == ["algo-05", "algo-07"]
