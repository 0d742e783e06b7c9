"""Concurrency: two plain sessions at once on one RL_INTERVIEW_HOME, and a knowledge build while a
session reads the store. Every process finishes, nothing waits on "database is locked", and no write
is lost."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from agent_helpers import cli_env, rl_interview, run_cli
from test_crash_resume import Live, answer_for
from test_crash_resume_random import session_args

from agent.interview.runner import open_checkpointer
from agent.interview.sessions import SessionIndex
from common.file_lock import file_lock

pytestmark = pytest.mark.slow

PLANS = {"first": ["algo-07", "infra-12"], "second": ["algo-05", "infra-10"]}


def answer(live: Live, written: list[str], turns: int | None = None) -> bool:
    """Answer `turns` interviewer turns (all of them when None); True while the session still waits."""
    while turns is None or turns > 0:
        waiting = live.until_waiting()
        if waiting is None:
            return False
        text = answer_for(waiting, len(written) + 1) + f" ({live.stderr_path.stem})"
        live.send(text)
        written.append(text)
        turns = None if turns is None else turns - 1
    return True


def assert_clean_exit(live: Live) -> None:
    assert live.finish() == 0, live.stderr()
    assert "database is locked" not in live.stderr() and "Traceback" not in live.stderr(), live.stderr()
    assert live.events[-1]["type"] == "session_done", [e["type"] for e in live.events]


def saved_answers(home: Path, session_id: str) -> list[str]:
    report = run_cli(home, "report", session_id, "--format", "json")
    assert report.returncode == 0, report.stderr.decode()
    return [t["answer"] for t in json.loads(report.stdout)["transcript"] if t["action"] == "answer"]


def test_two_sessions_at_once_on_one_home_lose_nothing(tmp_path):
    lives = {name: Live(tmp_path, session_args(plan), name) for name, plan in PLANS.items()}  # started together
    written: dict[str, list[str]] = {name: [] for name in PLANS}
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda name: answer(lives[name], written[name]), PLANS))
        for live in lives.values():
            assert_clean_exit(live)
    finally:
        for live in lives.values():
            if live.proc.poll() is None:
                live.proc.kill()

    listed = json.loads(run_cli(tmp_path, "sessions", "--json").stdout)
    assert sorted(row["questions"] for row in listed) == sorted(PLANS.values())
    assert {row["status"] for row in listed} == {"finished"}
    for row in listed:
        name = next(name for name, plan in PLANS.items() if plan == row["questions"])
        assert len(written[name]) >= len(row["questions"])
        assert saved_answers(tmp_path, row["id"]) == written[name], f"{name}: answers lost or mixed up"


def test_a_knowledge_build_while_a_session_reads_the_store(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zanzibar.md").write_text(
        "Question: algo-07\n\n# Zanzibar notes on the clipped ratio\n\n"
        "The zanzibar quokka rule: the clipped probability ratio keeps each zanzibar update inside a band.\n",
        encoding="utf-8",
    )
    first = run_cli(tmp_path, "kb", "build", "--source", str(docs))
    assert first.returncode == 0, first.stderr.decode()

    session = Live(tmp_path, session_args(["algo-07", "algo-05", "infra-10"]), "session")
    written: list[str] = []
    try:
        waiting = session.until_waiting()
        text = "The zanzibar quokka rule clips the probability ratio, which keeps each update small."
        session.send(text)  # read from the store: this answer's words are only in our document
        written.append(text)
        (docs / "tasmania.md").write_text(
            "# Tasmania notes\n\nThe tasmania wombat trick shards the experts across devices so tokens travel.\n",
            encoding="utf-8",
        )
        build = subprocess.Popen(
            [*rl_interview(), "kb", "build", "--source", str(docs)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=cli_env(tmp_path),
        )
        during = 0
        while build.poll() is None and answer(session, written, turns=1):  # the session goes on meanwhile
            during += 1
        out, err = build.communicate(timeout=120)
        assert build.returncode == 0, err.decode()
        assert "embedded" in out.decode() and "from 1 file(s)" in out.decode(), out.decode()
        assert b"database is locked" not in err
        answer(session, written)  # and after it, if any turn is left
        assert_clean_exit(session)
        assert during >= 1, "the build ended before the session answered anything"
    finally:
        if session.proc.poll() is None:
            session.proc.kill()

    assert waiting is not None and waiting["question"] == "algo-07"
    [row] = json.loads(run_cli(tmp_path, "sessions", "--json").stdout)
    report = json.loads(run_cli(tmp_path, "report", row["id"], "--format", "json").stdout)
    assert [t["answer"] for t in report["transcript"] if t["action"] == "answer"] == written
    sources = {ref["source"] for ref in report["questions"][0]["references"]}
    assert str((docs / "zanzibar.md").resolve()) in sources, f"the session did not read the store: {sources}"

    found = run_cli(tmp_path, "kb", "search", "tasmania wombat trick", "--json")
    assert found.returncode == 0, found.stderr.decode()
    assert json.loads(found.stdout)[0]["source"] == str((docs / "tasmania.md").resolve())


def reply(live: Live, waiting: dict, written: list[str]) -> dict | None:
    """Answer one interviewer turn; the next one (the answer was acknowledged), or None at the end."""
    text = answer_for(waiting, len(written) + 1) + f" ({live.stderr_path.stem})"
    live.send(text)
    written.append(text)
    return live.until_waiting()


def test_one_session_has_one_driver_and_a_take_over_loses_no_acknowledged_answer(tmp_path):
    """Issue 15: two processes resumed one session and each took an answer; the report kept one.
    Now the second resume is refused, naming the session and the way to take it over; a take-over
    drives it, and the first process refuses its next answer (printing it back) instead of
    overwriting the turn. Every answer that was acknowledged is in the report."""
    first = Live(tmp_path, session_args(PLANS["first"]), "first")
    second = None
    written: list[str] = []
    try:
        assert reply(first, first.until_waiting(), written) is not None
        session_id = json.loads(run_cli(tmp_path, "sessions", "--json").stdout)[0]["id"]
        refused = run_cli(tmp_path, "interview", "--plain", "--jsonl", "--resume", session_id)
        assert refused.returncode != 0
        message = refused.stderr.decode()
        assert "open in another process" in message and "--take-over" in message and session_id in message
        assert "Traceback" not in message

        second = Live(tmp_path, ["interview", "--plain", "--jsonl", "--resume", session_id, "--take-over"], "second")
        waiting = reply(second, second.until_waiting(), written)
        orphan = "This answer reached the first process after the take-over."
        first.send(orphan)
        assert first.finish() != 0
        assert "taken over by another process" in first.stderr() and orphan in first.stderr()
        assert "Traceback" not in first.stderr()
        while waiting is not None:
            waiting = reply(second, waiting, written)
        assert_clean_exit(second)
    finally:
        for live in (first, second):
            if live is not None and live.proc.poll() is None:
                live.proc.kill()
    assert saved_answers(tmp_path, session_id) == written


OPEN_AT = """
import asyncio, sys, time
from common.settings import load_settings
from agent.interview.runner import open_checkpointer
from agent.interview.sessions import SessionIndex
from agent.learner.profile import Profile, profile_path

