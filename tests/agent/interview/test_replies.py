"""What of a reply is judged (agent.interview.replies): the candidate's claims, never talk about the conversation."""

from __future__ import annotations

import asyncio

from agent.interview.replies import judged_text
from agent.judge.misattribution import misattributions_in
from agent.state import Assessment, CandidateAction, Decision, Evidence, Flag, Heard, Turn


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


GROUPS_SAID = (
    "group size 就是每道题采几个回答，太小的话一组里经常全对或者全错，优势全是零，这道题就白采了；"
    "太大又费生成的算力，常见是 8 到 16。"
)
"""The start of a blind trial's first answer on algo-12: the group-size point in plain words, which
the judge reads as likely that point (short of its bar) but recorded as a near miss of another."""


def _recalled_on_protest(target: str) -> dict[str, Evidence]:
    """Credits after "我刚才已经说过了。" to a follow-up on `target`, the one earlier answer being GROUPS_SAID."""
    from agent.brains.brain import OfflineBrain
    from agent.interview.replies import judge_reply
    from agent.judge.meaning import shared_judge
    from knowledge.bank import load_bank

    brain = OfflineBrain(judge=shared_judge("e5"))
    question = load_bank()["algo-12"]
    first = Turn(question="algo-12", kind="ask", asked=question.prompt.zh, answer=GROUPS_SAID)
    first = first.model_copy(update={"assessment": asyncio.run(brain.assess(question, GROUPS_SAID, None))})
    protest = Turn(
        question="algo-12",
        kind="follow_up",
        asked="...",
        target=target,
        heard=Heard.already_said,
        answer="我刚才已经说过了。",
    )
    assessment = asyncio.run(judge_reply(brain, question, protest, first.assessment, [first]))
    return {e.key_point: e for e in assessment.covered}


def test_a_protest_is_borne_out_by_an_earlier_sentence_read_as_the_point():
    """The trial was told "我重新看了一遍你说的，没找到这部分" though it had said it in plain words."""
    credited = _recalled_on_protest("group-size-signal")
    assert "group-size-signal" in credited
    assert credited["group-size-signal"].how == "recalled"
    assert "全对或者全错" in credited["group-size-signal"].quote


def test_a_protest_about_something_never_said_credits_nothing():
    assert "learning-rate-control" not in _recalled_on_protest("learning-rate-control")


ENGINE_FIRST = (
    "nvidia-smi 里的 GPU-Util 其实不太能说明问题，它只表示这段时间里有没有 kernel 在跑。"
    "vLLM 的前缀缓存就是 RadixAttention，用一棵基数树管理 KV。"
    "decode 阶段主要受显存带宽限制，所以比起算力利用率，更该算带宽利用率，就是每一步实际读了多少字节除以 HBM 带宽。"
)
"""A blind trial's first answer on infra-06 (shortened): the decode metric said, and a planted swap."""


def _reply_after(first: str, reply: Turn) -> Assessment:
    from agent.brains.brain import OfflineBrain
    from agent.interview.replies import judge_reply
    from agent.judge.meaning import shared_judge
    from knowledge.bank import load_bank

    brain = OfflineBrain(judge=shared_judge("e5"))
    question = load_bank()[reply.question]
    before = Turn(question=reply.question, kind="ask", asked=question.prompt.zh, answer=first)
    before = before.model_copy(update={"assessment": asyncio.run(brain.assess(question, first, None))})
    if reply.kind == "follow_up" and reply.heard is None:
        swap = misattributions_in(first)[0].misconception
        before = before.model_copy(update={"decision": Decision(action="follow_up", challenge=swap)})
    return asyncio.run(judge_reply(brain, question, reply, before.assessment, [before]))


def test_a_protest_that_says_it_again_is_told_it_was_said_before():
    """The trial said the decode metric in its first answer, protested with it again and was told
    "这次有了" (got it this time): the evidence is the earlier sentence (recalled on the protest
    before the thirty-third session; now shown from the first answer, the wrong claim beside it no
    longer hiding it)."""
    protest = Turn(
        question="infra-06",
        kind="follow_up",
        asked="...",
        target="mfu-mbu",
        heard=Heard.already_said,
        answer="我刚才说过了，解码看带宽利用率，每步读的字节除以 HBM 带宽。",
    )
    shown = {e.key_point: e for e in _reply_after(ENGINE_FIRST, protest).covered}
    assert "mfu-mbu" in shown, "the protest's own words show it anyway"
    assert shown["mfu-mbu"].quote in ENGINE_FIRST


def test_a_correction_after_a_denial_that_names_the_other_system_is_not_a_neighbouring_concept():
    """Blind trial 36: slime given to ByteDance Seed, challenged, and put right with "that was wrong:
    slime is from THUDM ... The ByteDance Seed framework is verl", which was read as explaining
    another concept (verl) and the correction as asserting nothing (it followed "wrong")."""
    first = (
        "slime, ByteDance Seed's framework built on Megatron and SGLang and used to train GLM-4.5, treats rollout "
        "as an inference-serving problem: make generation itself as fast as possible, SGLang-native."
    )
    correction = Turn(
        question="infra-13",
        kind="follow_up",
        asked="Which of these systems comes from ByteDance Seed, and what does that team optimise it for?",
        answer=(
            "You're right, that was wrong: slime is from THUDM, Tsinghua's KEG group and Zhipu AI, which is why it "
            "is the RL framework behind GLM-4.5. The ByteDance Seed framework is verl, the open-source "
            "implementation of HybridFlow: a single controller for the dataflow with multi-controller workers."
        ),
    )
    flags = _reply_after(first, correction).flags
    assert Flag.other_concept not in flags and Flag.off_topic not in flags


def test_a_reply_that_puts_a_challenged_swap_right_is_not_off_topic():
    """The trial's correction after "RadixAttention 是哪个引擎提出的？" was marked 偏题."""
    correction = Turn(
        question="infra-06",
        kind="follow_up",
        asked="RadixAttention 是哪个引擎提出的？",
        answer="对，我记混了。RadixAttention 是 SGLang 提出的，它把所有请求的 KV 放在一棵基数树上，按 token 前缀共享。",
    )
    assert Flag.off_topic not in _reply_after(ENGINE_FIRST, correction).flags
