"""Formulas written the other way round (`reversed_formulas` in knowledge/facts.yaml): e5 reads a
formula and its reverse as one claim, so a blind trial's upside-down importance ratio and flipped
Bradley-Terry loss were credited as the points they reverse ("Good point: “…”"), and trial 32's
cross-entropy as the KL plus the model's entropy. A formula with a term left out is read the same way
(DPO's reward as the reference's log-probability alone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.brains.request import WriteRequest
from agent.brains.wording import phrase
from agent.interview.policy import Limits, decide
from agent.state import CandidateAction, QuestionProgress
from agent.text import asserts
from knowledge.bank import load_bank
from knowledge.facts import load_facts

BANK = load_bank()
REVERSED = {m.id: m for m in load_facts().reversed_formulas}
NOTES = Path(__file__).resolve().parents[3] / "knowledge" / "notes"


@pytest.mark.parametrize(
    ("qid", "answer", "wrong"),
    [
        (
            "algo-04",
            "重要性采样主要是解决 off-policy 的问题：数据是旧策略采出来的，所以要给每个样本乘一个权重来纠正分布的偏差。"
            "PPO 里的重要性采样比率是旧策略概率除以新策略概率，也就是 π_old(a|s)/π_θ(a|s)，然后再做 clip。",
            "reversed-importance-ratio",
        ),
        (
            "algo-19",
            "The reward model is trained on preference pairs with a Bradley-Terry model. "
            "Its loss is -log sigmoid(r_rejected - r_chosen), which pushes the rejected score up.",
            "reversed-bradley-terry-loss",
        ),
        (
            # Blind trial 32: credited as the decomposition it gets wrong.
            "algo-02",
            "Cross-entropy decomposes as CE(p,q) = KL(p||q) + H(q), the KL plus the entropy of the model "
            "distribution. So minimising cross-entropy is the same as minimising the KL.",
            "cross-entropy-with-model-entropy",
        ),
        (
            # Blind trial 35: the advantage with V added, unread, the question closed at depth 4.
            "algo-01",
            "Pure policy gradient has very high variance, so the critic provides a learned baseline: the gradient "
            "becomes E[grad log pi(a|s) * A(s,a)], and the advantage is A(s,a) = Q(s,a) + V(s), which keeps the "
            "estimator unbiased while cutting variance.",
            "advantage-plus-value",
        ),
        (
            # A dev bluff's reward with the policy left out, credited as the implicit reward it misstates.
            "algo-10",
            "DPO drops the reward model and lets the reference model score the responses instead: "
            "r = β·log π_ref(y|x), and the policy only learns to rank its answers by that score.",
            "dpo-reward-from-reference-alone",
        ),
    ],
)
def test_a_reversed_formula_is_charged_and_challenged(scorer, qid, answer, wrong):
    question = BANK[qid]
    result = scorer.assess(question, answer, None)
    assert wrong in [m.misconception for m in result.misconceptions]
    assert result.depth <= 1
    decision = decide(question, QuestionProgress(assessment=result), CandidateAction.answer, Limits(follow_ups=3))
    assert wrong in (decision.challenge, decision.target)
    text = phrase(WriteRequest(question, decision, result, (), "en", 1))
    challenge = REVERSED[wrong].challenge
    assert challenge is not None and challenge.en in text


@pytest.mark.parametrize(
    "sentence",
    [
        "The ratio is π_θ/π_old, the new policy over the one that sampled.",
        "PPO's ratio is pi_theta / pi_old, not pi_old / pi_theta.",
        "Sequences are masked when the mean log(pi_old/pi_theta) exceeds a threshold.",
        "The loss is -log sigmoid(r_chosen - r_rejected).",
        "DPO's gradient weights each pair by sigmoid(r_l - r_w), the implicit model's mistake.",
        "比率是新策略概率除以旧策略概率。",
        "CE(p, q) = H(p) + KL(p||q), and H(p) does not depend on the model.",
        "With q the data distribution, H(q, p) = H(q) + KL(q||p).",
        "It is not KL + H(q) but KL + H(p).",
        "交叉熵 = KL(p‖q) + H(p)，加上的是数据分布的熵。",
        "A(s,a) = Q(s,a) - V(s), so Q(s,a) = A(s,a) + V(s).",
        "The dueling head writes Q = V + A.",
        "r(x,y) = β·log π_θ(y|x) − β·log π_ref(y|x), the policy's log-ratio to the reference.",
        "DPO 的隐式奖励是 β·log(π_θ(y|x)/π_ref(y|x))，参考模型并不给回答打分。",
    ],
)
def test_the_right_way_round_is_left_alone(sentence):
    assert not [m.id for m in REVERSED.values() if asserts(sentence, m.cues.all())]


def test_our_own_text_never_writes_a_reversed_formula():
    """Our notes, statements, model answers and corrections are right: a form they use is no sign of
    the reverse (DPO's gradient weight σ(r_l − r_w) and V3.2's masking by log(π_old/π_θ) are there)."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(NOTES.glob("*.md"))]
    for question in BANK.values():
        texts += [question.model_answer, question.model_answer_zh or ""]
        texts += [f"{kp.statement} {kp.statement_zh or ''}" for kp in question.key_points]
        texts += [f"{m.correction} {m.correction_zh or ''}" for m in question.misconceptions]
    said = [
        (wrong.id, line)
        for text in texts
        for line in text.splitlines()
        for wrong in REVERSED.values()
        if asserts(line, wrong.cues.all())
    ]
    assert said == []