async def main() -> None:
    settings = load_settings()
    while time.time() < float(sys.argv[1]):  # every process opens at the same instant
        time.sleep(0.001)
    if sys.argv[2] == "checkpoints":
        async with open_checkpointer(settings):
            await asyncio.sleep(0.05)
    elif sys.argv[2] == "sessions":
        SessionIndex(settings.sessions_db).list()
    else:
        Profile(profile_path(settings)).history()

asyncio.run(main())
"""


@pytest.mark.parametrize("store", ["checkpoints", "sessions", "profile"])
@pytest.mark.parametrize("round_", range(3))
def test_sessions_starting_together_on_a_fresh_home_all_open_their_stores(tmp_path, store, round_):
    """Switching a new SQLite file to WAL fails at once, not after the busy wait, when another process
    does it too: one of three sessions started together used to stop with "damaged" (the checkpoints,
    and later the session index and the profile, which CI and a 4-process loop caught 15 in 240)."""
    start = time.time() + 3  # after the imports of every process
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AT, str(start), store], stderr=subprocess.PIPE, env=cli_env(tmp_path)
        )
        for _ in range(4)
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors


@contextlib.contextmanager
def created_slowly(path: Path) -> Iterator[None]:
    """Another process creating `path` under its creation lock: 0 bytes for a second, then a database."""
    created = threading.Event()

    def create() -> None:
        with file_lock(path.with_name(path.name + ".lock")):
            path.write_bytes(b"")
            created.set()
            time.sleep(1)
            with sqlite3.connect(path) as db:
                db.execute("PRAGMA journal_mode=WAL")

    creator = threading.Thread(target=create)
    creator.start()
    assert created.wait(30)
    try:
        yield
    finally:
        creator.join()


def test_a_checkpoint_file_another_process_is_still_creating_is_waited_for_not_called_damaged(settings):
    """A fresh checkpoint file is 0 bytes between its creation and its first write. A session opening
    it then, in a home whose index already lists a session, took it for damage (the 0-byte check ran
    before the creation lock); now it waits for the creator and opens the written file."""
    SessionIndex(settings.sessions_db).create("listed", ["algo-07"], "en", "offline")

    async def open_and_count() -> int:
        async with open_checkpointer(settings) as saver:
            return len([c async for c in saver.alist(None)])

    with created_slowly(settings.home / "checkpoints.sqlite"):
        assert asyncio.run(open_and_count()) == 0


def test_a_session_index_another_process_is_still_creating_is_waited_for_not_called_damaged(settings):
    """The same moment for the session index, beside checkpoints that already hold a session."""
    (settings.home / "checkpoints.sqlite").write_bytes(b"written by an earlier session")
    with created_slowly(settings.sessions_db):
        assert SessionIndex(settings.sessions_db).list() == []
