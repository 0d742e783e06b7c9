"""The root of the `rl-interview` command line: every command group registers on `app`."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from common.errors import InputError
from common.settings import Settings, load_settings
from tui.cli.console import fail


class Commands(TyperGroup):
    """The top of the command line: an `InputError` raised anywhere below (bad settings, a damaged
    session file, an impossible plan, ...) is told as one line on stderr, exit 1; no command needs
    its own handler for them."""

    ORDER = ("interview", "drill", "sessions", "report", "progress", "profile", "bank", "kb", "serve", "doctor")
    """How `--help` lists the commands: the everyday ones first, then measuring (eval, bench, ...)."""

    def list_commands(self, ctx: typer.core._click.Context) -> list[str]:
        names = super().list_commands(ctx)
        return sorted(names, key=lambda name: self.ORDER.index(name) if name in self.ORDER else len(self.ORDER))

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
LATEST = "latest"
"""`--resume` alone: the latest unfinished session."""

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


def interview_settings(model: str | None, api_base: str | None, max_cost: float | None) -> Settings:
    """The settings with the command line's model options; a model needs litellm installed."""
    from agent.brains.llm.client import INSTALL_HINT, litellm_installed
    from common.settings import llm_overrides

    settings = load_settings(**llm_overrides(model, api_base, max_cost))
    if settings.llm.model and not litellm_installed():
        raise fail(INSTALL_HINT)
    return settings
