"""`rl-interview kb ...`: build, inspect, search and evaluate the knowledge store."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from common.settings import load_settings
from common.terminal import clean_for_display, terminal_safe_json
from knowledge.chunking import reference_label
from tui.cli.app import app
from tui.cli.console import EXIT_SKIPPED, err, fail, out

if TYPE_CHECKING:
    from knowledge.store import KnowledgeStore

kb_app = typer.Typer(help="The knowledge store: build, inspect, search and evaluate it.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")


def _store() -> KnowledgeStore:
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
    from evals.retrieval_eval import CANDIDATES, evaluate_candidates, render_table

    names = backends or list(CANDIDATES)
    unknown = sorted(set(names) - set(CANDIDATES))
    if unknown:
        raise fail(f"unknown candidate(s) {unknown}; choose from {list(CANDIDATES)}")
    results = evaluate_candidates(names, source or [], log=lambda msg: err.print(msg, markup=False))
    if as_json:
        sys.stdout.write(json.dumps(results, indent=2) + "\n")
    else:
        out.print(render_table(results), markup=False)
