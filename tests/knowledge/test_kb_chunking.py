"""Chunking: heading paths, CJK / German / mixed text, inline and plain-text headings, budgets."""

from __future__ import annotations

import base64
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kb_helpers import DATA

from knowledge.chunking import chunk_text, estimate_tokens

WS = re.compile(r"\s+")
LATIN = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+")


def squash(text: str) -> str:
    return WS.sub("", text)


def path_of(chunk) -> list[str]:
    """The heading path as its components (independent of the separator used to join them)."""
    return [part.strip() for part in chunk.heading.split("›")] if chunk.heading else []


def assert_lossless(chunks, body: str) -> None:
    """Concatenated chunk texts equal the body, ignoring whitespace: nothing lost or repeated."""
    assert squash("".join(c.text for c in chunks)) == squash(body)


def assert_within(chunks, budget: int) -> None:
    sizes = [estimate_tokens(c.text) for c in chunks]
    assert sizes and max(sizes) <= budget, sizes


# -- Markdown -------------------------------------------------------------------------------


def test_markdown_heading_paths_follow_nesting():
    text = (
        "# Policy optimisation\n\nAn overview of the methods.\n\n"
        "## PPO\n\nPPO optimises a surrogate objective.\n\n"
        "### Clipping\n\nThe ratio is clipped to a small range.\n\n"
        "### Value loss\n\nThe critic is regressed on returns.\n\n"
        "## GRPO\n\nGRPO uses a group baseline instead of a critic.\n"
    )
    chunks = chunk_text(text, 320)
    by_text = {c.text: path_of(c) for c in chunks}
    assert by_text == {
        "An overview of the methods.": ["Policy optimisation"],
        "PPO optimises a surrogate objective.": ["Policy optimisation", "PPO"],
        "The ratio is clipped to a small range.": ["Policy optimisation", "PPO", "Clipping"],
        "The critic is regressed on returns.": ["Policy optimisation", "PPO", "Value loss"],
        "GRPO uses a group baseline instead of a critic.": ["Policy optimisation", "GRPO"],
    }
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert not any("#" in c.text for c in chunks)


def test_markdown_with_crlf_line_endings():
    chunks = chunk_text("# Title\r\n\r\n## Part\r\n\r\nBody line one.\r\nBody line two.\r\n")
    assert [path_of(c) for c in chunks] == [["Title", "Part"]]
    assert "\r" not in chunks[0].text
    assert squash(chunks[0].text) == squash("Body line one. Body line two.")


def test_embed_text_carries_the_heading():
    (chunk,) = chunk_text("# Trust region\n\nKeep the new policy near the old one.\n")
    assert "Trust region" in chunk.embed_text
    assert "Keep the new policy near the old one." in chunk.embed_text


def test_untitled_text_uses_the_given_title():
    (chunk,) = chunk_text("Just one sentence, with no heading at all.", title="loose-note")
    assert chunk.heading == "loose-note"


def test_comment_in_fenced_code_block_is_not_a_heading():
    """`# ...` inside a ``` block is code, not a Markdown heading (CommonMark)."""
    text = (
        "# Guide\n\n## Ratio\n\nCompute it like this:\n\n"
        "```python\n# compute the ratio\nratio = (logp - old_logp).exp()\n```\n\n"
        "Then clip it to the trust region.\n"
    )
    chunks = chunk_text(text, 320)
    assert all(path_of(c) == ["Guide", "Ratio"] for c in chunks), [c.heading for c in chunks]
    assert "compute the ratio" in " ".join(c.text for c in chunks)


# -- Chinese, mixed, German -----------------------------------------------------------------

ZH_SENTENCES = [
    "近端策略优化通过裁剪重要性采样比率来限制每一步策略更新的幅度",
    "群组相对策略优化去掉了价值网络而用同一提示下多个回答的平均奖励作为基线",
    "训练与推理引擎之间的数值差异会让离策略修正变得必要",
    "长尾的生成长度使同步强化学习中的大部分显卡处于空闲等待状态",
    "专家并行把不同专家放到不同设备上并通过全对全通信交换令牌",
]


def chinese_body(n: int, seed: int = 0, punctuate: bool = True) -> str:
    rng = random.Random(seed)
    parts = []
    for _ in range(n):
        parts.append(rng.choice(ZH_SENTENCES))
        if punctuate:
            parts.append(rng.choice("。，；！？、"))
    return "".join(parts)


@pytest.mark.parametrize("budget", [64, 100, 320])
def test_chinese_without_spaces_is_split_between_characters_within_budget(budget):
    body = chinese_body(120)
    assert " " not in body
    chunks = chunk_text(body, budget)
    assert len(chunks) > 1
    assert_within(chunks, budget)
    assert_lossless(chunks, body)
    for chunk in chunks:
        # every chunk is a contiguous stretch of the original: cut only between characters
        assert squash(chunk.text) in body


