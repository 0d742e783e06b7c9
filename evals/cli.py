"""`rl-interview eval`: replay gold transcripts through the interviewer and print the figures."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from evals.bank_audit import audit_command
from evals.metrics import LEVELS
from knowledge.cli import EXIT_SKIPPED, bank_app, err, fail, out
from knowledge.terminal import terminal_safe_json

# The audit matches cues with the scorer's own matcher (agent.text), which knowledge/ must not import,
# so the command joins `rl-interview bank` from here.
bank_app.command("audit")(audit_command)

HEADLINE = ("qwk", "exact", "adjacent", "spearman", "smd", "next_action_accuracy", "probe_hit_rate", "trap_pass_rate")

ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model", help="A litellm model, PROVIDER/NAME (e.g. openai/gpt-4o-mini, ollama/llama3.1): use the LLM brain."
    ),
]
ApiBaseOption = Annotated[
    str | None,
    typer.Option(
        "--api-base", help="The provider's base URL (a local or self-hosted server, e.g. http://127.0.0.1:8000/v1)."
    ),
]
MaxCostOption = Annotated[
    float | None,
    typer.Option(
        "--max-cost", min=0, help="Per-session model budget in USD; once spent, the session continues offline."
    ),
]


def eval_command(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Gold files or folders (default: the shipped gold set).")
    ] = None,
    keypoints: Annotated[
        bool,
        typer.Option(
            "--keypoints",
            help=(
                "Instead: key-point and misconception detection on the sentence sets (default: evals/keypoints), "
                "the judge by meaning next to the cue-only matcher."
            ),
        ),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain", help="Print, per turn, which sentence credited each point, by which signal and how strongly."
        ),
    ] = False,
    split: Annotated[str | None, typer.Option("--split", help="Only transcripts of this split (dev, heldout).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Folder for the Markdown report.")] = None,
    simulate_n: Annotated[
        int | None, typer.Option("--simulate", min=1, max=200, help="Instead: N simulated sessions per persona.")
    ] = None,
    brain: Annotated[
        Literal["offline", "llm"] | None,
        typer.Option("--brain", help="offline, or llm (the default when --model is given)."),
    ] = None,
    correct_model: Annotated[
        bool,
        typer.Option(
            "--correct-model",
            help=(
                "Instead: the held-out split (or --split) through the LLM brain against a local model that returns "
                "the gold depth and the labelled quotes: how often the verifier keeps a correct verdict."
            ),
        ),
    ] = False,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    max_cost: MaxCostOption = None,
) -> None:
    """Measure the interviewer against labelled transcripts (QWK, agreement, next action, probes, traps)."""
    from agent.app import make_brain
    from agent.retrieval import NotesRetriever
    from evals.gold import load_gold
    from evals.part_hits import part_hits
    from evals.replay import evaluate
    from knowledge.bank import load_bank
    from knowledge.settings import llm_overrides, load_settings

    settings = brain_settings(
        load_settings(**llm_overrides(model, api_base, max_cost)), brain or ("llm" if model else "offline")
    )
    bank = load_bank()
    if keypoints:
        _keypoints(paths, bank, settings, as_json)
        return
    if simulate_n:
        _simulate(simulate_n, bank, make_brain(settings), NotesRetriever(settings.knowledge.chunk_tokens), as_json)
        return
    transcripts, problems = load_gold(paths or [], bank)
    for problem in problems:
        err.print(problem, markup=False, soft_wrap=True)
    if split or correct_model:
        transcripts = [t for t in transcripts if t.split == (split or "heldout")]
    if not transcripts:
        raise fail("no gold transcripts to evaluate")
    if correct_model:
        _correct_model(transcripts, bank, settings, as_json)
        return
    report = evaluate(transcripts, bank, make_brain(settings), NotesRetriever(settings.knowledge.chunk_tokens))
    report["parts"] = part_hits(report["per_turn"], transcripts, bank)
    report["labelled_points"] = _labelled_points(report["per_turn"], transcripts)
    if explain:
        out.print(explanation(report), markup=False, soft_wrap=True)
    report["problems"] = problems
    folder = out_dir or settings.home / "evals" / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.md").write_text(markdown(report), encoding="utf-8")
    (folder / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    if as_json:
        sys.stdout.write(terminal_safe_json(json.dumps(report, ensure_ascii=False)) + "\n")
    else:
        out.print(table(report), markup=False, soft_wrap=True)
        out.print(f"\nreport: {folder / 'report.md'}", markup=False)
    if problems:
        raise typer.Exit(EXIT_SKIPPED)


def _labelled_points(per_turn, transcripts):
    from evals.correct_model import FIRST_PASS, load_quotes
    from evals.labelled_points import labelled_points

    return labelled_points(per_turn, transcripts, load_quotes(FIRST_PASS))


def _correct_model(transcripts, bank, settings, as_json: bool) -> None:
    from evals.correct_model import FIRST_PASS, SECOND_PASS, agreement, load_quotes, render, run

    first, second = load_quotes(FIRST_PASS), load_quotes(SECOND_PASS)
    points_of = {
        f"{t.id}#{i}": [kp.id for kp in bank[turn.question].key_points]
        for t in transcripts
        for i, turn in enumerate(t.turns)
    }
    result = run(transcripts, bank, settings, first)
    result["labels"] = agreement(first, second, points_of)
    if as_json:
        sys.stdout.write(terminal_safe_json(json.dumps(result, ensure_ascii=False)) + "\n")
    else:
        out.print(render(result), markup=False, soft_wrap=True)


def _keypoints(paths: list[Path] | None, bank, settings, as_json: bool) -> None:
    from agent.meaning import shared_judge
    from evals.keypoints import KEYPOINT_DIR, evaluate_keypoints
    from evals.keypoints import table as keypoint_table

    judge = shared_judge(settings.judge.embedding)
    if judge is None:
        raise fail("the judge by meaning is off or its data is missing (judge.embedding, `rl-interview judge embed`)")
    report = evaluate_keypoints(paths or [KEYPOINT_DIR], bank, judge)
    for problem in report["problems"]:
        err.print(problem, markup=False, soft_wrap=True)
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        out.print(keypoint_table(report), markup=False, soft_wrap=True)
    if report["problems"]:
        raise typer.Exit(EXIT_SKIPPED)


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


def brain_settings(settings, brain: str):
    """The settings for the chosen brain: `offline` ignores a configured model, `llm` needs one."""
    from agent.llm_client import INSTALL_HINT, litellm_installed
    from knowledge.settings import SettingsError

    if brain == "offline":
        return settings.model_copy(update={"llm": settings.llm.model_copy(update={"model": None})})
    if not settings.llm.model:
        raise SettingsError("--brain llm needs a model: --model PROVIDER/NAME or RL_INTERVIEW_LLM__MODEL")
    if not litellm_installed():
        raise SettingsError(INSTALL_HINT)
    return settings


def _simulate(n: int, bank, brain, retriever, as_json: bool) -> None:
    from evals.simulate import render, simulate

    result = simulate(n, bank, brain, retriever)
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        out.print(render(result), markup=False, soft_wrap=True)
    if result["violations"]:
        raise typer.Exit(1)


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
            "precision {precision} recall {recall} ({labelled} labelled)",
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


def selftest_command(as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False) -> None:
    """Run the fast part of the reliability and security suites and print their figures."""
    from evals.selftest import render, run_selftest
    from knowledge.bank import load_bank

    suites = run_selftest(load_bank(), log=lambda msg: err.print(msg, markup=False))
    if as_json:
        sys.stdout.write(json.dumps([s.as_dict() for s in suites], ensure_ascii=False) + "\n")
    else:
        out.print(render(suites), markup=False, soft_wrap=True)
    if any(s.failures for s in suites):
        raise typer.Exit(1)


judge_app = typer.Typer(help="The judge by meaning: embed its exemplars, train its heads.", no_args_is_help=True)


@judge_app.command("embed")
def judge_embed() -> None:
    """Embed every exemplar and key-point statement (e5) into knowledge/exemplars/vectors.npz; texts
    already there are kept, so after editing exemplars only the new ones are embedded."""
    from agent.meaning import embedder_for
    from evals.judge_training import embed_exemplars
    from knowledge.bank import load_bank

    fresh = embed_exemplars(load_bank(), embedder_for("e5"), log=lambda msg: err.print(msg, markup=False))
    out.print(f"{fresh} new texts embedded", markup=False)


@judge_app.command("train")
def judge_train(
    as_json: Annotated[bool, typer.Option("--json", help="Print the training report as JSON.")] = False,
    source: Annotated[
        Literal["items", "exemplars"],
        typer.Option(
            "--from",
            help="exemplars: the exemplars, leave-one-out (the shipped heads); items: the key-point set's dev part.",
        ),
    ] = "exemplars",
) -> None:
    """Fit the judge's heads and write knowledge/exemplars/head.json; the bars are chosen out of fold."""
    from agent.meaning import HEAD_FILE, open_judge
    from evals.judge_training import train_heads
    from knowledge.bank import load_bank

    judge = open_judge("e5", training=True)
    if judge is None or judge.vectors is None:
        raise fail("no exemplar vectors: run `rl-interview judge embed` first")
    heads, report = train_heads(judge, load_bank(), source)
    heads.save(HEAD_FILE)
    if as_json:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        out.print(json.dumps(report, indent=1), markup=False)


@judge_app.command("fit-depth")
def judge_fit_depth() -> None:
    """QWK of every depth rule of the grid on the gold set's dev split (the held-out split is never
    used), best first: how the defaults of `scoring.DepthRule` were chosen."""
    from agent.meaning import shared_judge
    from agent.retrieval import NotesRetriever
    from evals.gold import load_gold
    from evals.judge_training import fit_depth_rule
    from knowledge.bank import load_bank

    bank = load_bank()
    transcripts, _ = load_gold([], set(bank))
    dev = [t for t in transcripts if t.split == "dev"]
    for rule, qwk in fit_depth_rule(dev, bank, shared_judge("e5"), NotesRetriever()):
        out.print(f"{qwk:.3f}  {rule}", markup=False)
