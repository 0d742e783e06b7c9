"""`rl-interview bank ...` and `rl-interview kb ...`: the question bank and the knowledge store."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from knowledge.bank import load_bank, validate_bank
from knowledge.chunking import reference_label
from knowledge.models import Section
from knowledge.settings import load_settings
from knowledge.terminal import clean_for_display, terminal_safe_json

EXIT_SKIPPED = 3
"""Exit code of a command that finished but left something out (a bad file, a bad entry)."""

bank_app = typer.Typer(help="The question bank: list, show and validate questions.", no_args_is_help=True)
kb_app = typer.Typer(help="The knowledge store: build, inspect, search and evaluate it.", no_args_is_help=True)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def fail(message: str, code: int = 1) -> typer.Exit:
    err.print(f"[red]error:[/] {message}", markup=True, soft_wrap=True)
    return typer.Exit(code)


def _bank():
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
    reviewed = f"; reviewed {q.reviewed.isoformat()}" if q.reviewed else ""
    out.print(f"[bold]{q.id}[/] ({q.section.value}; {', '.join(q.topics)}; difficulty {q.difficulty}{reviewed})")
    out.print(clean_for_display(q.prompt.get(lang)), markup=False)
    out.print("\n[bold]Key points[/]")
    for kp in q.key_points:
        out.print(f"  L{kp.level} {kp.id}: ", end="")
        out.print(clean_for_display(kp.statement), markup=False)
        out.print("     probe: ", end="")
        out.print(clean_for_display(kp.probe.get(lang)), markup=False)
        if sources:
            _print_sources(kp.sources)
    out.print("\n[bold]Misconceptions[/]")
    for m in q.misconceptions:
        out.print(f"  {m.id}: ", end="")
        out.print(clean_for_display(f"{m.statement} -> {m.correction}"), markup=False)
        if sources:
            _print_sources(m.sources)
    out.print("\n[bold]Model answer[/]")
    out.print(clean_for_display(q.model_answer), markup=False)
    if sources:
        out.print("\n[bold]Figures in the model answer[/]")
        for figure in q.figures:
            out.print("  ", end="")
            out.print(clean_for_display(figure.figure), markup=False)
            _print_sources(figure.sources)
        if not q.figures:
            out.print("  (none listed)")


def _print_sources(sources) -> None:
    if not sources:
        out.print("     [yellow]source: none[/]")
    for source in sources:
        label = "source (secondary)" if source.secondary else "source"
        out.print(f"     {label}: ", end="")
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


def _store():
    from knowledge.store import KnowledgeStore

    return KnowledgeStore(load_settings())


@kb_app.command("build")
def kb_build(
    source: Annotated[
        list[Path] | None, typer.Option("--source", help="Extra file or folder to index (repeatable).")
    ] = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Start from an empty store.")] = False,
) -> None:
    """Chunk, embed and index our reference notes plus any --source documents (incremental)."""

    store = _store()
    if sys.stderr.isatty():
        from rich.progress import Progress

        with Progress(console=err, transient=True) as bar:
            task = bar.add_task("embedding", total=None)
            report = store.build(
                source or [],
                rebuild=rebuild,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
    else:
        report = store.build(source or [], rebuild=rebuild)
    for line in report.skipped:
        err.print(f"skipped: {line}", markup=False, soft_wrap=True)
    out.print(
        f"embedded {report.chunks_embedded} chunks from {len(report.embedded_files)} file(s); "
        f"{report.unchanged_files} unchanged; {len(report.removed_files)} removed; "
        f"{len(report.skipped)} skipped; {report.seconds:.2f}s"
    )
    if report.skipped:
        raise typer.Exit(EXIT_SKIPPED)


@kb_app.command("status")
def kb_status(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Documents, chunks, embedding backend and last build of the store."""

    status = _store().status()
    if as_json:
        sys.stdout.write(json.dumps(status) + "\n")
        return
    for key, value in status.items():
        out.print(f"{key:>10}: {value}", markup=False)


@kb_app.command("search")
def kb_search(
    query: str,
    k: Annotated[int, typer.Option("--k", min=1, max=50)] = 5,
    question: Annotated[str | None, typer.Option("--question", help="Only this question's notes.")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Search the store (hybrid dense + lexical)."""

    hits = _store().search(query, k, question_id=question)
    if as_json:
        sys.stdout.write(
            terminal_safe_json(json.dumps([h.as_dict() for h in hits], ensure_ascii=False, indent=2)) + "\n"
        )
        return
    for rank, hit in enumerate(hits, 1):
        where = escape(
            clean_for_display(reference_label(hit.source, hit.heading))
        )  # a document's heading is neither markup nor escapes
        out.print(f"[bold]{rank}. {hit.question_id or '-'}[/]  {where}  ({hit.score:.3f})")
        out.print("   " + clean_for_display(hit.text[:300]).replace("\n", " "), markup=False)


@kb_app.command("eval")
def kb_eval(
    backends: Annotated[list[str] | None, typer.Option("--backend", help="Only these candidates (repeatable).")] = None,
    source: Annotated[
        list[Path] | None, typer.Option("--source", help="Extra documents indexed as distractors.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Measure every candidate retrieval backend on the labelled query set, side by side."""
    from knowledge.retrieval_eval import CANDIDATES, evaluate_candidates, render_table

    names = backends or list(CANDIDATES)
    unknown = sorted(set(names) - set(CANDIDATES))
    if unknown:
        raise fail(f"unknown candidate(s) {unknown}; choose from {list(CANDIDATES)}")
    results = evaluate_candidates(names, source or [], log=lambda msg: err.print(msg, markup=False))
    if as_json:
        sys.stdout.write(json.dumps(results, indent=2) + "\n")
    else:
        out.print(render_table(results), markup=False)
