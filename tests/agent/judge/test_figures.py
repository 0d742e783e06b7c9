"""A key point that *is* its figures (`figures: true` in the bank) is shown only by a sentence that
gives a number or a formula: naming the paper or the lab that has the figures is not giving them."""

from __future__ import annotations

import pytest

from agent.judge.scoring import RubricScorer
from agent.text import gives_figure
from knowledge.bank import load_bank
from knowledge.models import Question

BANK = load_bank()


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("AReaL reports about 2.77x speedup.", True),
        ("OPD is roughly ten times cheaper than RL.", True),
        ("It saves about an order of magnitude of compute.", True),
        ("R ≈ -a·exp(H) + b", True),
        ("每 token 大概 56 KB", True),
        ("快了两倍多", True),
        ("算力省了一个数量级", True),
        ("Thinking Machines wrote a blog post about it.", False),
        # Digits inside a name are not figures.
        ("The Qwen3 report compares it with RL on H800s.", False),
        ("Llama-3 used it too.", False),
        # 十分 is "very", 一个 is "a": neither gives a number.
        ("这个结果十分重要，是一个很好的例子。", False),
    ],
)
def test_a_figure_is_a_number_or_a_formula_not_a_name(sentence, expected):
    assert gives_figure(sentence) is expected


def _without_figures_rule(question: Question) -> Question:
    points = [kp.model_copy(update={"figures": False}) for kp in question.key_points]
    return question.model_copy(update={"key_points": points})


def test_naming_where_the_figures_are_does_not_show_a_figures_point(scorer: RubricScorer):
    question = BANK["algo-17"]
    name_drop = (
        "Thinking Machines published a blog post comparing on-policy distillation with RL, "
        "and the Qwen3 report has the same comparison."
    )
    credited = {e.key_point for e in scorer.assess(_without_figures_rule(question), name_drop, None).covered}
    assert "figures-lineage" in credited, "the sentence reads like the point: the rule is what keeps it out"
    assert "figures-lineage" not in {e.key_point for e in scorer.assess(question, name_drop, None).covered}


def test_a_sentence_with_the_figures_still_shows_the_point(scorer: RubricScorer):
    figures = "Thinking Machines reported that on-policy distillation needs 9 to 30 times less compute than RL."
    assert "figures-lineage" in {e.key_point for e in scorer.assess(BANK["algo-17"], figures, None).covered}
