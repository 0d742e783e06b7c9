"""Damaged state: a truncated or corrupted session index or checkpoint database is reported in one
line naming the file and the fix, never with a traceback, never by silently starting over (the
damaged file is left exactly as it was), and what does not depend on it still works."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from agent_helpers import reply_bytes, run_cli

pytestmark = pytest.mark.slow

DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    "cut to nothing": lambda data: b"",
    "cut in half": lambda data: data[: len(data) // 2],
    "header overwritten": lambda data: b"not a database, whatever it was" * 4 + data[124:],
}


@pytest.fixture(scope="module")
def used_home(tmp_path_factory) -> Path:
    """A home with one paused session: one answer given, then /quit."""
    home = tmp_path_factory.mktemp("used-home")
    answer = reply_bytes("PPO clips the probability ratio, which keeps each update small.")
    started = run_cli(home, "interview", "--plain", "--jsonl", "--question", "algo-07", stdin=answer + b"/quit\n")
    assert started.returncode == 0, started.stderr.decode()
    assert not list(home.glob("*.sqlite-wal")), "a clean exit leaves no write-ahead log to damage separately"
    return home


def damaged_copy(used_home: Path, tmp_path: Path, name: str, damage: str) -> tuple[Path, Path, bytes]:
    home = tmp_path / "damaged"
    shutil.copytree(used_home, home)
    path = home / name
    damaged = DAMAGES[damage](path.read_bytes())
    path.write_bytes(damaged)
    return home, path, damaged


def assert_one_line_naming(result, path: Path, fix: str) -> None:
    err = result.stderr.decode()
    assert result.returncode != 0, (result.stdout.decode(), err)
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert str(path) in err and fix in err, err


def session_id(used_home: Path) -> str:
    from agent.interview.sessions import SessionIndex

    [row] = SessionIndex(used_home / "sessions.sqlite").list()
    return row.id


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_session_index_is_named_with_its_fix(used_home, tmp_path, damage):
    home, path, damaged = damaged_copy(used_home, tmp_path, "sessions.sqlite", damage)

    assert_one_line_naming(run_cli(home, "sessions"), path, "move it aside")
    assert_one_line_naming(run_cli(home, "interview", "--plain", "--resume", stdin=b"/quit\n"), path, "move it aside")
    assert path.read_bytes() == damaged, "the damaged index was rewritten"

    progress = run_cli(home, "progress", "--json")  # the profile does not depend on the index
    assert progress.returncode == 0, progress.stderr.decode()
    assert path.read_bytes() == damaged


@pytest.mark.parametrize("damage", DAMAGES)
def test_damaged_checkpoints_still_list_sessions_and_name_the_file_on_resume(used_home, tmp_path, damage):
    home, path, damaged = damaged_copy(used_home, tmp_path, "checkpoints.sqlite", damage)

    listed = run_cli(home, "sessions")
    assert listed.returncode == 0, listed.stderr.decode()
    assert session_id(used_home) in listed.stdout.decode()
    assert_one_line_naming(
        run_cli(home, "interview", "--plain", "--resume", stdin=b"/quit\n"), path, "move the file aside"
    )
    assert_one_line_naming(run_cli(home, "report", "--format", "json"), path, "move the file aside")
    assert path.read_bytes() == damaged, "the damaged checkpoints were rewritten"
