"""A stated misconception is challenged with its own question (issue 13: "challenge a wrong claim at
once"): one that makes the candidate test that claim, never one about a neighbouring point, and
never the correction itself."""

from __future__ import annotations

import pytest

from agent.brains.request import WriteRequest
from agent.brains.wording import phrase
from agent.interview.policy import Limits, decide
from agent.judge.meaning import shared_judge
from agent.judge.scoring import RubricScorer
from agent.state import CandidateAction, QuestionProgress
from evals.session_checks import hint_gives_nothing_away
from knowledge.bank import load_bank
from knowledge.models import Question

BANK = load_bank()


@pytest.fixture(scope="module")
def scorer() -> RubricScorer:
    judge = shared_judge("e5")
    assert judge is not None, "the shipped judge (exemplars, vectors, heads) must load"
    return RubricScorer(judge=judge)


@pytest.mark.parametrize("qid", list(BANK))
def test_every_misconception_has_its_own_challenge_that_keeps_the_correction_back(qid):
    question = BANK[qid]
    for wrong in question.misconceptions:
        assert wrong.challenge is not None, wrong.id
        assert "?" in wrong.challenge.en and "？" in wrong.challenge.zh, wrong.id  # it asks something
        assert hint_gives_nothing_away(wrong.challenge.en, wrong.correction), (wrong.id, wrong.challenge.en)
        assert hint_gives_nothing_away(wrong.challenge.zh, wrong.correction_zh or ""), (wrong.id, wrong.challenge.zh)
    asked = [w.challenge.en for w in question.misconceptions if w.challenge]
    assert len(set(asked)) == len(asked)


def _follow_up(scorer: RubricScorer, question: Question, answer: str, lang: str) -> tuple[str, str]:
    """The misconception the judge charged, and the interviewer's next line."""
    result = scorer.assess(question, answer, None)
    assert result.misconceptions, "the judge must hear the wrong claim"
    decision = decide(question, QuestionProgress(assessment=result), CandidateAction.answer, Limits(follow_ups=3))
    assert decision.action == "follow_up"
    return decision.target or "", phrase(WriteRequest(question, decision, result, (), lang, 1))


def test_a_symmetric_kl_is_challenged_with_a_two_direction_check_not_a_neighbouring_probe(scorer):
    question = BANK["algo-02"]
    answer = (
        "Cross-entropy is the entropy of the data plus the KL divergence, H(p,q) = H(p) + KL(p||q). "
        "KL is a symmetric distance between two distributions."
    )
    target, line = _follow_up(scorer, question, answer, "en")
    assert target == "kl-is-symmetric-distance"
    wrong = next(w for w in question.misconceptions if w.id == target)
    assert wrong.challenge is not None and wrong.challenge.en in line
    assert "symmetric" in line  # the candidate's own claim is quoted back
    assert all(kp.probe.en not in line for kp in question.key_points)
    assert wrong.correction not in line


def test_a_max_instead_of_min_is_challenged_in_chinese(scorer):
    question = BANK["algo-07"]
    answer = "PPO 会把新旧策略的概率比限制在 1±ε 之间。PPO 取的是 clip 和不 clip 两个目标里的最大值。"
    target, line = _follow_up(scorer, question, answer, "zh")
    assert target == "ppo-takes-max"
    wrong = next(w for w in question.misconceptions if w.id == target)
    assert wrong.challenge is not None and wrong.challenge.zh in line
    assert wrong.challenge.en not in line


def test_a_question_of_your_own_without_challenges_asks_the_point_its_claim_touches(scorer):
    shipped = BANK["algo-02"]
    yours = shipped.model_copy(
        update={"misconceptions": [w.model_copy(update={"challenge": None}) for w in shipped.misconceptions]}
    )
    answer = (
        "Cross-entropy is the entropy of the data plus the KL divergence, H(p,q) = H(p) + KL(p||q). "
        "KL is a symmetric distance between two distributions."
    )
    target, line = _follow_up(scorer, yours, answer, "en")
    assert target == "kl-is-symmetric-distance"
    assert any(kp.probe.en in line for kp in yours.key_points)
