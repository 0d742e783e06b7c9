"""The `rl-interview` command: the TUI by default, and subcommands for everything it can do."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, cast

import typer
from typer.core import TyperGroup

from evals.bench import bench_command
from evals.cli import ApiBaseOption, MaxCostOption, ModelOption, eval_command, judge_app, selftest_command
from knowledge.cli import bank_app, fail, kb_app
from knowledge.errors import InputError
from knowledge.settings import Settings, load_settings
from knowledge.terminal import terminal_safe_json


class Commands(TyperGroup):
    """The top of the command line: an `InputError` raised anywhere below (bad settings, a damaged
    session file, an impossible plan, ...) is told as one line on stderr, exit 1; no command needs
    its own handler for them."""

    def invoke(self, ctx: typer.core._click.Context) -> Any:  # typer vendors click; its Context has no public name
        try:
            return super().invoke(ctx)
        except InputError as exc:
            raise fail(str(exc)) from None


app = typer.Typer(
    cls=Commands,
    help="rl-interview: an offline mock-interview coach for RL post-training and infrastructure jobs.",
    invoke_without_command=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(bank_app, name="bank")
app.add_typer(kb_app, name="kb")
app.add_typer(judge_app, name="judge")
app.command("eval")(eval_command)
app.command("selftest")(selftest_command)
app.command("bench")(bench_command)
LATEST = "latest"


def interview_settings(model: str | None, api_base: str | None, max_cost: float | None) -> Settings:
    """The settings with the command line's model options; a model needs litellm installed."""
    from agent.llm_client import INSTALL_HINT, litellm_installed
    from knowledge.settings import llm_overrides

    settings = load_settings(**llm_overrides(model, api_base, max_cost))
    if settings.llm.model and not litellm_installed():
        raise fail(INSTALL_HINT)
    return settings


@app.callback()
def root(ctx: typer.Context) -> None:
    """Without a command: open the interview room (the TUI) in a terminal, a plain session otherwise."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(interview, plain=not sys.stdout.isatty())


@app.command()
def interview(
    plain: Annotated[bool, typer.Option("--plain", help="Plain text in the terminal or a pipe, no TUI.")] = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="With --plain: one JSON event per line.")] = False,
    resume: Annotated[
        str | None, typer.Option("--resume", help="Continue the latest (or the named) unfinished session.")
    ] = None,
    take_over: Annotated[
        bool,
        typer.Option(
            "--take-over",
            help="With --resume: drive the session here even if "
            "another process has it open (that one stops at its next answer).",
        ),
    ] = False,
    questions: Annotated[
        int | None, typer.Option("--questions", min=1, max=35, help="How many questions (default 6).")
    ] = None,
    section: Annotated[Literal["algorithm", "infrastructure", "both"], typer.Option("--section")] = "both",
    question: Annotated[
        list[str] | None, typer.Option("--question", help="Ask this question (repeatable, in order).")
    ] = None,
    topic: Annotated[str | None, typer.Option("--topic", help="Only questions on this topic.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Make the question plan reproducible.")] = None,
    lang: Annotated[Literal["en", "zh"] | None, typer.Option("--lang", help="Language of the interviewer.")] = None,
    verbatim: Annotated[
        bool, typer.Option("--verbatim", help="Ask each question in its seed wording, never another.")
    ] = False,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    max_cost: MaxCostOption = None,
) -> None:
    """Run a mock interview."""
    from agent.planning import PlanRequest

    settings = interview_settings(model, api_base, max_cost)
    request = PlanRequest(
        questions=questions or settings.interview.questions,
        section=section,
        ids=question or [],
        topic=topic,
        seed=seed,
        verbatim=verbatim,
    )
    if not plain:
        from tui.app import run_tui

        # Questions, a count, a section or a topic on the command line are an explicit request: start it.
        explicit = bool(question) or questions is not None or topic is not None or section != "both"
        run_tui(settings, request=request, lang=lang, resume=resume, start_now=explicit)
        return
    status = asyncio.run(
        _plain_session(settings, request, lang or settings.interview.lang, resume, jsonl, take_over=take_over)
    )
    raise typer.Exit(0 if status in ("finished", "ended", "paused") else 1)


async def _plain_session(
    settings: Settings, request, lang: str, resume: str | None, jsonl: bool, drill=None, take_over: bool = False
) -> str:
    """A plain session: resumed, a drill (`drill`: agent.drill.DrillOptions), or a new interview."""
    from agent.app import open_services
    from agent.plain import LineReader, Renderer, drive

    cast(io.TextIOWrapper, sys.stdout).reconfigure(encoding="utf-8", errors="replace")  # the console's stream
    async with open_services(settings) as services:
        for problem in services.bank.problems:
            print(f"left out: {problem}", file=sys.stderr)
        renderer = Renderer(sys.stdout, jsonl, services.bank)
        if resume:
            # A named session that is over (perhaps only just settled, after a kill) says so: session_done.
            row = services.index.latest_unfinished() if resume == LATEST else services.index.get(resume)
            if row is None:
                raise fail(
                    f"no {'unfinished session' if resume == LATEST else 'session ' + resume} to resume; "
                    "see: rl-interview sessions"
                )
            session = services.interview(row.id)
            first = session.resume(take_over)
        elif drill is not None:
            from agent.drill import DrillRenderer, plan_drill
            from agent.profile import system_clock

            planned = plan_drill(services.profile.history(), services.bank, system_clock(), drill)
            renderer = DrillRenderer(sys.stdout, jsonl, services.bank, planned.gaps())
            session = services.interview()
            first = session.start(planned.request, lang, planned.max_follow_ups)
        else:
            request = request.model_copy(update={"recent": [] if request.ids else services.index.recent_questions()})
            session = services.interview()
            first = session.start(request, lang, settings.interview.max_follow_ups)
        try:
            return await drive(session, first, LineReader(sys.stdin.buffer), renderer)
        finally:
            session.release()


@app.command()
def drill(
    topic: Annotated[str | None, typer.Option("--topic", help="Only questions on this topic.")] = None,
    count: Annotated[int, typer.Option("--count", min=1, max=35, help="How many questions.")] = 3,
    plain: Annotated[bool, typer.Option("--plain", help="Plain text in the terminal or a pipe, no TUI.")] = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="With --plain: one JSON event per line.")] = False,
    lang: Annotated[Literal["en", "zh"] | None, typer.Option("--lang", help="Language of the interviewer.")] = None,
) -> None:
    """Drill your weak spots: due questions first, then your weakest topics, then new questions."""
    from agent.drill import DrillOptions
    from agent.planning import PlanRequest

    settings = load_settings()
    options = DrillOptions(topic=topic, count=count)
    if not plain:
        from tui.app import run_tui

        run_tui(
            settings, request=PlanRequest(questions=settings.interview.questions), lang=lang, resume=None, drill=options
        )
        return
    status = asyncio.run(_plain_session(settings, None, lang or settings.interview.lang, None, jsonl, drill=options))
    raise typer.Exit(0 if status in ("finished", "ended", "paused") else 1)


@app.command()
def progress(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Mastery per topic, cards due, the trend over time, and what to work on next."""
    from agent.profile import Profile, profile_path, system_clock
    from agent.progress import progress_report
    from agent.retrieval import NotesRetriever
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
    from agent.profile import Profile, profile_path
    from agent.sessions import SessionIndex

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
    from agent.profile import rebuild

    async with open_services(settings) as services:
        return await rebuild(services.profile, services)


