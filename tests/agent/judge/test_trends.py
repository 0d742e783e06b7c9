"""Trends stated the wrong way round (`trends` in knowledge/facts.yaml, agent/judge/trends.py): a TUI
trial's "β 越大，KL 约束越弱……把 β 调小" (algo-10) was accepted and scored 4 of 4, e5 reading it as
the point it reverses."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.brains.request import WriteRequest
from agent.brains.wording import phrase
from agent.interview.policy import Limits, decide
from agent.judge.trends import reversed_trends, states_right
from agent.state import CandidateAction, QuestionProgress
from agent.text import sentences
from knowledge.bank import load_bank
from knowledge.facts import load_facts, misattributions, trend_id

BANK = load_bank()
NOTES = Path(__file__).resolve().parents[3] / "knowledge" / "notes"


def test_the_trials_reversed_beta_is_charged_and_challenged(scorer):
    question = BANK["algo-10"]
    answer = (
        "DPO 的 β 控制策略偏离参考模型的程度。β 越大，KL 约束越弱，策略可以更自由地偏离参考模型；"
        "所以如果发现 reward hacking，应该把 β 调小，让它更贴近参考模型。"
    )
    result = scorer.assess(question, answer, None)
    wrong = trend_id("kl-coefficient")
    assert wrong in [m.misconception for m in result.misconceptions]
    assert result.depth <= 1
    decision = decide(question, QuestionProgress(assessment=result), CandidateAction.answer, Limits(follow_ups=3))
    assert wrong in (decision.challenge, decision.target)
    challenge = misattributions()[wrong].challenge
    assert challenge is not None and challenge.zh in phrase(WriteRequest(question, decision, result, (), "zh", 1))


@pytest.mark.parametrize(
    ("sentence", "trend"),
    [
        ("Increasing beta lets the policy wander further from the reference model.", "kl-coefficient"),
        ("想让策略更贴近参考模型，就把 β 调小。", "kl-coefficient"),
        ("With λ close to 1 the advantage has low variance but a lot of bias.", "gae-lambda"),
        ("GAE 里 λ 越小，方差反而越大。", "gae-lambda"),
        ("A bigger clip range makes PPO more conservative.", "ppo-clip-range"),
        ("Lower the temperature if you want more diverse rollouts.", "sampling-temperature"),
        ("温度调高以后输出更确定。", "sampling-temperature"),
        ("The staler the rollouts, the more on-policy the batch.", "rollout-staleness"),
        ("Raising G in GRPO makes the advantages noisier.", "grpo-group-size"),
        ("γ 越大，智能体越短视。", "discount-gamma"),
        ("In decoding, a larger batch lowers throughput.", "decode-batch-size"),
        ("At large k the RL model beats its base by even more.", "passk-rl-vs-base"),
        # A user trial's plant (trial 30):
        ("For PPO epochs, reusing each batch for more epochs keeps training closer to on-policy.", "ppo-epochs"),
        ("每批数据上多跑几个 epoch，训练就更接近 on-policy。", "ppo-epochs"),
        # Trial 35's plant (algo-18): Yue et al. told the wrong way round, unread.
        (
            "Yue et al. showed that at large k, around pass@256, the RL-trained model solves more problems than "
            "its base model.",
            "passk-rl-vs-base",
        ),
        ("在 pass@256 上 RL 模型比基座解出更多的题。", "passk-rl-vs-base"),
        # Trial 37's plant (infra-14): a looser staleness bound said to cost throughput.
        (
            "Loosening the bound actually lowers throughput: in AReaL's ablation generation throughput drops as "
            "eta goes from 1 to 8, so small eta is also the fast setting.",
            "staleness-bound-throughput",
        ),
        ("放宽 staleness 上限会让吞吐下降。", "staleness-bound-throughput"),
        # Trial 42's plants (algo-06, infra-14): the KL coefficient said to push the policy away, and a
        # looser staleness bound said to calm the importance weights.
        (
            "The KL penalty in GRPO encourages exploration: the larger the KL coefficient, the more the policy "
            "is pushed away from the reference model to try new solutions.",
            "kl-coefficient",
        ),
        (
            "其实 KL 惩罚项也是用来鼓励探索的：KL 系数越大，策略就越被推着离开参考模型，去尝试新的解法。",
            "kl-coefficient",
        ),
        (
            "A larger staleness bound lowers the variance of the importance weights, because each batch mixes "
            "data from more policy versions and the ratios average out.",
            "staleness-weight-variance",
        ),
        ("staleness 上限越大，重要性权重的方差越小。", "staleness-weight-variance"),
    ],
)
def test_a_trend_turned_round_is_read_as_its_wrong_claim(sentence, trend):
    assert reversed_trends(sentence) == [trend_id(trend)]


@pytest.mark.parametrize(
    "sentence",
    [
        "A larger β keeps the policy closer to the reference, while a smaller β lets it drift further.",
        "β 越大，KL 约束越强，策略越贴近参考模型；β 越小越容易跑偏。",
        "Larger λ lowers the bias but raises the variance.",
        "调小 λ 可以用一点 bias 去换更低的 variance。",
        "Widening ε lets each update move the policy further from the old one.",
        "The higher the temperature, the more random the samples.",
        "Fresher rollouts are closer to on-policy.",
        "rollout 越旧，差距越大，越需要重要性采样修正。",
        "With a larger group the baseline has lower variance.",
        "Decoding is memory-bound, so a larger batch raises throughput.",
        "RL models win at pass@1, but at pass@256 the base model overtakes them.",
        "RL's advantage is at low k, and with enough samples the base model surpasses it.",
        "At pass@1 the RL-trained model solves more problems than its base model, but at pass@256 the base catches up.",
        "More PPO epochs on the same batch make the update more off-policy, so the clip fraction climbs.",
        "只跑一个 epoch 最接近 on-policy。",
        "Loosening the bound raises throughput, because rollout workers wait less, but the data gets more off-policy.",
        "staleness 上限越大，吞吐越高，但数据越 off-policy。",
        "With eta = 0 the system is synchronous and throughput is lowest; raising eta to 4 recovers most of the speedup.",
        "KL 系数越大，策略越不容易离开参考模型。",
        "A larger beta stops the policy from being pushed away from the reference.",
        "A larger staleness bound raises the variance of the importance weights.",
        "staleness 上限越大，重要性权重的方差越大。",
        # Negated, asked, or a reason rather than an effect: no claim of direction to judge.
        "A larger β does not let the policy drift further.",
        "Does a larger β keep the policy closer to the reference?",
        "It's a misreading of Yue et al. to say RL pulls ahead at large k.",
        "Sampling temperature is something I'd keep very low, close to greedy: high temperature injects random tokens.",
        "DAPO widened epsilon to 0.28, which lets tokens move further per update.",
        "PPO clips the probability ratio to 1 - epsilon and 1 + epsilon, because it keeps the update small.",
    ],
)
def test_the_right_way_round_is_left_alone(sentence):
    assert reversed_trends(sentence) == []


def test_our_own_text_never_turns_a_trend_round():
    """Our notes, statements, model answers, hints and corrections are right: no sentence of them
    (as the judge reads an answer, sentence by sentence) turns a trend round. The bank's wrong claims
    and their cues may, and are not read here."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(NOTES.glob("*.md"))]
    for question in BANK.values():
        texts += [question.model_answer, question.model_answer_zh or ""]
        for kp in question.key_points:
            texts += [kp.statement, kp.statement_zh or ""]
            texts += [h.en + "\n" + h.zh for h in kp.hints]
        texts += [f"{m.correction}\n{m.correction_zh or ''}" for m in question.misconceptions]
    for trend in load_facts().trends:
        texts += [trend.correction, trend.correction_zh]
    said = [(s, reversed_trends(s)) for text in texts for s in sentences(text) if reversed_trends(s)]
    assert said == []


