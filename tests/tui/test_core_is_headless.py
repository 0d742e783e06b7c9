"""The core (agent, knowledge, evals) runs without the UI: importing it loads no Textual and no tui,
and import-linter's contract in pyproject.toml holds."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from isolation import child_env

ROOT = Path(__file__).resolve().parents[2]
CORE_MODULES = ["agent.app", "agent.interview.graph", "agent.learner.drill", "knowledge.store", "evals.replay"]

PROBE = """
import importlib, json, sys
for name in {modules!r}:
    importlib.import_module(name)
ui = sorted(m for m in sys.modules
            if m == "textual" or m.startswith("textual.") or m.startswith("tui"))
print(json.dumps({{"loaded": sorted(m for m in {modules!r} if m in sys.modules), "ui": ui}}))
"""


def _env(home: Path) -> dict[str, str]:
    return child_env(home)


def test_importing_the_core_loads_no_textual_and_no_tui(home):
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(modules=CORE_MODULES)],
        cwd=home,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["loaded"] == sorted(CORE_MODULES)
    assert result["ui"] == [], f"the core imported UI modules: {result['ui']}"


def test_the_probe_does_see_ui_imports(home):
    """The check above can fail: importing the TUI's app is reported."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(modules=["agent.app", "tui.app"])],
        cwd=home,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    ui = json.loads(done.stdout.strip().splitlines()[-1])["ui"]
    assert "textual" in ui and "tui.app" in ui


def test_import_linter_contract_holds(home):
    lint = shutil.which("lint-imports")
    assert lint, "lint-imports is missing: pip install -e '.[test]' (import-linter)"
    done = subprocess.run([lint, "--no-cache"], cwd=ROOT, env=_env(home), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The core never imports the UI KEPT" in done.stdout
    assert "Rooms import downwards only: tui -> evals -> agent -> knowledge -> common KEPT" in done.stdout
    assert "Contracts: 4 kept, 0 broken." in done.stdout, "the interviewer's rooms keep their order too"
