"""What of a reply is judged (agent.interview.replies): the candidate's claims, never talk about the conversation."""

from __future__ import annotations

import asyncio

from agent.interview.replies import judged_text
from agent.state import CandidateAction, Turn


def test_a_question_back_beside_a_hint_request_is_not_judged():
    """A trial: "你是指正确性上的坑还是工程维护上的坑？" beside a hint request was judged, and credited as
    the level-3 point on the pitfalls of choosing a framework."""
    turn = Turn(
        question="infra-16",
        kind="follow_up",
        asked="除了吞吐量，团队在选择 RL 框架时还吃过哪些亏？",
        action=CandidateAction.hint,
        answer="“吃过哪些亏”有点宽泛，你是指正确性上的坑还是工程维护上的坑？能给点提示吗？",
    )
    assert judged_text(turn) == "", "nothing in it claims anything"


def test_an_answer_keeps_its_claims_and_drops_its_question_back():
    claim = "PPO clips the ratio to 1 plus or minus epsilon, so one batch cannot move the policy far."
    turn = Turn(
        question="algo-07",
        kind="ask",
        asked="How does clipping work in PPO?",
        answer=f"Do you mean PPO's clip or CISPO's? {claim}",
    )
    assert judged_text(turn).strip() == claim


SYSTEMS_SIDE = "Without the KL term you save the reference model's memory and its forward pass."
"""A drill trial's answer to algo-08's probe "what does removing the KL buy you on the systems side?",
which the judge reads as likely that point, short of its bar."""


def _judged(kind: str, target: str | None) -> set[str]:
    from agent.brains.brain import OfflineBrain
    from agent.interview.replies import judge_reply
    from agent.judge.meaning import shared_judge
    from knowledge.bank import load_bank

    question = load_bank()["algo-08"]
    turn = Turn(question="algo-08", kind=kind, asked="...", target=target, answer=SYSTEMS_SIDE)
    assessment = asyncio.run(judge_reply(OfflineBrain(judge=shared_judge("e5")), question, turn, None, []))
    return {e.key_point for e in assessment.covered}


def test_an_answer_to_a_key_points_own_follow_up_is_read_as_answering_it():
    assert "memory-compute-saving" in _judged("follow_up", "memory-compute-saving")


def test_the_same_words_elsewhere_stay_a_near_miss():
    assert "memory-compute-saving" not in _judged("ask", None), "out of the blue the bar is the judge's"
    assert "memory-compute-saving" not in _judged("follow_up", "kl-ref-vs-trust-region"), "asked something else"
