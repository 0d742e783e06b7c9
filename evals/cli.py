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

ModelOption = Annotated[str | None, typer.Option(
    "--model", help="A litellm model, PROVIDER/NAME (e.g. openai/gpt-4o-mini, ollama/llama3.1): use the LLM brain.")]
ApiBaseOption = Annotated[str | None, typer.Option(
    "--api-base", help="The provider's base URL (a local or self-hosted server, e.g. http://127.0.0.1:8000/v1).")]
MaxCostOption = Annotated[float | None, typer.Option(
    "--max-cost", min=0, help="Per-session model budget in USD; once spent, the session continues offline.")]


def eval_command(
    paths: Annotated[list[Path] | None, typer.Argument(help="Gold files or folders (default: the shipped gold set).")] = None,
    split: Annotated[str | None, typer.Option("--split", help="Only transcripts of this split (dev, heldout).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Folder for the Markdown report.")] = None,
    simulate_n: Annotated[int | None, typer.Option("--simulate", min=1, max=200, help="Instead: N simulated sessions per persona.")] = None,
    brain: Annotated[Literal["offline", "llm"] | None, typer.Option(
        "--brain", help="offline, or llm (the default when --model is given).")] = None,
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
    from knowledge.settings import SettingsError, llm_overrides, load_settings

    try:
        settings = brain_settings(load_settings(**llm_overrides(model, api_base, max_cost)),
                                  brain or ("llm" if model else "offline"))
    except SettingsError as exc:
        raise fail(str(exc)) from None
    bank = load_bank()
    if simulate_n:
        _simulate(simulate_n, bank, make_brain(settings), NotesRetriever(settings.knowledge.chunk_tokens), as_json)
        return
    transcripts, problems = load_gold(paths or [], bank)
    for problem in problems:
        err.print(problem, markup=False, soft_wrap=True)
    if split:
        transcripts = [t for t in transcripts if t.split == split]
    if not transcripts:
        raise fail("no gold transcripts to evaluate")
    report = evaluate(transcripts, bank, make_brain(settings), NotesRetriever(settings.knowledge.chunk_tokens))
    report["parts"] = part_hits(report["per_turn"], transcripts, bank)
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


def table(report: dict[str, Any]) -> str:
    rows = [("all", report)] + [(f"split {name}", s) for name, s in report["splits"].items()]
    lines = ["| set | turns | " + " | ".join(HEADLINE) + " |", "|---" * (len(HEADLINE) + 2) + "|"]
    for name, figures in rows:
        for who, values in ((report["brain"], figures), ("baseline", figures["baseline"]), ("rater ceiling", figures.get("ceiling"))):
            if values:
                lines.append(f"| {name} ({who}) | {values['turns']} | " + " | ".join(_fmt(values.get(k)) for k in HEADLINE) + " |")
    if report.get("parts"):
        lines.append("\nfollow-ups to the part the gold interviewer went to: " + "; ".join(
            f"{group} {figures['part_hit_rate']:.3f} ({figures['turns']} turns)" for group, figures in report["parts"].items()))
    lines.append(f"\nlatency per turn: p50 {report['latency_ms']['p50']} ms, p95 {report['latency_ms']['p95']} ms; "
                 f"{report['transcripts']} transcripts in {report['seconds']} s")
    if report.get("model_use"):
        use = report["model_use"]
        cost = "price unknown" if use["cost_usd_per_turn"] is None else f"${use['cost_usd_per_turn']:.6f}"
        offline = "; ".join(f"{n} {reason}" for reason, n in use["fallback_reasons"].items())
        lines.append(f"model use per turn: {use['tokens_in_per_turn']} tokens in, {use['tokens_out_per_turn']} out, "
                     f"{cost}; {use['scored_offline']} turns scored offline" + (f" ({offline})" if offline else ""))
    return "\n".join(lines)


def markdown(report: dict[str, Any]) -> str:
    parts = ["# Interviewer evaluation", "", table(report), "", "## Confusion matrix (rows: gold depth, columns: predicted)", "",
             "| gold \\ pred | " + " | ".join(str(i) for i in range(LEVELS)) + " |", "|---" * (LEVELS + 1) + "|"]
    parts += [f"| {g} | " + " | ".join(str(n) for n in row) + " |" for g, row in enumerate(report["confusion"])]
    for title, key in (("By language", "by_language"), ("By section", "by_section"), ("By trap", "by_trap")):
        parts += ["", f"## {title}", "", "| group | turns | qwk | exact | adjacent | next | traps |", "|---|---|---|---|---|---|---|"]
        parts += [f"| {name} | {s['turns']} | {_fmt(s['qwk'])} | {_fmt(s['exact'])} | {_fmt(s['adjacent'])} | "
                  f"{_fmt(s['next_action_accuracy'])} | {_fmt(s['trap_pass_rate'])} |" for name, s in report[key].items()]
    worst = sorted(report["per_turn"], key=lambda r: -abs(r["depth"] - r["gold_depth"]))[:10]
    parts += ["", "## Worst turns", "", "| transcript | turn | question | gold | scored | flags |", "|---|---|---|---|---|---|"]
    parts += [f"| {r['transcript']} | {r['index']} | {r['question']} | {r['gold_depth']} | {r['depth']} | {', '.join(r['flags'])} |" for r in worst]
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
