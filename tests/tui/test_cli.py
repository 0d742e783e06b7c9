"""One error handler at the top of the command line: every typed error of ours derives from
`InputError`, and one raised in any command group is one line on stderr and exit 1, never a traceback."""

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from common.errors import InputError
from tui.cli import app

PACKAGES = ("agent", "knowledge", "evals", "common")
NOT_INPUT = {"LLMFailure"}
"""A provider's failure is an outage each turn recovers from (it is scored offline), not bad input."""


def our_exceptions() -> list[type[Exception]]:
    found = []
    for package in PACKAGES:
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, f"{package}."):
            module = importlib.import_module(info.name)
            found += [
                obj
                for _, obj in inspect.getmembers(module, inspect.isclass)
                if issubclass(obj, Exception) and obj.__module__ == module.__name__
            ]
    return found


def test_every_typed_error_of_ours_is_an_input_error():
    errors = our_exceptions()
    assert len(errors) >= 15, "the scan found our error classes, in the rooms' subpackages too"
    assert [e.__qualname__ for e in errors if not issubclass(e, InputError) and e.__qualname__ not in NOT_INPUT] == []


@pytest.mark.parametrize("command", [["kb", "status"], ["sessions"], ["eval", "--keypoints"]])
def test_a_broken_settings_file_is_one_line_naming_it_in_every_command_group(command, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text("[interview]\nmax_follow_ups = 'many'\n", encoding="utf-8")
    monkeypatch.setenv("RL_INTERVIEW_CONFIG", str(config))
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 1, result.output
    assert "error:" in result.output and "config.toml" in result.output and "max_follow_ups" in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), "handled, not raised"


def test_every_command_the_readme_shows_exists():
    """The command line is assembled from one module per group; one that forgot to register its
    commands (or a README that names a command we do not have) fails here."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"rl-interview ((?:bank|kb|judge|profile) [a-z-]+|[a-z-]+)", readme))
    assert len(shown) >= 20
    for command in sorted(shown):
        result = CliRunner().invoke(app, [*command.split(), "--help"])
        assert result.exit_code == 0, f"`rl-interview {command}`: {result.output}"