def test_a_trend_turned_round_is_no_evidence_for_a_point_that_names_its_quantity():
    """A hard negative of algo-02 ("a larger beta lets the policy move further") was credited as the
    point on the KL-regularised optimum, which names β; the same sentence the right way round still can."""
    from agent.judge.claims import cannot_show

    question = BANK["algo-02"]
    optimum = next(kp for kp in question.key_points if kp.id == "kl-regularized-rl-optimum")
    wrong = "A larger beta lets the policy move further from the reference."
    right = "A larger beta keeps the policy closer to the reference."
    assert cannot_show(question, optimum, wrong)
    assert not cannot_show(question, optimum, right)
    unrelated = next(kp for kp in question.key_points if "β" not in kp.statement and "beta" not in kp.statement.lower())
    assert not cannot_show(question, unrelated, wrong), "a point that does not name β is not concerned"


@pytest.mark.parametrize(
    ("trend", "sentence", "right"),
    [
        (
            "kl-coefficient",
            "It pulls the policy back toward the reference, so a larger KL coefficient restricts exploration.",
            True,
        ),
        ("kl-coefficient", "A larger KL coefficient keeps the policy closer to the reference.", True),
        ("kl-coefficient", "A larger KL coefficient lets the policy drift further from the reference.", False),
        ("staleness-weight-variance", "A larger staleness bound raises the variance of the importance weights.", True),
        ("staleness-weight-variance", "staleness 上限越大，重要性权重的方差越小。", False),
        ("staleness-weight-variance", "Staleness is how many versions old the data is.", False),
    ],
)
def test_a_trend_said_the_right_way_round_is_read_as_putting_its_reversal_right(trend, sentence, right):
    """Blind trial 42's retraction ("a larger KL coefficient restricts exploration") put nothing right."""
    assert states_right(trend_id(trend), sentence) is right
