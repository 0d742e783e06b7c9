"""Naming the wrong member of a family (k1 for k3, slime for AReaL, TP for EP) credits nothing for
a point about the right one; naming both, or contrasting them, still can."""

from __future__ import annotations

import pytest

from agent.judge.siblings import members, names_a_sibling_instead
from knowledge.bank import load_bank

BANK = load_bank()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tensor, pipeline, context/sequence and expert parallelism", {"tp", "pp", "cp", "ep"}),
        ("张量、流水线和专家并行", {"tp", "pp", "ep"}),
        ("the expert weights are replicated with data parallelism", {"dp"}),
        ("ep shards whole experts", {"ep"}),
    ],
)
def test_parallelism_is_read_in_lists_and_abbreviations(text, expected):
    assert members(text)["parallelism"] == expected


def test_kimi_model_names_are_not_kl_estimators():
    assert "kl-estimator" not in members("kimi k1.5 partial rollouts and kimi k2 thinking")
    assert members("k3 is unbiased, k1 is not")["kl-estimator"] == {"k1", "k3"}


@pytest.mark.parametrize(
    ("qid", "point", "sentence", "swapped"),
    [
        ("algo-08", "k3-estimator", "GRPO 用的是 k1 估计器，它在每个 token 上都是非负的。", True),
        ("algo-08", "k3-estimator", "GRPO 用的是 k3 估计器，它在每个 token 上都是非负的。", False),
        ("algo-08", "k3-estimator", "Unlike k1, the estimator GRPO uses is non-negative per token.", False),
        ("infra-13", "areal-sync-is-the-problem", "slime blames synchronous waiting on the long tail.", True),
        ("infra-13", "areal-sync-is-the-problem", "AReaL blames synchronous waiting on the long tail.", False),
        ("infra-10", "ep-shards-experts", "Tensor parallelism puts whole experts on different GPUs.", True),
        ("infra-10", "ep-shards-experts", "Each GPU holds whole experts and tokens travel to them.", False),
    ],
)
def test_a_sibling_named_instead_of_the_points_own_member(qid, point, sentence, swapped):
    assert names_a_sibling_instead(BANK[qid].key_point(point), sentence) is swapped


def test_a_system_cited_as_an_example_is_not_what_the_point_is_about():
    """infra-14's staleness point cites AReaL's eta as one example; verl's one-step overlap is another."""
    point = BANK["infra-14"].key_point("bounding-staleness")
    assert "areal" in point.statement.lower()
    assert not names_a_sibling_instead(point, "verl has one-step off-policy: generation runs one step ahead.")