def test_chinese_markdown_sections_keep_their_headings():
    text = (
        f"# 强化学习笔记\n\n## 近端策略优化\n\n{chinese_body(40, 1)}\n\n## 群组相对策略优化\n\n{chinese_body(40, 2)}\n"
    )
    chunks = chunk_text(text, 80)
    paths = {tuple(path_of(c)) for c in chunks}
    assert paths == {("强化学习笔记", "近端策略优化"), ("强化学习笔记", "群组相对策略优化")}
    assert_within(chunks, 80)
    assert_lossless(chunks, chinese_body(40, 1) + chinese_body(40, 2))


def test_chinese_sentence_without_any_punctuation_or_space():
    body = chinese_body(200, seed=3, punctuate=False)
    chunks = chunk_text(body, 64)
    assert_within(chunks, 64)
    assert_lossless(chunks, body)
    assert len(chunks) >= len(body) // 64


MIXED = (
    "在 LLM 的 RL 训练里，PPO 用 clipped surrogate objective 限制 policy ratio 的变化；"
    "GRPO 则用 group baseline 代替 value network。异步框架如 AReaL 和 PipelineRL 需要处理 staleness，"
    "也就是生成 rollout 的 policy 与正在训练的 policy 之间相差的 optimizer steps。"
    "Continuous batching 能提高 vLLM 的吞吐量，但会让 rollout 的完成顺序与提交顺序不同。"
)


@pytest.mark.parametrize("budget", [64, 120])
def test_mixed_chinese_english_keeps_words_whole(budget):
    body = MIXED * 12
    chunks = chunk_text(body, budget)
    assert len(chunks) > 1
    assert_within(chunks, budget)
    assert_lossless(chunks, body)
    words = set(LATIN.findall(body))
    for chunk in chunks:
        assert set(LATIN.findall(chunk.text)) <= words, chunk.text


GERMAN = (
    "Die Größe der Schrittweite beeinflusst die Stabilität während des Trainings erheblich. "
    "Überschätzte Vorteile führen zu übermäßigen Änderungen der Strategie, weshalb PPO das "
    "Verhältnis begrenzt. Gemäß der Vertrauensregion dürfen sich alte und neue Strategie nur "
    "geringfügig unterscheiden; außerdem wird die Entropie überwacht. "
)


def test_german_umlauts_survive_headings_and_splits():
    text = f"# Größenordnung der Schritte\n\n## Übung für Fortgeschrittene\n\n{GERMAN * 15}\n"
    chunks = chunk_text(text, 64)
    assert len(chunks) > 1
    assert {tuple(path_of(c)) for c in chunks} == {("Größenordnung der Schritte", "Übung für Fortgeschrittene")}
    assert_within(chunks, 64)
    assert_lossless(chunks, GERMAN * 15)
    words = set(LATIN.findall(GERMAN))
    for chunk in chunks:
        assert set(LATIN.findall(chunk.text)) <= words  # "Größe", "übermäßigen" never cut


def test_german_plain_text_seed_keeps_section_titles_and_umlauts():
    text = (DATA / "seed_001_plain_de.txt").read_text(encoding="utf-8")
    chunks = chunk_text(text, 320)
    first_components = {path_of(c)[0] for c in chunks}
    assert {"RL-Interviewfragen 2026", "Algorithmus", "Infrastruktur"} <= first_components
    joined = " ".join(c.text for c in chunks)
    for word in ("Verständnis", "Verhältnis", "Präzisionen", "großen", "Rollout-Engpasses"):
        assert word in text and word in joined
    # the numbered questions are body text, in the section they belong to
    q7 = next(c for c in chunks if "7. Wie funktioniert das Clipping in PPO?" in c.text)
    assert path_of(q7) == ["Algorithmus"]
    infra1 = next(c for c in chunks if "1. Ohne CPU-Offload" in c.text)
    assert path_of(infra1) == ["Infrastruktur"]
    assert_within(chunks, 320)


# -- inline headings (seed 000) --------------------------------------------------------------

SEED_000 = DATA / "seed_000_inline_headings_zh.txt"


def test_inline_heading_seed_is_really_one_line():
    text = SEED_000.read_text(encoding="utf-8")
    assert text.strip().count("\n") == 0
    assert " ### 7. PPO clipping" in text


