"""What the candidate has done: sessions, reports, progress, and the profile drills are built from."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path
from typing import Annotated, Literal, cast

import typer

from common.settings import Settings, load_settings
from common.terminal import terminal_safe_json
from tui.cli.app import app
from tui.cli.console import fail


@app.command()
def progress(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Mastery per topic, cards due, the trend over time, and what to work on next."""
    from agent.interview.retrieval import NotesRetriever
    from agent.learner.profile import Profile, profile_path, system_clock
    from agent.learner.progress import progress_report
    from knowledge.bank import load_bank, user_note_files

    settings = load_settings()
    history = Profile(profile_path(settings)).history()
    bank = load_bank(extra=settings.bank_paths)
    built = progress_report(
        history,
        bank,
        system_clock(),
        NotesRetriever(settings.knowledge.chunk_tokens, user_note_files(settings.bank_paths)),
    )
    if as_json:
        sys.stdout.write(built.model_dump_json(indent=2) + "\n")
        return
    from tui.progress_view import progress_text

    cast(io.TextIOWrapper, sys.stdout).reconfigure(encoding="utf-8", errors="replace")  # the console's stream
    sys.stdout.write(progress_text(built))


profile_app = typer.Typer(help="The candidate profile that drills and progress are built from.", no_args_is_help=True)
app.add_typer(profile_app, name="profile")


@profile_app.command("reset")
def profile_reset(yes: Annotated[bool, typer.Option("--yes", help="Do not ask first.")] = False) -> None:
    """Erase the profile (answers, cards, mastery); your sessions and reports are kept."""
    from agent.interview.sessions import SessionIndex
    from agent.learner.profile import Profile, profile_path

    settings = load_settings()
    profile = Profile(profile_path(settings))
    history = profile.history()
    if not yes and not typer.confirm(
        f"Erase your profile ({len(history.attempts)} answered question(s) in {len(history.sessions())} "
        "session(s), and every card's schedule)? Past sessions will not feed it again",
        default=False,
    ):
        typer.echo("Nothing erased.")
        raise typer.Exit(1)
    profile.reset([row.id for row in SessionIndex(settings.sessions_db).list()])
    typer.echo(f"Profile erased: {profile.path}")


@profile_app.command("rebuild")
def profile_rebuild() -> None:
    """Rebuild the profile from the saved sessions (not those forgotten by a reset)."""
    added = asyncio.run(_rebuild_profile(load_settings()))
    typer.echo(f"Profile rebuilt: {added} answered question(s).")


async def _rebuild_profile(settings: Settings) -> int:
    from agent.app import open_services
    from agent.learner.recording import rebuild

    async with open_services(settings) as services:
        return await rebuild(services.profile, services)


@app.command()
def sessions(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List past and unfinished sessions (a finished one missing its report files gets them now)."""
    from agent.interview.report import report_exported
    from agent.interview.sessions import SessionIndex

    settings = load_settings()
    index = SessionIndex(settings.sessions_db)
    index.close_abandoned()
    rows = index.list()
    unreported = any(row.over and not report_exported(settings.reports_dir, row.id) for row in rows)
    if unreported or any(row.kind is None for row in rows):  # an earlier release's rows: read their kind
        rows = asyncio.run(_settled_rows(settings))
    if as_json:
        sys.stdout.write(json.dumps([r.as_dict() for r in rows], indent=2) + "\n")
        return
    if not rows:
        typer.echo(f"No sessions yet in {settings.home}: start one with rl-interview.")
    for r in rows:
        depth = f"{r.average_depth:.2f}" if r.average_depth is not None else "-"
        typer.echo(
            f"{r.id}  {r.started}  {r.kind or '-':<9}  {r.lang:<2}  {r.status:<8}  avg depth {depth:>4}  "
            f"{', '.join(r.plan)}"
        )


async def _settled_rows(settings: Settings) -> list:
    from agent.app import open_services

    async with open_services(settings) as services:  # which settles every half-recorded session
        return services.index.list()


@app.command()
def report(
    session_id: Annotated[str | None, typer.Argument(help="Session id (default: the latest).")] = None,
    fmt: Annotated[Literal["md", "json"], typer.Option("--format")] = "md",
    out: Annotated[Path | None, typer.Option("--out", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Export a session's report as Markdown or JSON (the JSON has the full transcript)."""
    text = asyncio.run(_report_text(load_settings(), session_id, fmt))
    if out:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}")
    else:
        sys.stdout.write(text)


async def _report_text(settings: Settings, session_id: str | None, fmt: str) -> str:
    from agent.app import open_services
    from agent.interview.report import build_report, to_markdown

    async with open_services(settings) as services:
        rows = services.index.list()
        row = services.index.get(session_id) if session_id else (rows[0] if rows else None)
        if row is None:
            if session_id:
                raise fail(f"no session {session_id} found; see: rl-interview sessions")
            raise fail("no sessions yet: start one with rl-interview")
        state = await services.interview(row.id).state()
        built = build_report(state, services.bank, services.context.retriever)
        return (
            terminal_safe_json(built.model_dump_json(indent=2)) + "\n"
            if fmt == "json"
            else to_markdown(built, services.bank, row.lang)
        )
