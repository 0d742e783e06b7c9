"""An opening pronoun is read as the one system it can stand for (agent.judge.referents)."""

from __future__ import annotations

import pytest

from agent.judge.referents import resolve
from knowledge.bank import load_bank

BANK = load_bank()

AREAL = "AReaL 在权重更新时会打断正在生成的请求。"
KEEPS = "我记得它会保留旧的 KV cache，直接用新权重接着 decode，因为 recompute prefill 太贵了，影响可以忽略。"


@pytest.mark.parametrize(
    ("before", "sentence", "read"),
    [
        (AREAL, "它会保留旧的 KV cache。", "AReaL 会保留旧的 KV cache。"),
        (AREAL, "我记得它会保留旧的 KV cache。", "我记得 AReaL 会保留旧的 KV cache。"),
        ("AReaL interrupts generation.", "It keeps the old KV cache.", "AReaL keeps the old KV cache."),
        ("AReaL interrupts generation.", "It's cheap to recompute.", "AReaL is cheap to recompute."),
        ("I think verl's core is HybridFlow.", "I think it supports async too.", "I think verl supports async too."),
        ("AReaL interrupts generation.", "So it keeps the old KV cache.", "So AReaL keeps the old KV cache."),
        (AREAL, "所以它会保留旧的 KV cache。", "所以 AReaL 会保留旧的 KV cache。"),
        # After a time clause (a blind trial's AReaL sentence, twenty-fourth session).
        (AREAL, "权重更新的时候它会把旧的 KV cache 丢掉。", "权重更新的时候 AReaL 会把旧的 KV cache 丢掉。"),
        (AREAL, "权重更新之后，它会重新 prefill。", "权重更新之后，AReaL 会重新 prefill。"),
        (
            "AReaL interrupts generation.",
            "When the weights change, it drops the old KV cache.",
            "When the weights change, AReaL drops the old KV cache.",
        ),
    ],
)
def test_an_opening_pronoun_is_read_as_the_one_system_the_sentence_before_names(before, sentence, read):
    assert resolve([before, sentence]) == [before, read]


@pytest.mark.parametrize(
    ("before", "sentence"),
    [
        # Two systems before it: either could be meant.
        ("slime is built around SGLang as the rollout engine.", "It keeps the algorithm close to on-policy."),
        # No system before it ("it" is the baseline).
        ("The baseline lowers the variance.", "It keeps the gradient unbiased."),
        # "It" standing for nothing.
        ("AReaL interrupts generation.", "It depends on the setup."),
        ("AReaL interrupts generation.", "It's a real paradigm shift."),
        # Plural, and a sentence with a system of its own.
        ("AReaL interrupts generation.", "它们都会保留旧的 KV cache。"),
        ("AReaL interrupts generation.", "它和 PipelineRL 不一样。"),
        # A phase is not a system: "decode" before leaves "it" open.
        ("Decode is memory-bound.", "It keeps the old KV cache."),
        # "It" inside the time clause, not the subject after it.
        ("AReaL interrupts generation.", "When it is done, we move on."),
    ],
)
def test_a_pronoun_with_no_single_system_to_stand_for_is_left_as_written(before, sentence):
    assert resolve([before, sentence]) == [before, sentence]


def test_a_pronoun_left_open_names_no_referent_for_the_next_sentence():
    said = ["slime is built around SGLang.", "So it is SGLang-native.", "It keeps the algorithm on-policy."]
    assert resolve(said) == said


def test_a_chain_of_pronouns_follows_the_first_resolved_one():
    said = ["AReaL interrupts generation.", "It discards the cache.", "It re-prefills with the new weights."]
    assert resolve(said) == [said[0], "AReaL discards the cache.", "AReaL re-prefills with the new weights."]


def test_a_qualified_name_is_kept_whole():
    said = ["Dr. GRPO removes the std normalisation.", "它也去掉了按长度归一化。"]
    assert resolve(said) == [said[0], "Dr. GRPO 也去掉了按长度归一化。"]


def test_an_answers_first_sentence_is_read_as_written():
    """Its question names the system, but "it" there may be the model ("它只见过一堆固定的例子" on DPO)."""
    assert resolve(["It keeps the old KV cache."]) == ["It keeps the old KV cache."]


def test_a_wrong_claim_made_through_a_pronoun_is_charged_and_quoted_as_said(scorer):
    """A blind trial (twenty-second session): this answer closed infra-09 at depth 4 with no
    misconception, its wrong sentence quoted as evidence for a point it gets wrong."""
    assessment = scorer.assess(BANK["infra-09"], f"{AREAL}{KEEPS}", None)
    hits = {m.misconception: m.quote for m in assessment.misconceptions}
    assert "areal-keeps-cache" in hits
    assert "它会保留旧的 KV cache" in hits["areal-keeps-cache"]
    assert assessment.depth <= 1
    assert all("AReaL 会保留" not in e.quote for e in [*assessment.covered, *assessment.near_misses])


def test_the_same_sentence_naming_another_framework_is_not_charged(scorer):
    """Keeping the stale cache is PipelineRL's design: said of it, the sentence is right."""
    answer = "PipelineRL 的做法不一样。它会保留旧的 KV cache，直接用新权重接着 decode。"
    assessment = scorer.assess(BANK["infra-09"], answer, None)
    assert "areal-keeps-cache" not in {m.misconception for m in assessment.misconceptions}


def test_a_point_made_through_a_pronoun_after_a_time_clause_is_credited(scorer):
    """A blind trial (twenty-fourth session): AReaL's discarding of the KV cache, said with 它 after
    "权重更新的时候", was read without its subject (0.89, under the bar) and listed as not shown."""
    answer = (
        "AReaL 里不会保留。权重更新的时候它会 interrupt 正在生成的请求，把旧权重算出来的 KV cache 丢掉，"
        "然后用新权重对已经生成的 prefix 重新做一次 prefill，再接着 decode。"
    )
    assessment = scorer.assess(BANK["infra-09"], answer, None)
    shown = {e.key_point: e.quote for e in assessment.covered}
    assert "areal-discards" in shown
    assert shown["areal-discards"].startswith("权重更新的时候它会"), "quoted as said"
