"""`rl-interview bench`: how fast the interviewer is on this machine, each figure next to a naive
baseline measured in the same run.

Figures about processes (first question, the import floor, kb build, peak memory, the whole eval)
time the real CLI in fresh interpreters; turn latency and retrieval drive the real graph and store
in this process. Every run has its own temporary homes, our notes as the only source and none of
the user's RL_INTERVIEW_* settings, so two runs on one machine compare.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import cycle, islice
from pathlib import Path
from typing import Any

from agent.interview.events import Prompted, SessionDone
from agent.text import size
from common.settings import Settings
from evals.bench_process import CLI, BenchError, bench_env, bench_settings, command_line, first_line_s, run_process
from evals.bench_report import ratio, rounded, summary, targets
from evals.metrics import percentile
from knowledge.cores import gauge

FIRST_QUESTION = "algo-07"
BUCKETS = (("<=100", 0, 100), ("<=300", 100, 300), ("<=1000", 300, 1000))
"""Answer length in words (Latin words plus CJK characters / 2, as the scorer counts them)."""
NEXT_TURN = (Prompted, SessionDone)
"""The events that end a turn: the interviewer speaks again, or the session is over."""
IMPORT_FLOOR = (sys.executable, "-c", "import langgraph.graph, chromadb")
TUI_PROBE = (sys.executable, "-m", "tui.first_frame")
MAX_PIECES = 400


@dataclass(frozen=True)
class BenchPlan:
    embedding: str
    """The store's embedding: e5 (the default a user gets) or hash (quick: no model, build in seconds)."""
    warmup: int
    """Runs of each series thrown away first (page cache, lazy loads)."""
    process_runs: int
    """Measured runs of each short process: import floor, first question, no-change rebuild."""
    turn_samples: int
    """Measured answers per length bucket."""
    retrieval_queries: int
    eval_runs: int


FULL = BenchPlan("e5", warmup=1, process_runs=5, turn_samples=20, retrieval_queries=60, eval_runs=2)
QUICK = BenchPlan("hash", warmup=0, process_runs=1, turn_samples=3, retrieval_queries=6, eval_runs=1)


def grow_answer(pieces: Sequence[str], low: float, high: float) -> str | None:
    """An answer of (low, high] words: the first piece alone when it fits (a real answer), else whole
    pieces joined, cycling through them, while they fit, until past the bucket's middle."""
    if low < size(pieces[0]) <= high:
        return pieces[0]
    text = ""
    for piece in islice(cycle(pieces), MAX_PIECES):
        joined = f"{text}\n\n{piece}" if text else piece
        if size(joined) <= high:
            text = joined
            if size(text) > (low + high) / 2:
                return text
    return text if low < size(text) <= high else None


def spread(items: Sequence[Any], n: int) -> list[Any]:
    """n items evenly spaced over the sequence (all of them when there are fewer)."""
    if len(items) <= n:
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def length_samples(answers: Sequence[tuple[str, str]], per_bucket: int) -> dict[str, list[tuple[str, str]]]:
    """(question, answer) pairs per bucket: real gold answers up to 100 words; longer ones made of a
    question's gold answers put together, so every answer stays on its question."""
    by_question: dict[str, list[str]] = defaultdict(list)
    for question_id, answer in answers:
        by_question[question_id].append(answer)
    samples = {}
    for name, low, high in BUCKETS:
        made = []
        for question_id, pieces in sorted(by_question.items()):
            for start in range(len(pieces)):
                grown = grow_answer(pieces[start:] + pieces[:start], low, high)
                if grown is not None and (low > 0 or grown == pieces[start]):
                    made.append((question_id, grown))
        samples[name] = spread(made, per_bucket)
    return samples


def embedding_floor_ms(answer: str) -> float | None:
    """The time to embed the answer's sentences once, in one batch, with a fresh cache: what the
    judge by meaning cannot avoid, and the floor its turn is compared with."""
    from agent.judge.meaning import embedder_for
    from agent.judge.scoring import prepare_answer

    content = prepare_answer(answer, 20_000).content
    if not content:
        return None
    embed = embedder_for("e5")
    started = time.perf_counter()
    embed(content)
    return (time.perf_counter() - started) * 1000


