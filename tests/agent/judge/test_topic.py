"""Off-topic is kept for answers about something else; an answer on the question that shows little
is just short of a point (a user trial's plain, correct follow-up answers were called off-topic)."""

from __future__ import annotations

import pytest

from agent.judge.scoring import RubricScorer
from agent.judge.topic import content_words, strays
from agent.state import Flag
from knowledge.bank import load_bank

BANK = load_bank()


@pytest.mark.parametrize(
    ("qid", "answer"),
    [
        ("algo-07", "That token contributes nothing to the gradient anymore."),
        (
            "algo-09",
            "I think the gradients get multiplied by the number of GPUs, so it's like training with a bigger learning rate.",
        ),
        ("infra-05", "嗯，应该就是 batch 动态变化，可能会不太稳定吧，对训练有影响。"),
    ],
)
def test_an_answer_on_the_question_that_shows_little_is_not_off_topic(scorer, qid, answer):
    assessment = scorer.assess(BANK[qid], answer, None)
    assert not assessment.covered  # nothing credited: what is tested is the verdict on a weak answer
    assert Flag.off_topic not in assessment.flags


@pytest.mark.parametrize(
    ("qid", "answer"),
    [
        (
            "infra-12",
            "Speaking of batches, I made a batch of dumplings last weekend. The trick is to rest the dough for thirty minutes.",
        ),
        (
            "infra-10",
            "PPO 的 clip 是把 ratio 限制在 1-ε 到 1+ε 之间，防止策略一次更新太大，然后取最小值，得到一个悲观的下界。",
        ),
    ],
)
def test_an_answer_about_something_else_or_another_question_is_off_topic(scorer, qid, answer):
    assert Flag.off_topic in scorer.assess(BANK[qid], answer, None).flags


def test_an_answer_judged_on_cues_alone_that_names_nothing_is_off_topic():
    """Without the judge by meaning there is nothing to tell "short of a point" from "off the question"."""
    assessment = RubricScorer(judge=None).assess(BANK["algo-07"], "That token contributes nothing anymore.", None)
    assert Flag.off_topic in assessment.flags


def test_the_words_of_another_question_make_an_answer_stray():
    vocabularies = {"q1": frozenset({"clip", "ratio", "policy"}), "q2": frozenset({"expert", "gpu", "token", "router"})}
    text = "every expert sits on its own gpu and the router sends each token there"
    close = [0.95]
    assert content_words(text) >= {"expert", "gpu", "router", "token"}
    assert strays("q1", close, [0.9], text, vocabularies)
    assert not strays("q2", close, [0.9], text, vocabularies)


def test_a_long_answer_to_another_question_scores_nothing_for_what_it_shares_with_this_one(scorer):
    """An answer about the actor-critic trade-off, given to the batch-invariance question, was credited
    a point of it through one shared term and scored 2."""
    answer = (
        "DQN-style value-only methods need an argmax over actions, which is awkward for huge or continuous "
        "action spaces like a token vocabulary, and they only give a deterministic greedy policy. Actor-critic "
        "keeps an explicit stochastic policy trained with the policy gradient, while the critic learns a value "
        "function that lowers the variance of the gradient estimate."
    )
    assessment = scorer.assess(BANK["infra-12"], answer, None)
    assert assessment.depth == 0 and not assessment.covered
    assert Flag.off_topic in assessment.flags


def test_an_answer_outside_the_field_is_off_topic_not_a_neighbouring_concept(scorer):
    """A trial's pizza, explained with a "because", was told it "describes a neighbouring idea"."""
    pizza = (
        "My favourite pizza is margherita because the tomato and basil balance each other, and my dog "
        "prefers long walks in the park when the weather is nice."
    )
    tensor_parallel = (
        "Tensor parallelism splits each weight matrix of the FFN column-wise across the GPUs of a node, so "
        "every GPU computes a slice of every expert and the partial results are combined with an all-reduce."
    )
    bank = load_bank()
    assert Flag.off_topic in scorer.assess(bank["infra-12"], pizza, None).flags
    assert Flag.other_concept in scorer.assess(bank["infra-10"], tensor_parallel, None).flags
