"""The environment every test runs the product in: its own home, no config file, the tiny hash
embedding for the store and the cue-only judge (the judge by meaning is a subject of its own, in
tests/agent/judge/test_meaning.py and the eval floors). One place, so a setting added to the product is
isolated everywhere at once, in-process and in the subprocesses tests start."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path
from shutil import which

import pytest

TEST_SETTINGS = {
    "RL_INTERVIEW_KNOWLEDGE__EMBEDDING": "hash",
    "RL_INTERVIEW_JUDGE__EMBEDDING": "off",
}


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path, config: Path) -> None:
    """This process: the runner's own RL_INTERVIEW_* variables removed, then the test settings."""
    for name in list(os.environ):
        if name.startswith("RL_INTERVIEW_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RL_INTERVIEW_HOME", str(home))
    monkeypatch.setenv("RL_INTERVIEW_CONFIG", str(config))
    for name, value in TEST_SETTINGS.items():
        monkeypatch.setenv(name, value)


def child_env(
    home: Path, config: Path | None = None, *, base: dict[str, str] | None = None, **extra: str
) -> dict[str, str]:
    """The environment for a child process: `base` (os.environ) without RL_INTERVIEW_*, then the
    test settings, UTF-8 output and `extra`."""
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith("RL_INTERVIEW_")}
    env.update(
        RL_INTERVIEW_HOME=str(home),
        RL_INTERVIEW_CONFIG=str(config or home / "none.toml"),
        PYTHONIOENCODING="utf-8",
        **TEST_SETTINGS,
    )
    env.update(extra)
    return env


def rl_interview() -> list[str]:
    """The console script installed beside the Python running the tests (not a pyenv shim, nor the
    first on PATH, which may be another install's: a stress run's venv, not activated, ran the
    developer's tree that way), else the same entry point through Python."""
    script = Path(sysconfig.get_path("scripts")) / "rl-interview"
    if script.exists():
        return [str(script)]
    found = which("rl-interview")
    if found:
        return [found]
    return [sys.executable, "-c", "from tui.cli import main; main()"]
