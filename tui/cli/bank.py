"""`rl-interview bank ...`: list, show, validate, audit, start and draft questions."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import date
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.markup import escape
from rich.table import Table

from agent.labels import Labels
from common.settings import load_settings
from common.terminal import clean_for_display, terminal_safe_json
from evals.bank_audit import CHECKS, audit
from knowledge.bank import NOTES_DIR, Bank, load_bank, validate_bank
from knowledge.models import Section, Source
from tui.cli.app import ApiBaseOption, ModelOption, app, interview_settings
from tui.cli.console import EXIT_SKIPPED, err, fail, out

bank_app = typer.Typer(help="The question bank: list, show and validate questions.", no_args_is_help=True)
app.add_typer(bank_app, name="bank")


def _bank() -> Bank:
    """Our questions and the user's (settings.bank_paths); the user's broken files are named on stderr."""
    bank = load_bank(extra=load_settings().bank_paths)
    for problem in bank.problems:
        err.print(f"left out: {problem}", markup=False, soft_wrap=True)
    return bank


@bank_app.command("list")
def bank_list(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List every question with its section and topics (yours from bank_paths too)."""
    bank = _bank()
    if as_json:
        rows = [
            {
                "id": q.id,
                "section": q.section.value,
                "topics": q.topics,
                "difficulty": q.difficulty,
                "prompt": {"en": q.prompt.en, "zh": q.prompt.zh},
                "yours": q.yours,
            }
            for q in bank.questions()
        ]
        sys.stdout.write(terminal_safe_json(json.dumps(rows, ensure_ascii=False, indent=2)) + "\n")
        return
    table = Table("id", "section", "topics", "prompt")
    for q in bank.questions():
        table.add_row(q.id, q.section.value, ", ".join(q.topics), escape(clean_for_display(q.prompt.en)))
    out.print(table)


@bank_app.command("show")
def bank_show(
    question_id: str,
    lang: Annotated[str, typer.Option(help="en or zh")] = "en",
    sources: Annotated[
        bool, typer.Option("--sources", help="Also print the sources of each key point, misconception and figure.")
    ] = False,
) -> None:
    """Show one question with its rubric, probes and model answer."""
    bank = _bank()
    if question_id not in bank:
        raise fail(f"unknown question id {question_id!r}; valid ids: {', '.join(bank)}")
    q = bank[question_id]
    say = Labels(lang)
    fields = [
        say.name("sections", q.section.value),
        say.topics(q.topics),
        say("question_difficulty", difficulty=q.difficulty),
    ]
    fields += [say("bank_reviewed", date=q.reviewed.isoformat())] if q.reviewed else []
    out.print(f"[bold]{q.id}[/] ", end="")
    out.print(say.aside(say("bank_field_separator").join(fields)).strip(), markup=False)
    out.print(clean_for_display(q.prompt.get(lang)), markup=False)
    out.print(f"\n[bold]{say('bank_key_points')}[/]")
    for kp in q.key_points:
        out.print(f"  L{kp.level} {kp.id}: ", end="")
        out.print(clean_for_display(kp.statement_in(lang)), markup=False)
        out.print(f"     {say('bank_probe')}", end="", markup=False)
        out.print(clean_for_display(kp.probe.get(lang)), markup=False)
        if sources:
            _print_sources(kp.sources, say)
    out.print(f"\n[bold]{say('misconceptions')}[/]")
    for m in q.misconceptions:
        out.print(f"  {m.id}: ", end="")
        out.print(clean_for_display(f"{m.statement_in(lang)} -> {m.correction_in(lang)}"), markup=False)
        if sources:
            _print_sources(m.sources, say)
    out.print(f"\n[bold]{say('model_answer')}[/]")
    out.print(clean_for_display(q.model_answer_in(lang)), markup=False)
    if sources:
        out.print(f"\n[bold]{say('bank_figures')}[/]")
        for figure in q.figures:
            out.print("  ", end="")
            out.print(clean_for_display(figure.figure), markup=False)
            _print_sources(figure.sources, say)
        if not q.figures:
            out.print(f"  {say('bank_none_listed')}", markup=False)


def _print_sources(sources: list[Source], say: Labels) -> None:
    if not sources:
        out.print(f"     [yellow]{say('bank_no_source')}[/]")
    for source in sources:
        label = say("bank_source_secondary" if source.secondary else "bank_source")
        out.print(f"     {label}", end="", markup=False)
        out.print(clean_for_display(f"{source.ref}: {source.supports}"), markup=False)


