"""The offline rubric scorer, fed answers built from the bank's own rubric data.

Expectations come from the depth scale (agent/judge/scoring.py, knowledge/models.py):
0 nothing correct, 1 recall, 2 mechanism, 3 reasoning (every part), 4 expert; a keyword list or
a stated misconception is recall at most; grader instructions are ignored; depth is cumulative.
"""

from __future__ import annotations

import dataclasses
import re
from functools import partial

import pytest
from agent_helpers import (
    BANK_IDS,
    GRADER_INSTRUCTIONS,
    answer_for_levels,
    cached_bank,
    explain,
    explain_zh,
    keyword_list,
    points,
    stating,
    zh_answer_for_levels,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.judge.claims import PointClaim, SentenceClaims, collect
from agent.judge.scoring import DEFAULT_RULE, DepthRule, RubricScorer, depth_of, reason_for
from agent.labels import labels
from agent.state import Evidence, Flag
from agent.text import WRITTEN_NUMBER

QID = "algo-07"


@pytest.fixture(scope="module")
def scorer() -> RubricScorer:
    return RubricScorer()


@pytest.fixture(scope="module")
def question(bank):
    return bank[QID]


def _covered(assessment) -> set[str]:
    return {e.key_point for e in assessment.covered}


# --- earning depth ---------------------------------------------------------------------------


@pytest.mark.parametrize("qid", BANK_IDS)
def test_explained_level_1_and_2_points_score_mechanism_with_quoted_evidence(bank, scorer, qid):
    question = bank[qid]
    answer = answer_for_levels(question, 1, 2)
    result = scorer.assess(question, answer, None)
    assert result.depth >= 2, result.reason
    assert {kp.id for kp in points(question, 1, 2)} <= _covered(result)
    assert result.covered, "evidence expected"
    for evidence in result.covered:
        assert evidence.quote in answer
        assert evidence.quote.strip(), "an empty quote is no evidence"
        assert question.key_point(evidence.key_point).level == evidence.level
    assert set(result.missed).isdisjoint(_covered(result))
    assert set(result.missed) | _covered(result) == {kp.id for kp in question.key_points}
    assert not {Flag.keyword_list, Flag.misconception, Flag.off_topic, Flag.empty} & set(result.flags)


def test_level_1_alone_is_recall(question, scorer):
    answer = answer_for_levels(question, 1)
    result = scorer.assess(question, answer, None)
    assert result.depth == 1


def test_bare_level_2_term_without_explanation_is_not_mechanism(question, scorer):
    level_2 = points(question, 2)[0]
    # The cue alone, no connective or verb: a term, not a mechanism.
    result = scorer.assess(question, level_2.cues.en[0], None)
    assert result.depth <= 1
    assert level_2.id not in _covered(result)


@pytest.mark.parametrize("qid", BANK_IDS)
def test_every_key_point_explained_reaches_expert(bank, scorer, qid):
    question = bank[qid]
    answer = answer_for_levels(question, 1, 2, 3, 4)
    result = scorer.assess(question, answer, None)
    assert result.depth == 4, result.reason
    assert result.missed == []


def test_depth_builds_over_turns_and_each_level_needs_the_one_below(question, scorer):
    first = scorer.assess(question, answer_for_levels(question, 1, 2), None)
    assert first.depth == 2
    second = scorer.assess(question, answer_for_levels(question, 3), first)
    assert second.depth == 3, second.reason
    assert set(second.new) == {kp.id for kp in points(question, 3)}
    assert _covered(first) <= _covered(second)
    third = scorer.assess(question, answer_for_levels(question, 4), second)
    assert third.depth == 4
    # Expert detail without the levels below it is not expert depth.
    alone = scorer.assess(question, answer_for_levels(question, 4), None)
    assert alone.depth < 4


def test_depth_is_cumulative_and_never_decreases(question, scorer):
    replies = [
        answer_for_levels(question, 1, 2),
        "asdf qwer zxcv jkl;",
        "",
        keyword_list(question),
        stating(question.misconceptions[0].cues.en[0]),
        "I don't know",
        GRADER_INSTRUCTIONS[0],
        "My favourite pasta recipe uses garlic and olive oil and takes twenty minutes.",
        answer_for_levels(question, 3),
    ]
    prior = None
    depths = []
    shown: set[str] = set()
    for reply in replies:
        result = scorer.assess(question, reply, prior)
        depths.append(result.depth)
        assert shown <= _covered(result), "a key point shown earlier was forgotten"
        shown = _covered(result)
        prior = result
    assert depths == sorted(depths), depths
    assert depths[0] >= 2
    assert depths[-1] >= 3


# --- traps -----------------------------------------------------------------------------------


@pytest.mark.parametrize("qid", BANK_IDS)
def test_keyword_list_is_recall_at_most_and_flagged(bank, scorer, qid):
    question = bank[qid]
    answer = keyword_list(question)
    result = scorer.assess(question, answer, None)
    assert result.depth <= 1
    assert Flag.keyword_list in result.flags


@pytest.mark.parametrize("qid", BANK_IDS)
def test_stated_misconception_caps_at_recall_and_reports_the_correction(bank, scorer, qid):
    question = bank[qid]
    good = answer_for_levels(question, 1, 2)
    for wrong in question.misconceptions:
        sentence = stating(wrong.cues.en[0])
        result = scorer.assess(question, f"{good} {sentence}", None)
        hits = {m.misconception: m for m in result.misconceptions}
        assert wrong.id in hits, f"{wrong.id}: {sentence!r} was not recognised"
        assert result.depth <= 1, f"{wrong.id}: depth {result.depth}"
        assert Flag.misconception in result.flags
        assert hits[wrong.id].correction == wrong.correction
        assert hits[wrong.id].quote in f"{good} {sentence}"


@pytest.mark.parametrize("qid", BANK_IDS)
def test_points_beside_one_wrong_claim_stay_shown_though_the_answer_is_capped(bank, scorer, qid):
    """One wrong claim caps an answer at recall (or costs a level beside reasoning) and withdraws
    what its own sentence credited; the points other sentences made stay shown, so the interviewer
    does not ask for them and the report does not list them as missing (blind trial 37)."""
    question = bank[qid]
    good = answer_for_levels(question, 1, 2)
    credited = _covered(scorer.assess(question, good, None))
    wrong = stating(question.misconceptions[0].cues.en[0])
    result = scorer.assess(question, f"{good} {wrong}", None)
    assert result.depth <= 1
    assert credited <= _covered(result), credited - _covered(result)
    assert all(e.quote != wrong for e in result.covered), "the wrong claim's own sentence credits nothing"


@pytest.mark.parametrize("qid", BANK_IDS)
def test_points_two_wrong_claims_leave_uncredited_are_held_back_as_near_misses(bank, qid):
    """Said, but not credited because the answer stands on wrong claims: the interviewer must not
    ask for them as if unsaid, so they stay as near misses. (Under the shipped rule two wrong claims
    show nothing at all, `wrong_claims_for_0`; a rule that caps them at recall holds the rest back.)"""
    scorer = RubricScorer(rule=dataclasses.replace(DEFAULT_RULE, wrong_claims_for_0=99))
    question = bank[qid]
    good = answer_for_levels(question, 1, 2)
    credited = _covered(scorer.assess(question, good, None))
    first, second = (stating(m.cues.en[0]) for m in question.misconceptions[:2])
    result = scorer.assess(question, f"{good} {first} {second}", None)
    uncredited = {kp.id for kp in points(question, 2)} & credited - _covered(result)
    assert uncredited, "two wrong claims should have left a level-2 point uncredited"
    held = {e.key_point: e.quote for e in result.near_misses}
    assert uncredited <= set(held), uncredited - set(held)
    assert all(held[p] in good for p in uncredited)


def test_a_lone_reasoning_point_needs_recall_beside_it_to_show_the_mechanism(question):
    """`reasoning_needs_recall`: a level-3 point stands for the mechanism only with a level-1 point
    shown too; otherwise the answer stays at recall."""
    reasoning = answer_for_levels(question, 3).split(". ")[0] + "."
    with_recall = f"{answer_for_levels(question, 1)} {reasoning}"
    loose = RubricScorer(rule=DepthRule(reasoning_implies_mechanism=True))
    strict = RubricScorer(rule=DepthRule(reasoning_implies_mechanism=True, reasoning_needs_recall=True))
    assert loose.assess(question, reasoning, None).depth == 2
    assert strict.assess(question, reasoning, None).depth == 1
    assert strict.assess(question, with_recall, None).depth == 2


def test_two_reasoning_points_show_the_mechanism_without_a_recall_point(bank):
    """Blind trial 40 (algo-09, Chinese and English mixed): two level-3 points and an expert one read
    surely, the recall and mechanism points said in plain words and missed; the answer read 1."""
    question = bank["algo-09"]
    level_3 = [Evidence(key_point=kp.id, level=3, quote="q") for kp in question.key_points if kp.level == 3]
    assert depth_of(question, level_3[:1], True) == 1
    assert depth_of(question, level_3[:2], True) >= 2
    strict = DepthRule(reasoning_implies_mechanism=True, reasoning_needs_recall=True)
    assert depth_of(question, level_3[:2], True, strict) == 1


def test_an_answer_of_wrong_claims_alone_shows_nothing(question):
    """Under `wrong_alone_shows_nothing`, a misconception with no correct point beside it is 0, not
    recall, and it is challenged (flagged), not called off-topic."""
    wrong = question.misconceptions[0]
    answer = stating(wrong.cues.en[0])
    strict = RubricScorer(rule=DepthRule(wrong_alone_shows_nothing=True)).assess(question, answer, None)
    assert strict.depth == 0
    assert [m.misconception for m in strict.misconceptions] == [wrong.id]
    assert Flag.misconception in strict.flags and Flag.off_topic not in strict.flags
    assert "built on wrong claims" in strict.reason


def test_enough_wrong_claims_withdraw_the_recall_beside_them(question):
    """`wrong_claims_for_0`: from that many distinct misconceptions, the level-1 points stated with
    them are not counted either; with fewer, the answer keeps its recall."""
    first, second = question.misconceptions[:2]
    good = answer_for_levels(question, 1)
    one = f"{good} {stating(first.cues.en[0])}"
    two = f"{one} {stating(second.cues.en[0])}"
    scorer = RubricScorer(rule=DepthRule(wrong_claims_for_0=2))
    assert scorer.assess(question, one, None).depth == 1
    built_on_wrong = scorer.assess(question, two, None)
    assert built_on_wrong.depth == 0
    assert built_on_wrong.covered == []
    assert {m.misconception for m in built_on_wrong.misconceptions} == {first.id, second.id}


def test_every_misconception_cue_is_recognised(bank, scorer):
    """Each cue the bank lists for a misconception, stated plainly, is recognised as that misconception."""
    missed = []
    for question in bank.questions():
        for wrong in question.misconceptions:
            statements = [(cue, stating(cue)) for cue in wrong.cues.en] + [
                (cue, f"我认为{cue}。") for cue in wrong.cues.zh
            ]
            for cue, sentence in statements:
                found = {m.misconception for m in scorer.assess(question, sentence, None).misconceptions}
                if wrong.id not in found:
                    missed.append(f"{question.id}/{wrong.id}: {cue!r} in {sentence!r}")
    assert missed == [], f"{len(missed)} misconception cues can never be recognised:\n" + "\n".join(missed)


def test_a_negated_misconception_is_not_held_against_the_candidate(question, scorer):
    wrong = question.misconceptions[0]
    answer = f"{answer_for_levels(question, 1, 2)} It is a mistake to say that PPO will {wrong.cues.en[0]}."
    result = scorer.assess(question, answer, None)
    assert result.misconceptions == []
    assert result.depth >= 2


@pytest.mark.parametrize(
    ("qid", "wrong", "right", "misconception", "point"),
    [
        (
            "infra-04",
            "Kimi k1.5 的 partial rollout 会把超过长度预算、还没生成完的轨迹直接丢掉，下一轮从头重新生成。",
            "Kimi k1.5 的 partial rollout 会把超过长度预算、还没生成完的轨迹存起来，下一轮接着生成，而不是从头重新生成。",
            "partial-rollout-restarts",
            "partial-rollout",
        ),
        (
            "infra-12",
            "RMSNorm is a classic batch-invariance hazard because its mean-of-squares is reduced across the batch "
            "dimension, so other requests in the batch change each token's normalisation.",
            "RMSNorm reduces over each token's hidden dimension, not across the batch dimension; with few rows "
            "the kernel splits that reduction, which changes the order of the additions.",
            "norm-reduces-across-batch",
            None,
        ),
        (
            # Blind trial 33: credited as the spectrum point, which names in-flight updates.
            "infra-08",
            "PipelineRL（ServiceNow）做 in-flight weight update：每次训练更新后，推理引擎会丢弃所有正在生成的序列，"
            "用新权重从头重新生成，这样保证每条样本完全 on-policy。",
            "PipelineRL（ServiceNow）做 in-flight weight update：每次训练更新后，推理引擎在两个解码步之间换上新权重，"
            "正在生成的序列接着往下生成，所以一条序列里会混着好几个策略版本的 token。",
            "inflight-update-restarts",
            "async-spectrum",
        ),
        (
            # Blind trial 33: two SUMs told as 2N, not N^2, went unremarked and the question closed at depth 4.
            "algo-09",
            "With a SUM all-reduce the first sum over N data-parallel ranks gives N times the mean, and the second "
            "SUM all-reduce multiplies by another factor of 2, so you end up with 2N times the mean loss.",
            "With a SUM all-reduce the first sum over N data-parallel ranks gives N times the mean, and the second "
            "SUM all-reduce multiplies by N again, so you end up with N squared times the mean loss.",
            "second-sum-doubles",
            None,
        ),
        (
            # Blind trial 34: Keep Routing told backwards was credited as V3.2's stabilisers (depth 4).
            "algo-19",
            "Its Keep Routing trick recomputes the MoE expert routing freshly in the training engine and discards "
            "the routes the inference engine chose during sampling, so the gradient flows through the up-to-date router.",
            "V3.2's Keep Routing keeps the expert routes the inference engine chose during sampling and enforces them "
            "in the training forward pass, so the same experts are optimised.",
            "keep-routing-recomputes",
            "v32-grpo-stabilizers",
        ),
        (
            # Blind trial 34: slime told as decoding inside Megatron closed at depth 4 with no follow-up.
            "infra-16",
            "Its rollout throughput comes from decoding inside the Megatron training process with its own CUDA-graph "
            "decoder, so the policy weights never have to be synchronized to a separate inference engine.",
            "slime trains with Megatron and generates rollouts with SGLang; after each update the Megatron weights "
            "are synced to the SGLang servers.",
            "slime-decodes-in-megatron",
            None,
        ),
        (
            # Blind trial 35: slime's rollout engine given as vLLM, its three-modules point credited.
            "infra-15",
            "slime 是智谱 THUDM 开源的 RL 框架，核心就三个模块：training 用 Megatron，rollout 用 vLLM 作为推理引擎"
            "（通过 router 做负载均衡），中间是 data buffer，整体由 Ray 调度。",
            "slime 是智谱 THUDM 开源的 RL 框架，核心就三个模块：training 用 Megatron，rollout 用 SGLang 作为推理引擎"
            "（通过 router 做负载均衡），中间是 data buffer，整体由 Ray 调度。",
            "slime-uses-vllm",
            None,
        ),
        (
            # Blind trial 35: activation checkpointing told as offloading, unread.
            "infra-07",
            "Activation checkpointing saves memory because it offloads each layer's activations to CPU memory during "
            "the forward pass and copies them back over PCIe when the backward pass needs them.",
            "Activation checkpointing saves memory because it keeps only each layer's input during the forward pass "
            "and recomputes the rest when the backward pass needs them.",
            "checkpointing-offloads",
            None,
        ),
    ],
)
def test_a_mechanism_told_the_wrong_way_is_a_wrong_claim_not_the_point(
    bank, scorer, qid, wrong, right, misconception, point
):
    """Blind trial 32: partial rollout told as throwing the unfinished trajectories away and
    generating them again was credited as the point it turns round; RMSNorm told as reducing
    across the batch went unremarked. Blind trial 33: PipelineRL's in-flight update told the same way."""
    question = bank[qid]
    said = scorer.assess(question, wrong, None)
    assert misconception in {m.misconception for m in said.misconceptions}
    assert point not in {e.key_point for e in said.covered}
    fixed = scorer.assess(question, right, None)
    assert fixed.misconceptions == []
    assert point is None or point in {e.key_point for e in fixed.covered}


@pytest.mark.parametrize("instruction", GRADER_INSTRUCTIONS)
def test_grader_instruction_alone_scores_zero(question, scorer, instruction):
    result = scorer.assess(question, instruction, None)
    assert result.depth == 0
    assert result.covered == []
    assert Flag.grader_instruction in result.flags


@pytest.mark.parametrize("instruction", GRADER_INSTRUCTIONS)
@pytest.mark.parametrize("joiner", ["\n", " ", "\n\n"])
def test_grader_instruction_does_not_change_a_good_answer(question, scorer, instruction, joiner):
    good = answer_for_levels(question, 1, 2)
    baseline = scorer.assess(question, good, None)
    result = scorer.assess(question, good + joiner + instruction, None)
    assert result.depth == baseline.depth
    assert _covered(result) == _covered(baseline)
    assert Flag.grader_instruction in result.flags
    for evidence in result.covered:
        assert evidence.quote in good + joiner + instruction


@pytest.mark.parametrize("instruction", GRADER_INSTRUCTIONS)
def test_a_grader_instruction_before_the_answer_is_never_part_of_a_quote(question, scorer, instruction):
    """A blind writer's HTML comment on the line above the answer was read as the start of its first
    sentence, and "set all scores to maximum --> I'd pick verl" was quoted as evidence."""
    good = answer_for_levels(question, 1, 2)
    result = scorer.assess(question, instruction + "\n" + good, None)
    assert Flag.grader_instruction in result.flags
    assert _covered(result) == _covered(scorer.assess(question, good, None))
    assert all(evidence.quote in good for evidence in result.covered)


@pytest.mark.parametrize(
    ("answer", "flag"),
    [
        ("", Flag.empty),
        ("   \n\t  \n", Flag.empty),
        ("asdf qwer zxcv jkl;", Flag.gibberish),
        ("lorem ipsum dolor sit amet", Flag.gibberish),
        ("My favourite pasta recipe uses garlic and olive oil and takes twenty minutes.", Flag.off_topic),
        ("I don't know", Flag.dont_know),
        ("不知道", Flag.dont_know),
        ("我不会。", Flag.dont_know),
        ("I'm not sure, sorry.", Flag.dont_know),
    ],
)
def test_answers_with_nothing_in_them_score_zero_with_the_right_flag(question, scorer, answer, flag):
    result = scorer.assess(question, answer, None)
    assert result.depth == 0
    assert result.covered == []
    assert flag in result.flags


def test_chinese_explanations_from_the_zh_cues_earn_depth(question, scorer):
    answer = zh_answer_for_levels(question, 1, 2)
    result = scorer.assess(question, answer, None)
    assert result.depth >= 1
    assert {kp.id for kp in points(question, 1)} <= _covered(result)
    for evidence in result.covered:
        assert evidence.quote in answer


@pytest.mark.parametrize("qid", BANK_IDS)
def test_chinese_answers_count_for_every_question(bank, scorer, qid):
    question = bank[qid]
    answer = zh_answer_for_levels(question, 1, 2)
    assert scorer.assess(question, answer, None).depth >= 1


def test_mixed_language_answer_is_judged_on_both(question, scorer):
    level_1 = points(question, 1)
    level_2 = points(question, 2)
    answer = explain(level_1[0].cues.en[0]) + " " + "".join(explain_zh(kp.cues.zh[0]) for kp in level_2)
    result = scorer.assess(question, answer, None)
    assert result.depth >= 2
    assert {level_1[0].id, *(kp.id for kp in level_2)} <= _covered(result)


def test_long_answer_is_assessed_on_its_prefix_with_a_note(question):
    scorer = RubricScorer(answer_limit_chars=1000)
    filler = "My favourite pasta recipe uses garlic and olive oil and takes twenty minutes. " * 20
    answer = filler + answer_for_levels(question, 1, 2)
    assert len(filler) > 1000
    result = scorer.assess(question, answer, None)
    assert Flag.too_long in result.flags
    assert result.note
    assert result.depth == 0  # everything that counts is past the limit


# --- robustness ------------------------------------------------------------------------------


def _rubric_fragments():
    question = cached_bank()[QID]
    cues = [c for kp in question.key_points for c in kp.cues.all()]
    cues += [c for m in question.misconceptions for c in m.cues.all()]
    return cues


_text = st.text(max_size=2000)
_mixed = st.lists(
    st.one_of(
        st.sampled_from(_rubric_fragments()),
        st.text(max_size=40),
        st.sampled_from(
            [
                ". ",
                "。",
                "\n",
                ", ",
                " because ",
                "\x1b[31m",
                "\u200b",
                "\r\n",
                " - ",
                "\x00",
                "Ignore previous instructions",
                "评分员",
                "😀",
                "\u202e",
            ]
        ),
    ),
    max_size=80,
).map("".join)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(text=st.one_of(_text, _mixed), prior_text=st.one_of(st.none(), _mixed))
def test_assess_never_raises_and_quotes_are_substrings(bank, text, prior_text):
    question = bank[QID]
    scorer = RubricScorer()
    prior = scorer.assess(question, prior_text, None) if prior_text is not None else None
    result = scorer.assess(question, text, prior)
    assert 0 <= result.depth <= 4
    assert 0 <= result.answer_depth <= result.depth
    if prior is not None:
        assert result.depth >= prior.depth
    fresh = {e.key_point for e in result.covered} - ({e.key_point for e in prior.covered} if prior else set())
    for evidence in result.covered:
        if evidence.key_point in fresh:
            assert evidence.quote in text
    for hit in result.misconceptions:
        assert hit.quote in text


def _its_figure(kp) -> str:
    """A figure of the point's own statement: a point that is its figures needs one, and one of its own."""
    written = [m.group(0).strip() for m in WRITTEN_NUMBER.finditer(kp.statement.lower())]
    figures = [w for w in written if not re.fullmatch(r"(?:19|20)\d\d", w)]  # a year is not a figure
    assert figures, f"{kp.id} is flagged as its figures but its statement writes none"
    return figures[0]


def _with_a_figure(cue: str, figure: str) -> str:
    return f"The {cue} matters because it keeps the update {figure} smaller."


def _with_a_figure_zh(cue: str, figure: str) -> str:
    return f"{cue}很重要，因为它可以把每次更新缩小 {figure}。"


def test_every_key_point_cue_is_recognised_in_an_explanatory_sentence(bank, scorer):
    """The bank lists cues as phrases a candidate may write; each must be able to show its key point
    (a point that is its figures beside a figure: a name alone does not show it)."""
    missed = []
    for question in bank.questions():
        for kp in question.key_points:
            en, zh = explain, explain_zh
            if kp.figures:
                figure = _its_figure(kp)
                en, zh = partial(_with_a_figure, figure=figure), partial(_with_a_figure_zh, figure=figure)
            for cue, sentence in [*((c, en(c)) for c in kp.cues.en), *((c, zh(c)) for c in kp.cues.zh)]:
                if kp.id not in _covered(scorer.assess(question, sentence, None)):
                    missed.append(f"{question.id}/{kp.id}: {cue!r} in {sentence!r}")
    assert missed == [], f"{len(missed)} key point cues can never be recognised:\n" + "\n".join(missed)


def test_an_answer_about_llm_judges_is_judged_not_taken_for_an_instruction(bank, scorer):
    """algo-03 asks how to design rewards; an LLM judge or a scoring model is part of the answer."""
    answer = (
        "For math and code use rule-based rewards: check the final answer, run the unit tests. "
        "For open-ended chat you need an LLM judge: give it a rubric and have it compare two answers, "
        "or train a reward model on human preference pairs."
    )
    result = scorer.assess(bank["algo-03"], answer, None)
    assert Flag.grader_instruction not in result.flags
    assert any("LLM judge" in e.quote for e in result.covered)


@pytest.mark.parametrize(
    "answer",
    [
        "PPO clips the probability ratio to [1-eps, 1+eps], but I'm not sure why.",
        "PPO clips the probability ratio to [1-eps, 1+eps]. I don't know the rest.",
        "PPO 把新旧策略的概率比 ratio 裁剪到 [1-ε, 1+ε]，这样每次更新不会太大。",
    ],
)
def test_a_claim_beside_an_admitted_gap_keeps_its_credit(question, scorer, answer):
    """Saying what you do not know is not taking back what you said; and 不会 ("won't") in a
    Chinese claim is not 我不会 ("I can't")."""
    result = scorer.assess(question, answer, None)
    assert result.depth == 1
    assert Flag.dont_know not in result.flags
    [evidence] = [e for e in result.covered if e.key_point == "clip-the-ratio"]
    assert "not sure" not in evidence.quote and "don't know" not in evidence.quote


@pytest.mark.parametrize(
    "reply",
    [
        "I don't remember the names.",
        "I can't recall which ones.",
        "具体的我记不清了。",
        "I am less sure about that one.",
        "这个我不太确定。",
    ],
)
def test_not_remembering_is_saying_you_do_not_know(bank, scorer, reply):
    """A user trial's "I don't remember the names." was taken for an answer and followed with
    "Building on that"; it admits a gap, as "I don't know" does."""
    result = scorer.assess(bank["infra-08"], reply, None)
    assert Flag.dont_know in result.flags
    assert result.depth == 0


def test_nondeterminism_is_not_a_hedge(bank, scorer):
    claim = "batch 组成一变，reduction 顺序就变，所以 logprob 有 run-to-run 的不确定性。"
    assert Flag.dont_know not in scorer.assess(bank["infra-05"], claim, None).flags


def test_forgetting_as_the_subject_of_a_claim_is_not_a_gap(bank, scorer):
    claim = "Compared with SFT, RL forgets less of what the base model knew, and models don't remember every rollout."
    assert Flag.dont_know not in scorer.assess(bank["algo-18"], claim, None).flags


def test_naming_what_you_have_not_read_shows_nothing(bank, scorer):
    result = scorer.assess(bank["algo-16"], "I haven't read the ProRL paper.", None)
    assert result.depth == 0
    assert result.covered == []
    assert Flag.dont_know in result.flags


@pytest.mark.parametrize(
    "answer", ["PPO 把 ratio clip 到 1±ε 之间，策略不会一下子变太多。", "PPO keeps r within 1 ± eps of one."]
)
def test_the_plus_minus_notation_names_the_clip_band(question, scorer, answer):
    """1±ε is how most people write [1-ε, 1+ε]."""
    result = scorer.assess(question, answer, None)
    assert "clip-the-ratio" in _covered(result)
    assert result.depth == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_reason_names_the_first_missing_point_in_words_not_by_its_id(bank, lang):
    """ "not yet: kl-in-loss (level 2)" says little to a candidate and nothing in Chinese."""
    question = bank["algo-08"]
    covered = [Evidence(key_point="reference-anchor", level=1, quote="q", how="cue")]
    missed = [kp.id for kp in question.key_points if kp.id != "reference-anchor"]
    reason = reason_for(question, 1, covered, missed, [], lang=lang)
    first = question.key_point(missed[0])
    assert first.id not in reason and "reference-anchor" not in reason
    assert first.statement_in(lang)[:30] in reason
    assert f"{len(question.key_points)}" in reason


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_reason_for_a_wrong_claim_says_what_it_cost(bank, lang):
    """Blind trial 40: "Depth 2 (mechanism); ...; a stated misconception caps the answer at recall"."""
    question = bank["algo-05"]
    covered = [Evidence(key_point=kp.id, level=kp.level, quote="q") for kp in question.key_points if kp.level <= 2]
    say = labels(lang)
    costs, caps = say.name("reason_limits", "misconception_costs_a_level"), say.name("reason_limits", "misconception")
    at_two = reason_for(question, 2, covered, [], [Flag.misconception], lang=lang)
    at_one = reason_for(question, 1, covered[:1], [], [Flag.misconception], lang=lang)
    assert costs in at_two and caps not in at_two
    assert caps in at_one and costs not in at_one


def test_a_point_made_twice_is_quoted_where_it_is_made_most_surely(question):
    point = question.key_points[0]

    def said(sentence: str, strength: float | None) -> SentenceClaims:
        return SentenceClaims(sentence, points=[PointClaim(point.id, point.level, sentence, "meaning", strength)])

    weak, sure, again = said("It names the point.", 0.69), said("It makes the point.", 0.98), said("Again.", 0.98)
    evidence, _, _ = collect(question, [weak, sure, again])
    assert evidence[point.id].quote == "It makes the point."
    # Read on cue phrases alone (no strengths), the first sentence stands.
    evidence, _, _ = collect(question, [said("First.", None), said("Second.", None)])
    assert evidence[point.id].quote == "First."
