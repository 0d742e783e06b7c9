"""A wrong claim read by meaning needs its wrong part (`Misconception.needs`): a trial's right "In DPO
there is no explicit reward model" was read as "DPO has no reward model, so it cannot be hacked" and
corrected at the close ("that isn't right")."""

from __future__ import annotations

import pytest

from knowledge.bank import load_bank

BANK = load_bank()


@pytest.mark.parametrize(
    "answer",
    [
        "In DPO there is no explicit reward model; the reward is implicit in the policy's log ratio to the reference.",
        "DPO 没有显式的奖励模型，奖励藏在策略和参考模型的 log ratio 里。",
    ],
)
def test_the_right_half_of_a_wrong_claim_is_not_charged(scorer, answer):
    result = scorer.assess(BANK["algo-10"], answer, None)
    assert "no-rm-no-hacking" not in [m.misconception for m in result.misconceptions]


def test_the_wrong_part_said_in_other_words_is_still_charged(scorer):
    result = scorer.assess(
        BANK["algo-10"], "Since DPO has no reward model, there is nothing for the policy to hack.", None
    )
    assert "no-rm-no-hacking" in [m.misconception for m in result.misconceptions]
    assert "hack" in " ".join(BANK["algo-10"].misconception("no-rm-no-hacking").needs)
