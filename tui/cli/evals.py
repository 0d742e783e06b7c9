"""Measuring the interviewer: `eval`, `selftest`, `bench` and `rl-interview judge ...`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from common.terminal import terminal_safe_json
from evals.report_text import explanation, markdown, table
from tui.cli.app import ApiBaseOption, MaxCostOption, ModelOption, app
from tui.cli.console import EXIT_SKIPPED, err, fail, out

if TYPE_CHECKING:
    from agent.brains.brain import Brain
    from agent.interview.retrieval import Retriever
    from common.settings import Settings
    from evals.gold import GoldTranscript
    from knowledge.bank import Bank


@app.command("eval")
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
    topic: Annotated[
        bool,
        typer.Option(
            "--topic", help="Instead: how often blind on- and off-topic replies are called off-topic (evals/topic)."
        ),
    ] = False,
    trends: Annotated[
        bool,
        typer.Option(
            "--trends",
            help="Instead: how often blind sentences that turn a trend round or swap two roles are caught, and right ones flagged (evals/trends).",
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
    # Long only for its options above: each mode below is a call of its own.
    from agent.app import make_brain
    from agent.interview.retrieval import NotesRetriever
    from common.settings import llm_overrides, load_settings
    from evals.gold import load_gold
    from evals.part_hits import part_hits
    from evals.replay import evaluate
    from knowledge.bank import load_bank

    settings = brain_settings(
        load_settings(**llm_overrides(model, api_base, max_cost)), brain or ("llm" if model else "offline")
    )
    bank = load_bank()
    if keypoints:
        _keypoints(paths, bank, settings, as_json)
        return
    if topic:
        _topic(bank, settings, as_json)
        return
    if trends:
        _trends(as_json)
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
    _publish(report, out_dir or settings.home / "evals" / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ"), as_json)
    if problems:
        raise typer.Exit(EXIT_SKIPPED)


def _publish(report: dict, folder: Path, as_json: bool) -> None:
    """The gold eval's report, in Markdown and JSON in `folder`, and on stdout (its table, or JSON)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.md").write_text(markdown(report), encoding="utf-8")
    (folder / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    if as_json:
        sys.stdout.write(terminal_safe_json(json.dumps(report, ensure_ascii=False)) + "\n")
    else:
        out.print(table(report), markup=False, soft_wrap=True)
        out.print(f"\nreport: {folder / 'report.md'}", markup=False)


def _labelled_points(per_turn: list[dict[str, Any]], transcripts: list[GoldTranscript]) -> dict[str, Any] | None:
    from evals.correct_model import FIRST_PASS, load_quotes
    from evals.labelled_points import labelled_points

    return labelled_points(per_turn, transcripts, load_quotes(FIRST_PASS))


def _correct_model(transcripts: list[GoldTranscript], bank: Bank, settings: Settings, as_json: bool) -> None:
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


def _keypoints(paths: list[Path] | None, bank: Bank, settings: Settings, as_json: bool) -> None:
    from agent.judge.meaning import shared_judge
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


def _topic(bank: Bank, settings: Settings, as_json: bool) -> None:
    from agent.judge.meaning import shared_judge
    from agent.judge.scoring import RubricScorer
    from evals.topic import evaluate_topic, load_topic_items
    from evals.topic import table as topic_table

    scorer = RubricScorer(settings.interview.answer_limit_chars, shared_judge(settings.judge.embedding))
    _print(evaluate_topic(load_topic_items(), bank, scorer), topic_table, as_json)


def _trends(as_json: bool) -> None:
    from evals.trends import all_items, evaluate_trends
    from evals.trends import table as trends_table

    _print(evaluate_trends(all_items()), trends_table, as_json)


def _print(report: dict, render: Callable[[dict], str], as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        out.print(render(report), markup=False, soft_wrap=True)


def brain_settings(settings: Settings, brain: str) -> Settings:
    """The settings for the chosen brain: `offline` ignores a configured model, `llm` needs one."""
    from agent.brains.llm.client import INSTALL_HINT, litellm_installed
    from common.settings import SettingsError

    if brain == "offline":
        return settings.model_copy(update={"llm": settings.llm.model_copy(update={"model": None})})
    if not settings.llm.model:
        raise SettingsError("--brain llm needs a model: --model PROVIDER/NAME or RL_INTERVIEW_LLM__MODEL")
    if not litellm_installed():
        raise SettingsError(INSTALL_HINT)
    return settings


def _simulate(n: int, bank: Bank, brain: Brain, retriever: Retriever, as_json: bool) -> None:
    from evals.simulate import render, simulate

    result = simulate(n, bank, brain, retriever)
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        out.print(render(result), markup=False, soft_wrap=True)
    if result["violations"]:
        raise typer.Exit(1)


@app.command("selftest")
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
app.add_typer(judge_app, name="judge")


@judge_app.command("embed")
def judge_embed() -> None:
    """Embed every exemplar and key-point statement (e5) into knowledge/exemplars/vectors.npz; texts
    already there are kept, so after editing exemplars only the new ones are embedded."""
    from agent.judge.meaning import embedder_for
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
    from agent.judge.heads import HEAD_FILE
    from agent.judge.meaning import open_judge
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
    from agent.interview.retrieval import NotesRetriever
    from agent.judge.meaning import shared_judge
    from evals.gold import load_gold
    from evals.judge_training import fit_depth_rule
    from knowledge.bank import load_bank

    bank = load_bank()
    transcripts, _ = load_gold([], set(bank))
    dev = [t for t in transcripts if t.split == "dev"]
    for rule, qwk in fit_depth_rule(dev, bank, shared_judge("e5"), NotesRetriever()):
        out.print(f"{qwk:.3f}  {rule}", markup=False)


@app.command("bench")
def bench_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    quick: Annotated[
        bool, typer.Option("--quick", help="The hash embedding (no cold e5 build) and fewer runs.")
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="Instead: the LLM brain's turns with this litellm model, "
            "the model's time and the interviewer's overhead apart.",
        ),
    ] = None,
    api_base: Annotated[str | None, typer.Option("--api-base", help="With --model: the provider's base URL.")] = None,
) -> None:
    """Measure speed and memory on this machine, each figure next to a naive baseline (about 3 minutes)."""
    from evals.bench import FULL, QUICK, llm_bench, run_bench
    from evals.bench_report import llm_table
    from evals.bench_report import table as bench_table

    if model:
        report = llm_bench(model, api_base)
        if as_json:
            sys.stdout.write(json.dumps({"llm": report}) + "\n")
        else:
            out.print(llm_table(report), markup=False, soft_wrap=True)
        return
    report = run_bench(QUICK if quick else FULL, lambda step: err.print(f"bench: {step}", markup=False))
    if as_json:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        out.print(bench_table(report), markup=False, soft_wrap=True)
