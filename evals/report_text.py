"""The eval report as text: the terminal table, the Markdown report and the per-turn explanation."""

from __future__ import annotations

from typing import Any

from evals.metrics import LEVELS

HEADLINE = ("qwk", "exact", "adjacent", "spearman", "smd", "next_action_accuracy", "probe_hit_rate", "trap_pass_rate")


def explanation(report: dict[str, Any]) -> str:
    """Per turn, the evidence behind the depth: sentence, signal, strength; and the near misses."""
    lines = []
    for row in report["per_turn"]:
        lines.append(
            f"{row['transcript']} turn {row['index']} ({row['question']}): depth {row['depth']}, gold {row['gold_depth']}"
        )
        for e in row.get("evidence", []):
            how = e["how"] + (f" {e['strength']:.2f}" if e.get("strength") is not None else "")
            lines.append(f"  + {e['key_point']} (level {e['level']}, {how}): {e['quote'][:140]}")
            if e.get("nearest"):
                lines.append(f"      read as: {e['nearest'][:140]}")
        for e in row.get("near_misses", []):
            lines.append(f"  - {e['key_point']} not credited ({e['strength']:.2f}): {e['quote'][:140]}")
        for m in row.get("misconceptions", []):
            lines.append(f"  ! {m}")
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _filled(shape: str, figures: dict[str, Any]) -> str:
    return shape.format(**{k: _fmt(v) for k, v in figures.items()})


def table(report: dict[str, Any]) -> str:
    rows = [("all", report)] + [(f"split {name}", s) for name, s in report["splits"].items()]
    lines = ["| set | turns | " + " | ".join(HEADLINE) + " |", "|---" * (len(HEADLINE) + 2) + "|"]
    for name, figures in rows:
        for who, values in (
            (report["brain"], figures),
            ("baseline", figures["baseline"]),
            ("rater ceiling", figures.get("ceiling")),
        ):
            if values:
                lines.append(
                    f"| {name} ({who}) | {values['turns']} | "
                    + " | ".join(_fmt(values.get(k)) for k in HEADLINE)
                    + " |"
                )
    summaries = (
        ("parts", "follow-ups to the part the gold interviewer went to", "{part_hit_rate} ({turns} turns)"),
        (
            "labelled_points",
            "key points credited on the gold answers, against blind quote labels",
            "precision {precision} recall {recall} ({labelled} labelled), the labellers' quote {quoted}",
        ),
        ("by_category", "blind-written answers", "{turns} turns, over {over_scored}, under {under_scored}"),
    )
    for key, title, shape in summaries:
        if report.get(key):
            lines.append(f"\n{title}: " + "; ".join(f"{name} " + _filled(shape, f) for name, f in report[key].items()))
    lines.append(
        f"\nlatency per turn: p50 {report['latency_ms']['p50']} ms, p95 {report['latency_ms']['p95']} ms; "
        f"{report['transcripts']} transcripts in {report['seconds']} s"
    )
    if report.get("model_use"):
        use = report["model_use"]
        cost = "price unknown" if use["cost_usd_per_turn"] is None else f"${use['cost_usd_per_turn']:.6f}"
        offline = "; ".join(f"{n} {reason}" for reason, n in use["fallback_reasons"].items())
        lines.append(
            f"model use per turn: {use['tokens_in_per_turn']} tokens in, {use['tokens_out_per_turn']} out, "
            f"{cost}; {use['scored_offline']} turns scored offline" + (f" ({offline})" if offline else "")
        )
    return "\n".join(lines)


def markdown(report: dict[str, Any]) -> str:
    parts = [
        "# Interviewer evaluation",
        "",
        table(report),
        "",
        "## Confusion matrix (rows: gold depth, columns: predicted)",
        "",
        "| gold \\ pred | " + " | ".join(str(i) for i in range(LEVELS)) + " |",
        "|---" * (LEVELS + 1) + "|",
    ]
    parts += [f"| {g} | " + " | ".join(str(n) for n in row) + " |" for g, row in enumerate(report["confusion"])]
    for title, key in (("By language", "by_language"), ("By section", "by_section"), ("By trap", "by_trap")):
        parts += [
            "",
            f"## {title}",
            "",
            "| group | turns | qwk | exact | adjacent | next | traps |",
            "|---|---|---|---|---|---|---|",
        ]
        parts += [
            f"| {name} | {s['turns']} | {_fmt(s['qwk'])} | {_fmt(s['exact'])} | {_fmt(s['adjacent'])} | "
            f"{_fmt(s['next_action_accuracy'])} | {_fmt(s['trap_pass_rate'])} |"
            for name, s in report[key].items()
        ]
    if report.get("by_category"):
        parts += [
            "",
            "## Blind-written answers by category",
            "",
            "| category | turns | qwk | exact | over-scored | under-scored |",
            "|---|---|---|---|---|---|",
        ]
        parts += [
            f"| {name} | {s['turns']} | {_fmt(s['qwk'])} | {_fmt(s['exact'])} | {_fmt(s['over_scored'])} | "
            f"{_fmt(s['under_scored'])} |"
            for name, s in report["by_category"].items()
        ]
    worst = sorted(report["per_turn"], key=lambda r: -abs(r["depth"] - r["gold_depth"]))[:10]
    parts += [
        "",
        "## Worst turns",
        "",
        "| transcript | turn | question | gold | scored | flags |",
        "|---|---|---|---|---|---|",
    ]
    parts += [
        f"| {r['transcript']} | {r['index']} | {r['question']} | {r['gold_depth']} | {r['depth']} | {', '.join(r['flags'])} |"
        for r in worst
    ]
    if report.get("problems"):
        parts += ["", "## Files not evaluated", ""] + [f"- {p}" for p in report["problems"]]
    return "\n".join(parts) + "\n"