def first_question(plan: BenchPlan, work: Path) -> dict[str, Any]:
    """Process start to the first question printed (plain) and drawn (TUI, headless), each in a fresh
    home, next to the bare imports every interviewer process pays for."""
    series: dict[str, list[float]] = defaultdict(list)
    floor_rss = 0.0
    for run in range(plan.warmup + plan.process_runs):
        # interleaved, so a change in the machine's load touches the three series alike
        with tempfile.TemporaryDirectory(dir=work) as home:
            floor = run_process(IMPORT_FLOOR, bench_env(Path(home), plan.embedding))
        with tempfile.TemporaryDirectory(dir=work) as home:
            plain = first_line_s(
                [*CLI, "interview", "--plain", "--jsonl", "--question", FIRST_QUESTION],
                bench_env(Path(home), plan.embedding),
            )
        with tempfile.TemporaryDirectory(dir=work) as home:
            tui = first_line_s([*TUI_PROBE, FIRST_QUESTION], bench_env(Path(home), plan.embedding))
        if run >= plan.warmup:
            series["import_floor"].append(floor.exit_s)
            series["plain"].append(plain)
            series["tui"].append(tui)
            floor_rss = max(floor_rss, floor.peak_rss_mb)
    figures = {name: summary(values, 2) for name, values in series.items()}
    floor_p50 = figures["import_floor"]["p50"]
    return {
        **figures,
        "above_floor_s": {front: round(figures[front]["p50"] - floor_p50, 2) for front in ("plain", "tui")},
        "ratio": {front: ratio(figures[front]["p50"], floor_p50) for front in ("plain", "tui")},
        "import_floor_rss_mb": round(floor_rss, 1),
    }


def kb_build(plan: BenchPlan, home: Path) -> tuple[float, dict[str, Any]]:
    """The whole `kb build` process: once cold, then again with nothing changed."""
    env = bench_env(home, plan.embedding)
    cold = run_process([*CLI, "kb", "build"], env).exit_s
    again = [run_process([*CLI, "kb", "build"], env).exit_s for _ in range(plan.warmup + plan.process_runs)]
    return round(cold, 1), summary(again[plan.warmup :], 2)


async def _turn_ms(services: Any, question_id: str, answer: str) -> float:
    """One answer submitted to a fresh session, to the next interviewer turn ready (a follow-up, a
    hint, or the next question when it moves on)."""
    from agent.planning import PlanRequest
    from agent.state import CandidateAction

    other = next(q for q in services.bank if q != question_id)
    session = services.interview()
    async for _ in session.start(
        PlanRequest(ids=[question_id, other]), "en", services.settings.interview.max_follow_ups
    ):
        pass
    started = time.perf_counter()
    elapsed = None
    async for event in session.submit(CandidateAction.answer, answer):
        if elapsed is None and isinstance(event, NEXT_TURN):
            elapsed = (time.perf_counter() - started) * 1000
    if elapsed is None:
        raise BenchError(f"no interviewer turn followed an answer to {question_id}")
    return elapsed


def _naive_ms(model_answer: str, answer: str) -> float:
    from evals.replay import baseline_similarity

    started = time.perf_counter()
    baseline_similarity([answer], [model_answer])
    return (time.perf_counter() - started) * 1000


async def turn_latency(
    plan: BenchPlan, settings: Settings, samples: dict[str, list[tuple[str, str]]]
) -> dict[str, Any]:
    """Turn latency per length bucket through the real graph (offline brain, this home's retriever and
    checkpoints), next to the naive scorer on the same answers."""
    from agent.app import open_services

    out = {}
    async with open_services(settings) as services:
        for question_id, answer in samples[BUCKETS[0][0]][: plan.warmup + 2]:  # loads the embedding, the tokenizer
            await _turn_ms(services, question_id, answer)
        for name, answers in samples.items():
            ours, naive, floors = [], [], []
            for question_id, answer in answers:
                ours.append(await _turn_ms(services, question_id, answer))
                naive.append(_naive_ms(services.bank[question_id].model_answer, answer))
                if settings.judge.embedding == "e5":
                    floors.append(embedding_floor_ms(answer) or 0.0)
            figures = summary(ours, 1)
            baseline = summary(naive, 2)
            floor = summary(floors, 1) if floors else None
            out[name] = {
                **figures,
                "words_p50": rounded(percentile([size(a) for _, a in answers], 0.5), 0),
                "baseline": {"p50": baseline["p50"], "p95": baseline["p95"]},
                "ratio": ratio(figures["p50"], baseline["p50"]),
                "embedding_floor": floor,
                "over_floor": ratio(figures["p95"], floor["p95"]) if floor else None,
            }
    return out


