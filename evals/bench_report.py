"""The bench's figures: percentiles, ratios to the baseline, the issue's targets, and the tables printed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evals.metrics import percentile


# -- figures ---------------------------------------------------------------------------------
def summary(values: Sequence[float], digits: int) -> dict[str, Any]:
    return {
        "p50": rounded(percentile(values, 0.5), digits),
        "p95": rounded(percentile(values, 0.95), digits),
        "n": len(values),
    }


def ratio(ours: float | None, baseline: float | None) -> float | None:
    """How many times the baseline's figure ours is (below 1: ours is smaller)."""
    return round(ours / baseline, 2) if ours is not None and baseline else None


def rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets for the offline brain, each with what this run measured."""
    turns, first = report["turn_latency_ms"], report["first_question_s"]
    checks = [
        *(
            (f"turn p95, answers {name} words", turns[name]["p95"], limit, "ms")
            for name, limit in (("<=100", 600), ("<=300", 600), ("<=1000", 1500))
        ),
        *(
            (f"turn p95 / embedding floor p95, answers {name} words", turns[name]["over_floor"], 1.5, "x")
            for name in ("<=100", "<=300", "<=1000")
            if turns[name].get("over_floor") is not None
        ),
        *(
            (f"first question above the import floor ({front})", first["above_floor_s"][front], 1.0, "s")
            for front in ("plain", "tui")
        ),
        ("retrieval p95", report["retrieval_ms"]["p95"], 50, "ms"),
        ("no-change rebuild", report["kb_rebuild_s"]["p50"], 2.0, "s"),
        ("peak RSS of an interview", report["peak_rss_mb"]["interview"], 700, "MB"),
        ("whole bench", report["setup"]["seconds"], 180, "s"),
    ]
    return [
        {"target": name, "limit": limit, "unit": unit, "measured": value, "ok": value is not None and value <= limit}
        for name, value, limit, unit in checks
    ]


def table(report: dict[str, Any]) -> str:
    first, turns, retrieval = report["first_question_s"], report["turn_latency_ms"], report["retrieval_ms"]
    floor = first["import_floor"]
    rows = [
        ("first question, plain (s)", first["plain"], "import floor", floor["p50"], first["ratio"]["plain"]),
        ("first question, TUI (s)", first["tui"], "import floor", floor["p50"], first["ratio"]["tui"]),
        ("import floor (s)", floor, "", None, None),
        *(
            (f"turn, answers {name} words (ms)", figures, "naive scorer", figures["baseline"]["p50"], figures["ratio"])
            for name, figures in turns.items()
        ),
        *(
            (f"embedding floor, answers {name} words (ms)", figures["embedding_floor"], "", None, None)
            for name, figures in turns.items()
            if figures.get("embedding_floor")
        ),
        ("retrieval (ms)", retrieval, "plain dense query", retrieval["baseline"]["p50"], retrieval["ratio"]),
        ("kb build, cold (s)", {"p50": report["kb_build_s"]}, "", None, None),
        ("kb rebuild, nothing changed (s)", report["kb_rebuild_s"], "", None, None),
        (
            "peak RSS, interview (MB)",
            {"p50": report["peak_rss_mb"]["interview"]},
            "import floor",
            report["peak_rss_mb"]["import_floor"],
            report["peak_rss_mb"]["ratio"],
        ),
        ("whole offline eval (s)", report["eval_s"], "", None, None),
    ]
    lines = ["| figure | p50 | p95 | n | baseline | baseline p50 | ours / baseline |", "|---|---|---|---|---|---|---|"]
    lines += [
        f"| {name} | {_cell(f.get('p50'))} | {_cell(f.get('p95'))} | {_cell(f.get('n'))} | {who or '-'} | "
        f"{_cell(base)} | {_cell(times)} |"
        for name, f, who, base, times in rows
    ]
    lines += ["", "| target | limit | measured | |", "|---|---|---|---|"]
    lines += [
        f"| {t['target']} | <= {t['limit']} {t['unit']} | {_cell(t['measured'])} | {'ok' if t['ok'] else 'MISSED'} |"
        for t in report["targets"]
    ]
    setup = report["setup"]
    lines.append(
        f"\n{setup['cpus']} CPUs, load average {setup['load_average'][0]} before and {setup['load_average'][1]} "
        f"after; {setup['embedding']} store of {setup['chunks']} chunks; {setup['seconds']} s in all."
    )
    if setup.get("engine_threads"):
        spread = ", ".join(f"{count} on {n}" for n, count in setup["engine_threads"].items())
        lines.append(
            f"e5 batches during the turns, by engine threads (chosen per batch from the machine's load): {spread}."
        )
    return "\n".join(lines)


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def llm_table(report: dict[str, Any]) -> str:
    rows = [
        (name, report[key])
        for name, key in (
            ("turn (ms)", "turn_ms"),
            ("inside model calls (ms)", "model_ms"),
            ("interviewer overhead (ms)", "overhead_ms"),
            ("first streamed token (ms)", "first_token_ms"),
        )
        if report[key]
    ]
    lines = [
        f"model {report['model']}: at most {report['calls_per_turn_max']} calls per turn; "
        f"{report['turns_scored_offline']} turn(s) scored offline",
        "| figure | p50 | p95 | n |",
        "|---|---|---|---|",
    ]
    lines += [f"| {name} | {f['p50']} | {f['p95']} | {f['n']} |" for name, f in rows]
    return "\n".join(lines)
