"""The consoles every command writes to, and how a command fails."""

from __future__ import annotations

import typer
from rich.console import Console

EXIT_SKIPPED = 3
"""Exit code of a command that finished but left something out (a bad file, a bad entry)."""

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Tell the error on stderr; the command raises what this returns."""
    err.print(f"[red]error:[/] {message}", markup=True, soft_wrap=True)
    return typer.Exit(code)
