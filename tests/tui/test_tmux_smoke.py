"""The real `rl-interview` TUI in a real terminal (tmux): Home, Enter, the question appears, an answer
sent with Ctrl+S gets a follow-up. CI installs tmux in .ci/run.

The test runs its own tmux server (-L, no config file), so a tmux the developer runs is never touched."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from isolation import TEST_SETTINGS
from tui_helpers import probes

from knowledge.bank import load_bank

WAIT_S = 30.0


SERVER = f"rl-interview-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _clean_env() -> dict[str, str]:
    """os.environ as Python sees it. Passed explicitly: in a pytest process the C-level environment
    can hold COLUMNS=80 LINES=24 (set by a library), which the app would take over the pane's size."""
    return {k: v for k, v in os.environ.items()
            if k not in ("COLUMNS", "LINES", "TMUX", "TMUX_PANE") and not k.startswith("RL_INTERVIEW_")}


def _tmux(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["tmux", "-L", SERVER, "-f", os.devnull, *args], capture_output=True, text=True,
                          timeout=20, env=_clean_env())


def _pane(name: str) -> str:
    """The visible pane, each row stripped, joined so wrapped sentences read as one."""
    shown = _tmux("capture-pane", "-p", "-J", "-t", name)
    assert shown.returncode == 0, f"tmux capture-pane failed (did the app exit?): {shown.stderr}"
    return shown.stdout


def _flat(text: str) -> str:
    return " ".join(text.replace("│", " ").replace("▌", " ").replace("┃", " ").split())


def _wait_for(name: str, predicate, what: str) -> str:
    deadline = time.monotonic() + WAIT_S
    while True:
        screen = _pane(name)
        if predicate(_flat(screen)):
            return screen
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} after {WAIT_S:.0f}s; the terminal shows:\n{screen}")
        time.sleep(0.25)


@pytest.mark.slow
def test_the_real_app_asks_and_follows_up_in_tmux(tmp_path: Path):
    assert shutil.which("tmux"), "tmux is not installed: apt-get install -y tmux (CI's .ci/run installs it)"
    script = shutil.which("rl-interview")
    assert script, "the rl-interview script is not on PATH: pip install -e '.[test]'"
    question = load_bank()["algo-07"]
    home = tmp_path / "home"
    env = {
        "RL_INTERVIEW_HOME": str(home),
        "RL_INTERVIEW_CONFIG": str(tmp_path / "none.toml"),
        **TEST_SETTINGS,
        "HOME": str(tmp_path),  # nothing the app or its libraries write lands in the real home
        "TERM": "xterm-256color",
    }
    command = "env -u COLUMNS -u LINES " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) \
        + f" {shlex.quote(script)} interview --question algo-07"
    name = "smoke"
    started = _tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", command)
    assert started.returncode == 0, f"tmux new-session failed: {started.stderr}"
    socket = _tmux("display-message", "-p", "#{socket_path}").stdout.strip()
    try:
        # even with --question the TUI opens on Home (as the README says): Enter starts the plan
        _wait_for(name, lambda s: "Press Enter to start an interview" in s, "Home")
        _tmux("send-keys", "-t", name, "Enter")
        # the prompt is wrapped in the transcript: compare its first words
        opening = " ".join(question.prompt.en.split()[:6])
        screen = _wait_for(name, lambda s: opening in s, "algo-07 prompt")
        assert "Question · 1/1 · algo-07" in _flat(screen)
        size = _tmux("list-panes", "-t", name, "-F", "#{pane_width}x#{pane_height}").stdout.strip()
        assert max(len(line) for line in screen.splitlines()) > 100, \
            f"the app should draw 120 columns (pane {size}):\n{screen}"
        _tmux("send-keys", "-t", name, "-l", "PPO clips the probability ratio to a band.")
        _wait_for(name, lambda s: "PPO clips the probability ratio to a band." in s, "typed answer")
        _tmux("send-keys", "-t", name, "C-s")
        starts = [" ".join(p.split()[:5]) for p in probes(question)]
        screen = _wait_for(name, lambda s: "Follow-up" in s and any(p in s for p in starts), "follow-up")
        assert "Question 1 of 1" in _flat(screen)
        assert (home / "sessions.sqlite").exists(), "the session is saved under RL_INTERVIEW_HOME"
    finally:
        _tmux("kill-server")
        if socket:
            Path(socket).unlink(missing_ok=True)  # tmux leaves the socket file of a killed server