@app.command()
def sessions(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List past and unfinished sessions (a finished one missing its report files gets them now)."""
    from agent.report import report_exported
    from agent.sessions import SessionIndex

    settings = load_settings()
    rows = SessionIndex(settings.sessions_db).list()
    if any(row.status != "active" and not report_exported(settings.reports_dir, row.id) for row in rows):
        rows = asyncio.run(_settled_rows(settings))
    if as_json:
        sys.stdout.write(json.dumps([r.as_dict() for r in rows], indent=2) + "\n")
        return
    for r in rows:
        depth = f"{r.average_depth:.2f}" if r.average_depth is not None else "-"
        typer.echo(f"{r.id}  {r.started}  {r.status:<8}  avg depth {depth:>4}  {', '.join(r.plan)}")


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
    from agent.report import build_report, to_markdown

    async with open_services(settings) as services:
        rows = services.index.list()
        row = services.index.get(session_id) if session_id else (rows[0] if rows else None)
        if row is None:
            raise fail(f"no session {session_id or ''} found; see: rl-interview sessions")
        state = await services.interview(row.id).state()
        built = build_report(state, services.bank)
        return (
            terminal_safe_json(built.model_dump_json(indent=2)) + "\n"
            if fmt == "json"
            else to_markdown(built, services.bank, row.lang)
        )


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
    from agent.drafting import draft_question
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


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (default: this machine only).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8000,
) -> None:
    """Serve the app in a browser (textual-serve); a non-loopback address exposes your sessions."""
    from tui.serve import serve as serve_app

    load_settings()  # a broken settings file is reported here, not in every browser tab
    serve_app(host, port)


@app.command()
def doctor(model: ModelOption = None, api_base: ApiBaseOption = None) -> None:
    """Check the model configuration with one tiny call and say clearly what is wrong."""
    from agent.llm_doctor import diagnose
    from knowledge.settings import llm_overrides

    settings = load_settings(**llm_overrides(model, api_base))
    diagnosis = asyncio.run(diagnose(settings.llm))
    if not diagnosis.ok:
        raise fail(diagnosis.message)
    typer.echo(diagnosis.message)


def _optional_resume_value(argv: list[str]) -> list[str]:
    """`--resume` may stand alone (the latest session) or take an id; click options cannot."""
    out = list(argv)
    for i, arg in enumerate(out):
        if arg == "--resume" and (i + 1 == len(out) or out[i + 1].startswith("-")):
            out.insert(i + 1, LATEST)
            break
    return out


def main() -> None:
    """Run the CLI; an unexpected error is one line on stderr, never a traceback."""
    try:
        app(args=_optional_resume_value(sys.argv[1:]), prog_name="rl-interview")
    except Exception as exc:  # the edge of the program: typed errors were told by `Commands`; this is a bug
        print(f"rl-interview: unexpected error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("Set RL_INTERVIEW_DEBUG=1 to see the traceback.", file=sys.stderr)
        if os.environ.get("RL_INTERVIEW_DEBUG"):
            raise
        sys.exit(1)