@bank_app.command("validate")
def bank_validate(
    path: Annotated[
        Path | None, typer.Argument(help="A bank folder or file (default: the shipped bank and your bank_paths).")
    ] = None,
) -> None:
    """Check bank files; every problem is printed with its file, line and field."""
    bank, problems = validate_bank(path, () if path else load_settings().bank_paths)
    for problem in problems:
        err.print(str(problem), markup=False, soft_wrap=True)
    if problems:
        out.print(f"{len(bank)} valid question(s), {len(problems)} problem(s)")
        raise typer.Exit(EXIT_SKIPPED if len(bank) else 1)
    out.print(f"bank ok: {len(bank)} questions")


@bank_app.command("new")
def bank_new(
    question_id: Annotated[str, typer.Argument(help="The id: my-<words>, e.g. my-reward-hacking.")],
    section: Annotated[Section, typer.Option("--section", help="algorithm or infrastructure.")],
    topic: Annotated[str | None, typer.Option("--topic", help="Its first topic (one of ours).")] = None,
    folder: Annotated[
        Path | None, typer.Option("--dir", help="Where to write (default: the first of your bank_paths).")
    ] = None,
) -> None:
    """Write a commented template of a question of your own, with every field, and its note."""
    from knowledge.template import write_template

    folder = folder or next(iter(load_settings().bank_paths), None)
    if folder is None:
        raise fail(
            "no folder for your questions: pass --dir, or set bank_paths in the settings (or RL_INTERVIEW_BANK_PATHS)"
        )
    written = write_template(folder, question_id, section, topic)
    for path in written:
        out.print(f"wrote {path}", markup=False)
    out.print("Fill in every TODO, then check it with: rl-interview bank validate", markup=False)


@bank_app.command("draft")
def bank_draft(
    question_id: Annotated[str, typer.Argument(help="The id: my-<words>.")],
    note: Annotated[
        Path, typer.Option("--from", exists=True, dir_okay=False, help="The reference note to draft from.")
    ],
    section: Annotated[Literal["algorithm", "infrastructure"], typer.Option("--section")] = "algorithm",
    folder: Annotated[
        Path | None, typer.Option("--dir", help="Where to write (default: the first of your bank_paths).")
    ] = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
) -> None:
    """With a model configured: draft a question of your own from a note, as <id>.yaml.draft for you to review."""
    from agent.brains.llm.drafting import draft_question
    from knowledge.models import Section

    settings = interview_settings(model, api_base, None)
    if not settings.llm.model:
        raise fail("bank draft needs a model: pass --model or set llm.model (RL_INTERVIEW_LLM__MODEL)")
    folder = folder or next(iter(settings.bank_paths), None)
    if folder is None:
        raise fail("no folder for your questions: pass --dir, or set bank_paths (RL_INTERVIEW_BANK_PATHS)")
    drafted = asyncio.run(draft_question(settings.llm, question_id, Section(section), note, folder))
    for path in drafted.files:
        typer.echo(f"wrote {path}")
    typer.echo(f"Review it, then rename it to {question_id}.yaml: a draft is never used until you do.")


@bank_app.command("audit")
def audit_command(
    path: Annotated[Path | None, typer.Argument(help="A bank folder or file (default: the shipped bank).")] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="Also list entries reviewed before this date (YYYY-MM-DD).")
    ] = None,
    checks: Annotated[list[str] | None, typer.Option("--check", help="Only this check (repeatable).")] = None,
    notes: Annotated[
        Path | None, typer.Option("--notes", help="The reference notes folder (default: the shipped notes).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Audit the bank: unsourced facts, level-4 points without figures, cues that match the wrong
    text, entries not reviewed since a date. Exit 1 when anything is found."""
    try:
        since_date = date.fromisoformat(since) if since else None
    except ValueError:
        raise fail(f"--since {since!r} is not a date (YYYY-MM-DD)") from None
    unknown = sorted(set(checks or []) - set(CHECKS))
    if unknown:
        raise fail(f"unknown check(s) {unknown}; choose from {list(CHECKS)}")
    report, problems = audit(path, notes or NOTES_DIR, since_date)
    if checks:
        report.findings = [f for f in report.findings if f.check in checks]
        report.not_run = {c: why for c, why in report.not_run.items() if c in checks}
    for problem in problems:
        err.print(f"not audited: {problem}", markup=False, soft_wrap=True)
    counts = {c: n for c, n in report.counts().items() if not checks or c in checks}
    if as_json:
        sys.stdout.write(
            terminal_safe_json(json.dumps({**report.as_dict(), "counts": counts}, ensure_ascii=False, indent=2)) + "\n"
        )
    else:
        for finding in report.findings:
            out.print(clean_for_display(str(finding)), markup=False, soft_wrap=True)
        if report.findings:
            out.print("")
        for check, n in counts.items():
            out.print(f"{n:>5}  {CHECKS[check]}", markup=False)
        for check, why in report.not_run.items():
            out.print(f"    -  {CHECKS[check]}: not checked ({why})", markup=False)
    if report.findings or problems:
        raise typer.Exit(1)
