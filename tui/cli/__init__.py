"""The `rl-interview` command: the TUI by default, and subcommands for everything it can do.

One command line, one module per group of commands: `app` (the root, the error handler, shared
options), `interview` (interviews, drills, serve, doctor), `learner` (sessions, reports, progress,
profile), `bank`, `kb` and `evals` (eval, selftest, bench, judge)."""

from __future__ import annotations

import os
import sys

from tui.cli import bank, evals, interview, kb, learner  # noqa: F401  (each registers its commands on `app`)
from tui.cli.app import LATEST, app

__all__ = ["app", "main"]


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
