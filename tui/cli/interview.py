"""Interviews and drills, in the TUI or a plain terminal; serving it in a browser; checking a model."""

from __future__ import annotations

import asyncio
import io
import sys
from typing import TYPE_CHECKING, Annotated, Literal, cast

import typer

from common.settings import Lang, Settings, load_settings
from tui.cli.app import LATEST, ApiBaseOption, MaxCostOption, ModelOption, app, interview_settings
from tui.cli.console import fail

if TYPE_CHECKING:
    from agent.learner.drill import DrillOptions
    from agent.planning import PlanRequest


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
        list[str] | None,
        typer.Option("--question", help="Ask this question (repeatable, in order); with --questions, then more."),
    ] = None,
    topic: Annotated[str | None, typer.Option("--topic", help="Only questions on this topic.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Make the question plan reproducible.")] = None,
    lang: Annotated[Lang | None, typer.Option("--lang", help="Language of the interviewer.")] = None,
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
        fill=questions is not None,  # --question algo-05 --questions 2: algo-05, then one drawn
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
    settings: Settings,
    request: PlanRequest | None,
    lang: Lang,
    resume: str | None,
    jsonl: bool,
    drill: DrillOptions | None = None,
    take_over: bool = False,
) -> str:
    """A plain session: resumed, a drill (`drill`: agent.learner.drill.DrillOptions), or a new interview."""
    from agent.app import open_services
    from tui.plain import LineReader, Renderer, drive

    cast(io.TextIOWrapper, sys.stdout).reconfigure(encoding="utf-8", errors="replace")  # the console's stream
    async with open_services(settings) as services:
        for problem in services.bank.problems:
            print(f"left out: {problem}", file=sys.stderr)
        renderer = Renderer(sys.stdout, jsonl, services.bank, lang)
        if resume:
            # A named session that is over (perhaps only just settled, after a kill) says so: session_done.
            row = services.index.latest_unfinished() if resume == LATEST else services.index.get(resume)
            if row is None:
                raise fail(
                    f"no {'unfinished session' if resume == LATEST else 'session ' + resume} to resume; "
                    "see: rl-interview sessions"
                )
            renderer = Renderer(sys.stdout, jsonl, services.bank, row.lang)  # the session's language, not the flag's
            session = services.interview(row.id)
            renderer.so_far(await session.state())
            first = session.resume(take_over)
        elif drill is not None:
            from agent.learner.drill import plan_drill
            from agent.learner.profile import system_clock
            from tui.plain import DrillRenderer

            planned = plan_drill(services.profile.history(), services.bank, system_clock(), drill)
            renderer = DrillRenderer(sys.stdout, jsonl, services.bank, planned.request.gaps, lang)
            session = services.interview()
            first = session.start(planned.request, lang, planned.max_follow_ups)
        else:
            assert request is not None  # a new interview is always planned from a request
            request = request.model_copy(update={"recent": services.index.recent_questions() if request.draws else []})
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
    lang: Annotated[Lang | None, typer.Option("--lang", help="Language of the interviewer.")] = None,
) -> None:
    """Drill your weak spots: due questions first, then your weakest topics, then new questions."""
    from agent.learner.drill import DrillOptions
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
    from agent.brains.llm.doctor import diagnose
    from common.settings import llm_overrides

    settings = load_settings(**llm_overrides(model, api_base))
    diagnosis = asyncio.run(diagnose(settings.llm))
    if not diagnosis.ok:
        raise fail(diagnosis.message)
    typer.echo(diagnosis.message)
