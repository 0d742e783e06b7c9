"""An importance weight upside down inside its expectation is a wrong claim whatever the letters
(blind trial 36: "E_p[f(x)] = E_q[f(x) * q(x)/p(x)]" was credited as the identity it reverses)."""

from __future__ import annotations

import pytest

from agent.judge.upside_down import upside_down_weights
from knowledge.bank import load_bank
from knowledge.facts import REVERSED_WEIGHT


@pytest.mark.parametrize(
    "sentence, wrong",
    [
        ("Importance sampling reweights: E_p[f(x)] = E_q[f(x) * q(x)/p(x)], so we can reuse samples.", True),
        ("正确的恒等式是 E_p[f] = E_q[(q/p)·f]。", True),
        ("E_{π_old}[π_old(a|s)/π_θ(a|s) A] is the surrogate.", True),
        ("E_p[f(x)] = E_q[f(x) p(x)/q(x)] wherever q covers p.", False),
        ("E_q[(p/q) f] equals E_p[f].", False),
        ("E_{π_old}[π_θ(a|s)/π_old(a|s) A] is PPO's surrogate.", False),
        ("E_p[f q/p] = E_q[f], read the other way.", False),
        # a log-ratio under the policy's own expectation is a KL, not a weight
        ("The objective is E_π[r] − β E_π[log π/π_ref].", False),
        ("The q/p weight blows up where p is small.", False),
    ],
)
def test_a_weight_with_the_sampler_on_top_is_upside_down(sentence, wrong):
    assert upside_down_weights(sentence) == ([REVERSED_WEIGHT] if wrong else [])


def test_the_upside_down_weight_is_charged_and_corrected_with_the_right_identity(scorer):
    question = load_bank()["algo-04"]
    sentence = "Importance sampling enters whenever the sampler differs: E_p[f(x)] = E_q[f(x) * q(x)/p(x)]."
    hits = scorer.assess(question, sentence, None).misconceptions
    assert [h.misconception for h in hits] == [REVERSED_WEIGHT]
    assert "p(x)/q(x)" in hits[0].correction