def retrieval(plan: BenchPlan, settings: Settings, queries: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The retrieve node's search (the question's chunks nearest to what was said, hybrid) on gold
    answers, on top of the judge's pass over the answer's sentences (made once per turn, for both;
    not timed here: the turn's figure has it), next to a plain dense Chroma query for the same answer."""
    from agent.interview.retrieval import StoreRetriever, judge_pass
    from knowledge.store import KnowledgeStore

    store = KnowledgeStore(settings)
    retriever = StoreRetriever(store, judge_pass(settings))
    collection = store.collection()
    ours, dense = [], []
    for i, (question_id, said) in enumerate(queries):
        if retriever.said_vector:
            retriever.said_vector(question_id, said)
        started = time.perf_counter()
        retriever.references(question_id, said, k=2)
        middle = time.perf_counter()
        collection.query(query_texts=[said], n_results=2, where={"question_id": question_id})
        ended = time.perf_counter()
        if i >= plan.warmup:
            ours.append((middle - started) * 1000)
            dense.append((ended - middle) * 1000)
    figures, baseline = summary(ours, 1), summary(dense, 1)
    return {
        **figures,
        "baseline": {"p50": baseline["p50"], "p95": baseline["p95"]},
        "ratio": ratio(figures["p50"], baseline["p50"]),
    }


def peak_rss_mb(home: Path, embedding: str, answers: Sequence[tuple[str, str]]) -> float:
    """Peak memory of a plain session on this home's store that answers three questions and ends."""
    args = [*CLI, "interview", "--plain", "--jsonl"]
    stdin = ""
    for question_id, answer in answers[:3]:
        args += ["--question", question_id]
        stdin += " ".join(answer.split()) + "\n\n/skip\n"  # one line each: an empty line ends an answer
    run = run_process(args, bench_env(home, embedding), stdin + "/end\n")
    if '"session_done"' not in run.stdout:
        raise BenchError(f"`{command_line(args)}` did not finish its session")
    return round(run.peak_rss_mb, 1)


def eval_seconds(plan: BenchPlan, work: Path) -> dict[str, Any]:
    runs = []
    for _ in range(plan.eval_runs):
        with tempfile.TemporaryDirectory(dir=work) as home:
            runs.append(run_process([*CLI, "eval", "--json"], bench_env(Path(home), plan.embedding)).exit_s)
    return summary(runs, 1)


def gold_answers() -> list[tuple[str, str]]:
    from evals.gold import load_gold
    from knowledge.bank import load_bank

    transcripts, _ = load_gold([], set(load_bank()))
    return [(turn.question, turn.answer) for t in transcripts for turn in t.turns if size(turn.answer) > 0]


def run_bench(plan: BenchPlan, progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    answers = gold_answers()
    with tempfile.TemporaryDirectory(prefix="rl-interview-bench-") as tmp:
        work, home = Path(tmp), Path(tmp) / "home"
        progress("first question, plain and TUI, and the import floor")
        first = first_question(plan, work)
        progress(
            f"kb build with the {plan.embedding} embedding"
            + (" (the cold build takes a minute or two)" if plan.embedding == "e5" else "")
        )
        build_s, rebuild = kb_build(plan, home)
        settings = bench_settings(home, plan.embedding)
        progress("turn latency")
        batches_before = Counter(gauge.chosen)
        turns = asyncio.run(turn_latency(plan, settings, length_samples(answers, plan.turn_samples)))
        engine_threads = {str(n): c for n, c in sorted((gauge.chosen - batches_before).items())}
        progress("retrieval")
        queries = spread(answers, plan.warmup + plan.retrieval_queries)
        retrieval_ms = retrieval(plan, settings, queries)
        progress("peak memory of an interview")
        longest = {q: (q, a) for q, a in sorted(answers, key=lambda qa: size(qa[1]))}  # the last one wins
        rss = peak_rss_mb(home, plan.embedding, spread(list(longest.values()), 3))
        progress("the whole offline eval")
        eval_s = eval_seconds(plan, work)
        from knowledge.store import KnowledgeStore

        chunks = KnowledgeStore(settings).status()["chunks"]
    report = {
        "first_question_s": first,
        "turn_latency_ms": turns,
        "retrieval_ms": retrieval_ms,
        "kb_build_s": build_s,
        "kb_rebuild_s": rebuild,
        "peak_rss_mb": {
            "interview": rss,
            "import_floor": first["import_floor_rss_mb"],
            "ratio": ratio(rss, first["import_floor_rss_mb"]),
        },
        "eval_s": eval_s,
        "setup": {
            "embedding": plan.embedding,
            "quick": plan == QUICK,
            "chunks": chunks,
            "cpus": os.cpu_count(),
            "engine_threads": engine_threads,
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "seconds": round(time.perf_counter() - started, 1),
        },
    }
    report["targets"] = targets(report)
    return report


def llm_bench(model: str, api_base: str | None) -> dict[str, Any]:
    """The LLM brain's turns against `model`, in a throwaway home."""
    from common.settings import llm_overrides, load_settings
    from evals.bench_llm import run_llm_bench

    llm = load_settings(**llm_overrides(model, api_base)).llm
    with tempfile.TemporaryDirectory(prefix="rl-interview-bench-") as home:
        return run_llm_bench(llm, Path(home))
