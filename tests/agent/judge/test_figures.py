"""A key point that *is* its figures (`figures: true` in the bank) is shown only by a sentence that
gives a number or a formula: naming the paper or the lab that has the figures is not giving them,
and giving only figures that are not the point's ("ProRL trained a 70B model") is not either."""

from __future__ import annotations

import pytest

from agent.judge import claims
from agent.judge.claims import cannot_show, figure_references
from agent.judge.scoring import RubricScorer
from agent.text import counts_contradict, factors_contradict, figures_contradict, gives_figure
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


def test_naming_where_the_figures_are_does_not_show_a_figures_point(scorer: RubricScorer, monkeypatch):
    question = BANK["algo-17"]
    name_drop = (
        "Thinking Machines published a blog post comparing on-policy distillation with RL, "
        "and the Qwen3 report has the same comparison."
    )
    assert "figures-lineage" not in {e.key_point for e in scorer.assess(question, name_drop, None).covered}
    # A cue phrase of an expert point now needs the head at 0.9 as well; with the old bar (0.3) the
    # sentence's cue credits the point, and the figures rule alone keeps it out, whoever reads it.
    monkeypatch.setattr(claims, "CUE_VETO_BY_LEVEL", dict.fromkeys(range(1, 5), claims.CUE_VETO))
    credited = {e.key_point for e in scorer.assess(_without_figures_rule(question), name_drop, None).covered}
    assert "figures-lineage" in credited, "the sentence reads like the point: the rule is what keeps it out"
    assert "figures-lineage" not in {e.key_point for e in scorer.assess(question, name_drop, None).covered}


def test_a_sentence_with_the_figures_still_shows_the_point(scorer: RubricScorer):
    figures = "Thinking Machines reported that on-policy distillation needs 9 to 30 times less compute than RL."
    assert "figures-lineage" in {e.key_point for e in scorer.assess(BANK["algo-17"], figures, None).covered}


PRORL = BANK["algo-16"].key_point("prorl-figures")


@pytest.mark.parametrize(
    ("sentence", "contradicts"),
    [
        # A user trial: wrong figures, confidently given.
        ("ProRL 在 70B 模型上训练了两万多步。", True),
        ("ProRL trained for 20k steps on a 7B model.", True),
        ("Math went up about 40%.", True),
        # The point's figures, written another way: a multiplier, digits, a range, a spelled scale.
        ("A 1.5B model, 2k+ steps, 136K problems.", False),
        ("用的是 1.5B 的模型，训练了 2000 多步，约 13.6 万道题。", False),
        ("They used about 136 thousand problems.", False),
        ("Logic puzzles improved by roughly 55%.", False),
        # One right figure among others is enough; no written figure, or only a year, is no contradiction.
        ("It ran 2,000 steps; I think the model was 7B.", False),
        # ... but a model's size beside other figures sets the scene: the right size rescues nothing.
        ("It was the 1.5B model, trained for 200 steps on 5,000 problems.", True),
        ("Math went up about fifteen percent.", False),
        ("It came out in 2025.", False),
    ],
)
def test_written_figures_agree_with_the_points_or_contradict_it(sentence, contradicts):
    assert figures_contradict([PRORL.statement, PRORL.statement_zh or ""], sentence) is contradicts


def test_an_overhead_in_percent_agrees_with_the_same_factor():
    point = BANK["infra-12"].key_point("figures")
    references = [point.statement, point.statement_zh or ""]
    assert not figures_contradict(references, "Batch invariance cost about a 1.6x slowdown in vLLM.")
    assert figures_contradict(references, "Batch invariance costs about 5x in vLLM.")


def test_wrong_figures_do_not_show_a_figures_point(scorer: RubricScorer):
    question = BANK["algo-16"]
    wrong = "ProRL trained a 70B model for over 20,000 steps on about 5 million problems."
    right = "ProRL trained a 1.5B model for over 2,000 steps on about 136K problems."
    assert "prorl-figures" not in {e.key_point for e in scorer.assess(question, wrong, None).covered}
    assert "prorl-figures" in {e.key_point for e in scorer.assess(question, right, None).covered}


