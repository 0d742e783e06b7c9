"""Searching the store: hits, the per-question filter, reading order, and `kb search --json`."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from kb_helpers import write

from knowledge.store import Hit, KnowledgeStore, fuse

ALGO_07 = """# PPO clipping

Question: algo-07

## Clipped surrogate
The probability ratio between the new and the old policy is clipped to one plus or minus epsilon.

## Taking the minimum
The minimum of the clipped and the unclipped objective makes the bound pessimistic.

## Without clipping
Without clipping, large advantage estimates push the ratio far from one and training diverges.

## CISPO
CISPO clips the importance weight itself and keeps a gradient for every token.
"""

ALGO_08 = """# KL penalty in GRPO

Question: algo-08

## Why a KL term
The KL penalty keeps the policy near the reference model, like clipping keeps it near the old policy.

## Estimators
The k3 estimator r - 1 - log r is unbiased for the reverse KL and never negative.
"""

LOOSE = """# Serving notes

Continuous batching in vLLM keeps the GPU busy while requests of different length finish.
"""


@pytest.fixture
def store(hash_settings, tmp_path: Path) -> KnowledgeStore:
    folder = tmp_path / "notes"
    write(folder / "algo-07.md", ALGO_07)
    write(folder / "algo-08.md", ALGO_08)
    write(folder / "serving.md", LOOSE)
    built = KnowledgeStore(hash_settings)
    report = built.build([folder])
    assert report.skipped == []
    return built


def test_free_text_search_returns_hits_with_source_and_heading(store, tmp_path):
    hits = store.search("k3 estimator reverse KL", 3)
    assert 0 < len(hits) <= 3
    assert all(isinstance(h, Hit) for h in hits)
    top = hits[0]
    assert top.source == str((tmp_path / "notes" / "algo-08.md").resolve())
    assert top.question_id == "algo-08"
    assert "Estimators" in top.heading
    assert "k3 estimator" in top.text
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_chunks_without_a_question_line_have_no_question_id(store):
    hits = store.search("continuous batching vLLM", 1)
    assert hits[0].question_id is None
    assert hits[0].source.endswith("serving.md")
    assert "Serving notes" in hits[0].heading


@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_question_filter_returns_only_that_questions_chunks(store, mode):
    # "clipping" and "KL" appear in both notes; the filter must win over relevance
    for question in ("algo-07", "algo-08"):
        hits = store.search("KL penalty clipping policy", 10, question_id=question, mode=mode)
        assert hits, (question, mode)
        assert {h.question_id for h in hits} == {question}
        assert all(h.source.endswith(f"{question}.md") for h in hits)


def test_question_filter_with_no_such_question_returns_nothing(store):
    assert store.search("clipping", 5, question_id="infra-16") == []
    assert store.for_question("infra-16") == []


def test_k_limits_the_number_of_hits(store):
    assert len(store.search("policy", 1)) == 1
    assert len(store.search("policy", 2)) == 2


def test_empty_query_with_question_gives_the_note_in_order(store):
    hits = store.search("   ", 10, question_id="algo-07")
    assert [h.text for h in hits] == [h.text for h in store.for_question("algo-07")]
    assert store.search("", 5) == []


def test_for_question_returns_chunks_in_reading_order(store):
    hits = store.for_question("algo-07")
    positions = [ALGO_07.index(h.text[:40]) for h in hits]
    assert len(hits) == 4
    assert positions == sorted(positions)
    assert [h.heading.split("›")[-1].strip() for h in hits] == [
        "Clipped surrogate",
        "Taking the minimum",
        "Without clipping",
        "CISPO",
    ]
    assert len(store.for_question("algo-07", k=2)) == 2


def test_for_question_keeps_each_document_together_in_reading_order(hash_settings, tmp_path):
    """Two documents about the same question (our note and a user's --source file): each one's
    chunks come in its own reading order, not interleaved chunk 0, chunk 0, chunk 1, chunk 1."""
    folder = tmp_path / "two"
    write(folder / "a.md", ALGO_07)
    write(folder / "b.md", ALGO_07.replace("# PPO clipping", "# More on PPO clipping").replace("The ", "A "))
    store = KnowledgeStore(hash_settings)
    store.build([folder])
    hits = store.for_question("algo-07", k=20)
    assert len(hits) == 8
    sources = [h.source for h in hits]
    # each source's chunks form one contiguous run
    runs = [s for i, s in enumerate(sources) if i == 0 or sources[i - 1] != s]
    assert len(runs) == 2, sources


def test_cli_search_json_has_the_documented_keys(runner, app, tmp_path):
    folder = tmp_path / "notes"
    write(folder / "algo-07.md", ALGO_07)
    write(folder / "algo-08.md", ALGO_08)
    assert runner.invoke(app, ["kb", "build", "--source", str(folder)]).exit_code == 0

    result = runner.invoke(app, ["kb", "search", "k3 estimator", "--json", "--k", "3"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert 0 < len(rows) <= 3
    for row in rows:
        assert set(row) == {"question_id", "source", "heading", "text", "score"}
        assert isinstance(row["score"], float)
    assert rows[0]["question_id"] == "algo-08"

    only = runner.invoke(app, ["kb", "search", "clipping", "--json", "--question", "algo-08"])
    assert only.exit_code == 0
    assert {r["question_id"] for r in json.loads(only.stdout)} == {"algo-08"}


def test_cli_search_json_keeps_chinese_readable(runner, app, tmp_path):
    folder = tmp_path / "zh"
    write(folder / "zh.md", "# 裁剪\n\nQuestion: algo-07\n\n近端策略优化把概率比裁剪到一个小区间里。\n")
    assert runner.invoke(app, ["kb", "build", "--source", str(folder)]).exit_code == 0
    result = runner.invoke(app, ["kb", "search", "概率比裁剪", "--json"])
    assert result.exit_code == 0
    assert "近端策略优化" in result.stdout  # not \\u escapes
    assert json.loads(result.stdout)[0]["heading"] == "裁剪"


def test_cli_search_on_empty_store_is_a_clear_error(runner, app):
    result = runner.invoke(app, ["kb", "search", "anything"])
    assert result.exit_code == 1
    assert "kb build" in result.output
    assert "Traceback" not in result.output


def test_lexical_search_segments_chinese(hash_settings, tmp_path):
    folder = tmp_path / "zh"
    write(folder / "a.md", "# 甲\n\n重要性采样用于复用旧策略生成的样本。\n")
    write(folder / "b.md", "# 乙\n\n专家并行把不同专家放在不同显卡上。\n")
    store = KnowledgeStore(hash_settings)
    store.build([folder])
    hits = store.search("专家并行的吞吐量", 2, mode="lexical")
    assert hits and hits[0].source.endswith("b.md")
    assert all(not h.source.endswith("a.md") for h in hits)


def _hit(cid: str, score: float = 0.0) -> Hit:
    return Hit(cid, None, "s", "h", cid, score)


def test_fuse_rewards_agreement_between_rankings():
    dense = [_hit("a"), _hit("b"), _hit("c")]
    lexical = [_hit("c"), _hit("b"), _hit("d")]
    fused = fuse([dense, lexical])
    ids = [h.chunk_id for h in fused]
    assert set(ids) == {"a", "b", "c", "d"}
    assert ids.index("b") < ids.index("a") and ids.index("c") < ids.index("d")
    assert fused[-1].chunk_id == "d"
    assert all(x.score >= y.score for x, y in itertools.pairwise(fused))