def test_inline_headings_become_chunk_headings():
    text = SEED_000.read_text(encoding="utf-8")
    chunks = chunk_text(text, 320)
    leaves = [path_of(c)[-1] for c in chunks]
    q7 = [c for c in chunks if path_of(c)[-1].startswith("7. PPO clipping")]
    assert q7, leaves
    # the title is the question, not the question plus its answer
    assert all(len(path_of(c)[-1]) <= 120 for c in chunks), leaves
    assert "防止策略突变" not in q7[0].heading
    assert any("clip 是为了防止策略突变" in c.text for c in q7)
    assert any("CISPO 不一样" in c.text for c in q7)
    # nested under the section heading they follow
    assert any("算法 (Algorithm)" in path_of(c) for c in q7)


def test_every_numbered_question_of_the_inline_seed_gets_its_own_heading():
    text = SEED_000.read_text(encoding="utf-8")
    chunks = chunk_text(text, 320)
    algo = {
        int(m.group(1))
        for c in chunks
        if "算法 (Algorithm)" in path_of(c)
        for m in [re.match(r"(\d+)\. ", path_of(c)[-1])]
        if m
    }
    infra = {
        int(m.group(1))
        for c in chunks
        if "基础设施 (Infrastructure)" in path_of(c)
        for m in [re.match(r"(\d+)\. ", path_of(c)[-1])]
        if m
    }
    assert algo == set(range(1, 20))
    assert infra == set(range(1, 17))
    assert not any("###" in c.text or "## " in c.text for c in chunks)


# -- plain-text titles (seed 003) ------------------------------------------------------------

SEED_003_LINES = (DATA / "seed_003_titles_zh.txt").read_text(encoding="utf-8").splitlines()
# the file alternates article title / one-paragraph summary, after a header line "相关文档"
TITLE_SUMMARY = [(SEED_003_LINES[0], SEED_003_LINES[1])] + [
    (SEED_003_LINES[i], SEED_003_LINES[i + 1]) for i in range(3, len(SEED_003_LINES) - 1, 2)
]


def test_seed_003_has_the_expected_shape():
    assert SEED_003_LINES[2] == "相关文档"
    assert len(TITLE_SUMMARY) == 13
    assert all(len(summary) > 100 and len(title) < 120 for title, summary in TITLE_SUMMARY)


@pytest.mark.parametrize("title,summary", TITLE_SUMMARY, ids=[t[:24] for t, _ in TITLE_SUMMARY])
def test_plain_text_article_titles_become_headings(title, summary):
    chunks = chunk_text("\n".join(SEED_003_LINES), 320)
    holding = [c for c in chunks if summary[:40] in c.text]
    assert holding, "summary lost"
    assert path_of(holding[0])[-1] == title.strip()
    assert title.strip() not in " ".join(c.text for c in chunks)


# -- budgets on degenerate input --------------------------------------------------------------


def test_one_enormous_english_sentence_without_punctuation():
    rng = random.Random(7)
    vocab = "policy gradient ratio clip advantage baseline critic rollout reward token batch".split()
    body = " ".join(rng.choice(vocab) for _ in range(20_000))
    chunks = chunk_text(f"# Run-on\n\n{body}\n", 320)
    assert len(chunks) > 20
    assert_within(chunks, 320)
    assert_lossless(chunks, body)
    for chunk in chunks:  # cut at spaces, never inside a word
        assert set(chunk.text.split()) <= set(vocab)


def test_long_unbroken_token_is_still_cut_to_a_bounded_size():
    """A base64 blob (a data: URI in Markdown) has no spaces: it must still be split, or the
    chunk is far over the embedding model's window (a model token is at most a few characters of
    random base64)."""
    blob = base64.b64encode(random.Random(1).randbytes(30_000)).decode()
    chunks = chunk_text(f"# Figure\n\n![plot](data:image/png;base64,{blob})\n", 320)
    assert_lossless(chunks, f"![plot](data:image/png;base64,{blob})")
    assert max(len(c.text) for c in chunks) <= 8 * 320, [len(c.text) for c in chunks]


# -- properties -------------------------------------------------------------------------------

CJK_CHARS = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
PUNCT = st.sampled_from(list("。，；！？、.,;!? "))
WORDS = st.sampled_from(["PPO", "GRPO", "KL", "vLLM", "Größe", "rollout", "batch", "über", "2026"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.one_of(CJK_CHARS, PUNCT, WORDS.map(lambda w: f" {w} ")), min_size=1, max_size=900),
    budget=st.sampled_from([64, 96, 200]),
)
def test_property_single_paragraph_is_lossless_and_within_budget(pieces, budget):
    body = "".join(pieces)
    chunks = chunk_text(body, budget)
    if not body.strip():
        assert chunks == []
        return
    assert_within(chunks, budget)
    assert_lossless(chunks, body)