def test_a_wrong_memory_account_does_not_show_the_bytes_per_parameter(scorer: RubricScorer):
    """Blind trial 32: "8 bytes per parameter, so a 7B policy needs ~56 GB" was credited as the
    16-bytes accounting (its cue words: fp32 master weights, Adam moments) and affirmed."""
    question = BANK["infra-01"]
    wrong = (
        "With mixed-precision Adam the full trainable state (bf16 weights, bf16 grads, fp32 master weights and "
        "the two Adam moments) is about 8 bytes per parameter, so a 7B policy needs about 56 GB."
    )
    right = wrong.replace("8 bytes", "16 bytes").replace("56 GB", "112 GB")
    assert "bytes-per-param" not in {e.key_point for e in scorer.assess(question, wrong, None).covered}
    assert "bytes-per-param" in {e.key_point for e in scorer.assess(question, right, None).covered}


def test_a_factor_must_be_the_points_whatever_else_agrees():
    """A key-point dev hard negative: "Two SUM reductions over 64 ranks inflate the value by 128x"
    was credited as algo-09's detection figures (4096x), the 64 ranks agreeing. Not a figures point,
    but where our texts of a point give a factor, the factor a sentence claims must be one of theirs."""
    point = BANK["algo-09"].key_point("detection-figures")
    references = figure_references("algo-09", point)
    wrong = "Two SUM reductions over 64 ranks inflate the value by 128x."
    assert factors_contradict(references, wrong)
    assert cannot_show(BANK["algo-09"], point, wrong)  # whoever reads it, judge by meaning or model
    assert not factors_contradict(references, "Over 64 ranks, two SUMs make it 4096 times too large.")
    assert not factors_contradict(references, "64 张卡上 SUM 了两次，值放大了 4096 倍。")
    assert not factors_contradict(references, "Summing twice over 64 ranks inflates it by 64 squared.")
    # Texts that give no factor judge none: ProRL's figures are steps, problems and percentages.
    assert not factors_contradict([PRORL.statement, PRORL.statement_zh or ""], "It trained 128x longer than before.")


@pytest.mark.parametrize(
    ("sentence", "contradicts"),
    [
        ("That exchange is a single all-to-all per MoE layer, after the experts run.", True),
        ("Only one all-to-all is needed per layer.", True),
        ("每层只做一次 all-to-all，把结果收回来。", True),
        ("Each MoE layer does two all-to-alls, dispatch and combine.", False),
        ("每层两次 all-to-all：dispatch 和 combine。", False),
        # A count of one not stressed is an article: this counts two.
        ("There is one all-to-all for dispatch and one for combine.", False),
        ("The all-to-all volume grows with tokens times top-k.", False),
    ],
)
def test_a_count_the_point_makes_two_or_more_must_not_be_given_otherwise(sentence, contradicts):
    """A trial's wrong number ("a single all-to-all per MoE layer") had been the evidence for the
    point that says two."""
    point = BANK["infra-10"].key_point("all-to-all-dispatch-combine")
    assert counts_contradict([point.statement, point.statement_zh or ""], sentence) is contradicts
    if contradicts:
        assert cannot_show(BANK["infra-10"], point, sentence)  # whoever reads it


def test_a_miscounted_point_is_not_credited_but_asked_about(scorer: RubricScorer):
    question = BANK["infra-10"]
    how = (
        "dispatch sends each token's hidden state to the GPUs that own its experts, and combine sends the outputs back"
    )
    wrong, right = f"Each MoE layer needs a single all-to-all: {how}.", f"Each MoE layer needs two all-to-alls: {how}."
    read = scorer.assess(question, wrong, None)
    assert "all-to-all-dispatch-combine" not in {e.key_point for e in read.covered}
    assert "all-to-all-dispatch-combine" in {e.key_point for e in read.near_misses}
    assert "all-to-all-dispatch-combine" in {e.key_point for e in scorer.assess(question, right, None).covered}
