"""Ratios upside down are wrong claims whatever the letters: an importance weight inside its
expectation (blind trial 36: "E_p[f(x)] = E_q[f(x) * q(x)/p(x)]" was credited as the identity it
reverses) and DPO's implicit reward with the reference on top (blind trial 37)."""

from __future__ import annotations

import pytest

from agent.judge.upside_down import upside_down
from knowledge.bank import load_bank
from knowledge.facts import REVERSED_DPO_REWARD, REVERSED_WEIGHT


@pytest.mark.parametrize(
    "sentence, wrong",
    [
        (
            "Importance sampling reweights: E_p[f(x)] = E_q[f(x) * q(x)/p(x)], so we can reuse samples.",
            [REVERSED_WEIGHT],
        ),
        ("正确的恒等式是 E_p[f] = E_q[(q/p)·f]。", [REVERSED_WEIGHT]),
        ("E_{π_old}[π_old(a|s)/π_θ(a|s) A] is the surrogate.", [REVERSED_WEIGHT]),
        ("E_p[f(x)] = E_q[f(x) p(x)/q(x)] wherever q covers p.", []),
        ("E_q[(p/q) f] equals E_p[f].", []),
        ("E_{π_old}[π_θ(a|s)/π_old(a|s) A] is PPO's surrogate.", []),
        ("E_p[f q/p] = E_q[f], read the other way.", []),
        # a log-ratio under the policy's own expectation is a KL, not a weight
        ("The objective is E_π[r] − β E_π[log π/π_ref].", []),
        ("The q/p weight blows up where p is small.", []),
        ("DPO 的隐式奖励就是 r̂(x,y) = β·log[π_ref(y|x) / π_θ(y|x)] + β·log Z(x)。", [REVERSED_DPO_REWARD]),
        ("r(x,y) = beta * log(pi_ref(y|x)/pi_theta(y|x)) + beta * log Z(x)", [REVERSED_DPO_REWARD]),
        ("In DPO the reward is β log π_ref(y|x)/π_θ(y|x), up to a per-prompt constant.", [REVERSED_DPO_REWARD]),
        ("The implicit reward is β log(π_θ(y|x)/π_ref(y|x)) + β log Z(x).", []),
        # the KL-shaped reward of RLHF and k3 put the reference on top, rightly
        ("The shaped reward is r − β log(π_θ/π_ref), that is r + β log(π_ref/π_θ).", []),
        ("k3 = π_ref/π_θ − log(π_ref/π_θ) − 1 is unbiased and never negative.", []),
        ("r = −β log(π_ref/π_θ) + β log Z(x)", []),
    ],
)
def test_a_ratio_written_upside_down_is_read_by_its_shape(sentence, wrong):
    assert upside_down(sentence) == wrong


def test_the_upside_down_weight_is_charged_and_corrected_with_the_right_identity(scorer):
    question = load_bank()["algo-04"]
    sentence = "Importance sampling enters whenever the sampler differs: E_p[f(x)] = E_q[f(x) * q(x)/p(x)]."
    hits = scorer.assess(question, sentence, None).misconceptions
    assert [h.misconception for h in hits] == [REVERSED_WEIGHT]
    assert "p(x)/q(x)" in hits[0].correction


@pytest.mark.parametrize(
    "qid, sentence, wrong",
    [
        # no cue phrase writes these: only the shape does
        (
            "algo-04",
            "PPO's surrogate is E_{π_old}[π_old(a|s)/π_θ(a|s) A], so old samples can be reused.",
            REVERSED_WEIGHT,
        ),
        (
            "algo-10",
            "DPO 的隐式奖励就是 r̂(x,y) = β·log[π_ref(y|x) / π_θ(y|x)] + β·log Z(x)，所以不用单独训练奖励模型。",
            REVERSED_DPO_REWARD,
        ),
    ],
)
def test_the_judge_charges_a_ratio_written_upside_down(scorer, qid, sentence, wrong):
    """The shape reader is part of the judge, not only of this module (a refactor once unplugged it)."""
    hits = scorer.assess(load_bank()[qid], sentence, None).misconceptions
    assert wrong in [h.misconception for h in hits]
