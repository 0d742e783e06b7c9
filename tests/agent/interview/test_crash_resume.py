"""Acceptance: a plain --jsonl session killed with SIGKILL at ten points, then resumed, loses no
acknowledged answer and asks nothing twice.

A scenario runs `rl-interview interview --plain --jsonl --question ...` (3 questions, about 12
answers) in its own home and writes answers one at a time, each after the interviewer's next event.
Once k answers are written it waits a random few milliseconds and sends SIGKILL; `--resume` (another
process) carries on. Ten kill points k = 0..9 are spread over five sessions, two per session: k in
the process that started the session, k + 5 in a resumed one (so a resumed process is killed too);
the last `--resume` finishes the session and `rl-interview report ID --format json` is checked.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from agent_helpers import (
    INTERVIEWER_EVENTS,
    answer_for_levels,
    cached_bank,
    cli_env,
    explain,
    reply_bytes,
    rl_interview,
    run_cli,
)

pytestmark = pytest.mark.slow

PLAN = ["algo-07", "infra-12", "algo-05"]
SEED = 20251129
EVENT_TIMEOUT = 60


def answer_for(waiting: dict, number: int) -> str:
    """A reply that shows what the interviewer asked for, with a unique marker."""
    question = cached_bank()[waiting["question"]]
    target = waiting.get("target")
    if target is None:
        base = explain(min(question.key_points, key=lambda kp: kp.level).cues.en[0])
    elif target.startswith("expert:"):
        base = answer_for_levels(question, 4)
    elif target in {kp.id for kp in question.key_points}:
        base = explain(question.key_point(target).cues.en[0])
    else:
        base = "I take that claim back, it was wrong."
    return f"{base} This is my reply number {number}."


class Live:
    """A running `rl-interview` process, its JSONL events read on a thread."""

    def __init__(self, home: Path, args: list[str], name: str):
        self.stderr_path = home / f"{name}.stderr"
        with open(self.stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(
                [*rl_interview(), *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=cli_env(home),
            )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.events: list[dict] = []
        self.ended = False
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def next_event(self) -> dict | None:
        if self.ended:
            return None
        try:
            line = self.lines.get(timeout=EVENT_TIMEOUT)
        except queue.Empty:
            self.proc.kill()
            raise AssertionError(f"no event within {EVENT_TIMEOUT}s; stderr: {self.stderr()}") from None
        if line is None:
            self.ended = True
            return None
        event = json.loads(line)
        self.events.append(event)
        return event

    def until_waiting(self) -> dict | None:
        """Events up to the next interviewer turn (returned) or the end of the session (None)."""
        while True:
            event = self.next_event()
            if event is None or event["type"] == "session_done":
                return None
            if event["type"] in INTERVIEWER_EVENTS:
                return event

    def send(self, text: str) -> None:
        self.proc.stdin.write(reply_bytes(text))
        self.proc.stdin.flush()

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        while self.next_event() is not None:  # what it printed before dying
            pass

    def finish(self) -> int:
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        while self.next_event() is not None:
            pass
        return self.proc.wait(timeout=60)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@dataclass
class Outcome:
    kills: tuple[int, ...]
    delays: tuple[float, ...]
    written: list[str] = field(default_factory=list)
    """Every answer written to an interviewer process, in order, across processes."""
    acknowledged: set[str] = field(default_factory=set)
    """Answers followed by an assessment (the interviewer took them)."""
    recovered: list[str] = field(default_factory=list)
    session_id: str = ""
    report: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)

    def heard(self, event: dict, last: str | None) -> str | None:
        """Book what an interviewer event says about the replies: a recovered reply is the one
        whose assessment comes next; an assessment acknowledges it. Returns that reply, or None."""
        if event["type"] == "recovered":
            self.recovered.append(event["answer"])
            return event["answer"]
        if event["type"] == "assessment" and last is not None:
            self.acknowledged.add(last)
            return None
        return last


def session_with_kills(root: Path, kills: tuple[int, ...], delays: tuple[float, ...]) -> Outcome:
    """One session: killed after kills[0] answers written, resumed, killed after kills[1] answers
    written in all, ..., then resumed to the end."""
    started: list[Live] = []
    try:
        return _session_with_kills(root, kills, delays, started)
    finally:
        for live in started:  # a failed scenario leaves no process behind
            if live.proc.poll() is None:
                live.proc.kill()
                live.proc.wait(timeout=30)


def _session_with_kills(root: Path, kills: tuple[int, ...], delays: tuple[float, ...], started: list) -> Outcome:
    from agent.interview.sessions import SessionIndex

    home = root / ("kill-after-" + "-".join(map(str, kills)))
    home.mkdir()
    out = Outcome(kills, delays)
    start = ["interview", "--plain", "--jsonl", *[arg for q in PLAN for arg in ("--question", q)]]
    for phase in range(len(kills) + 1):
        kill_at = kills[phase] if phase < len(kills) else None
        args = start if phase == 0 else ["interview", "--plain", "--jsonl", "--resume", out.session_id]
        live = Live(home, args, f"phase-{phase}")
        started.append(live)
        last: str | None = None
        """The reply whose assessment comes next."""
        killed = False
        while not killed:
            event = live.next_event()
            if event is None:
                break
            last = out.heard(event, last)
            if event["type"] in INTERVIEWER_EVENTS:
                if kill_at is None or len(out.written) < kill_at:
                    text = answer_for(event, len(out.written) + 1)
                    live.send(text)
                    out.written.append(text)
                    last = text
                if kill_at is not None and len(out.written) == kill_at:
                    time.sleep(delays[phase])
                    seen = len(live.events)
                    live.kill()
                    killed = True
                    # What it printed before dying: an assessment there acknowledges the last reply.
                    if last is not None and any(e["type"] == "assessment" for e in live.events[seen:]):
                        out.acknowledged.add(last)
        if not killed:
            code = live.finish()
            assert code == 0, live.stderr()
            done = any(e["type"] == "session_done" for e in live.events)
            assert done, (
                f"{' '.join(args)} (phase {phase}, {len(out.written)} answers written) exited {code} "
                f"without finishing the session; it printed {[e['type'] for e in live.events]}"
            )
            assert kill_at is None, f"the session ended before the kill point {kill_at}"
        assert "Traceback" not in live.stderr()
        if not out.session_id:
            rows = SessionIndex(home / "sessions.sqlite").list()
            assert len(rows) == 1, rows
            out.session_id = rows[0].id

    report = run_cli(home, "report", out.session_id, "--format", "json")
    assert report.returncode == 0, report.stderr.decode()
    out.report = json.loads(report.stdout)
    out.rows = SessionIndex(home / "sessions.sqlite").list()
    return out


def test_sigkill_at_ten_points_then_resume_loses_nothing(tmp_path):
    """Ten kill points (k = 0..9 answers written), two per session: the first in the process that
    started the session, the second in a resumed one."""
    rng = random.Random(SEED)
    plans = [((k, k + 5), (rng.uniform(0.0, 0.15), rng.uniform(0.0, 0.15))) for k in range(5)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda plan: session_with_kills(tmp_path, *plan), plans))

    for out in outcomes:
        where = f"kills after {out.kills} answers (+{[round(d * 1000) for d in out.delays]} ms, seed {SEED})"
        transcript = out.report["transcript"]
        answers = [turn["answer"] for turn in transcript if turn["action"] == "answer"]
        assert len(set(out.written)) == len(out.written)
        for text in out.written:
            if text in out.acknowledged:
                assert answers.count(text) == 1, f"{where}: {text!r} appears {answers.count(text)} times"
            else:
                assert answers.count(text) <= 1, f"{where}: {text!r} appears {answers.count(text)} times"
        for text in out.recovered:
            assert text in out.written, f"{where}: recovered a reply never sent: {text!r}"
        # Nothing invented, nothing reordered; only a reply cut off by a kill may be missing.
        assert answers == [text for text in out.written if text in answers], where
        lost = [text for text in out.written if text not in answers]
        assert set(lost).isdisjoint(out.acknowledged), where
        assert len(lost) <= len(out.kills), where
        pairs = [(turn["question"], turn["asked"]) for turn in transcript]
        assert len(pairs) == len(set(pairs)), f"{where}: a question was asked twice"
        assert out.report["status"] == "finished", where
        assert [q["question"] for q in out.report["questions"]] == PLAN, where
        [row] = out.rows
        assert (row.id, row.status, row.plan) == (out.session_id, "finished", PLAN), where
        for turn in transcript:
            assert turn["depth"] is not None and turn["next"] is not None, f"{where}: an unfinished turn {turn}"
        assert len(out.written) > max(out.kills), where


def test_the_lines_of_an_unfinished_answer_survive_a_sigkill_and_are_offered_on_resume(tmp_path):
    """Issue 15, plain front end: each line of an answer not yet sent (no empty line yet) is kept;
    killed and resumed, the draft is offered back (JSONL: a `draft` event; a program then sends its
    answer whole, so a resent answer is never merged with the draft)."""
    live = Live(tmp_path, ["interview", "--plain", "--jsonl", "--question", "algo-07"], "first")
    first_lines = ["PPO clips the probability ratio to [1-eps, 1+eps],", "because it keeps the update small."]
    try:
        live.until_waiting()
        for line in first_lines:
            live.proc.stdin.write(line.encode() + b"\n")
        live.proc.stdin.flush()
        session_id = json.loads(run_cli(tmp_path, "sessions", "--json").stdout)[0]["id"]
        deadline = time.monotonic() + EVENT_TIMEOUT
        while _draft_of(tmp_path, session_id) != "\n".join(first_lines) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _draft_of(tmp_path, session_id) == "\n".join(first_lines)
        live.kill()
    finally:
        if live.proc.poll() is None:
            live.proc.kill()
    resumed = Live(tmp_path, ["interview", "--plain", "--jsonl", "--resume", session_id], "resumed")
    whole = "\n".join([*first_lines, "The min makes the objective a pessimistic bound."])
    try:
        waiting = resumed.until_waiting()
        assert waiting["type"] == "ask"
        assert resumed.next_event() == {"type": "draft", "text": "\n".join(first_lines)}
        resumed.send(whole)
        resumed.until_waiting()
        assert _draft_of(tmp_path, session_id) is None, "sending the answer clears its draft"
        resumed.send("/end")
        assert resumed.finish() == 0, resumed.stderr()
    finally:
        if resumed.proc.poll() is None:
            resumed.proc.kill()
    report = json.loads(run_cli(tmp_path, "report", session_id, "--format", "json").stdout)
    assert next(t["answer"] for t in report["transcript"] if t["action"] == "answer") == whole


def test_a_person_types_on_to_continue_the_draft():
    """In a terminal, the lines typed after a restart continue the kept draft, and each line
    typed is kept as the draft grows."""
    import io

    from agent.state import CandidateAction
    from tui.plain import LineReader

    kept: list[str] = []
    reader = LineReader(io.BytesIO(b"and the min is pessimistic.\n\n"))
    reply = reader.reply(kept.append, "PPO clips the ratio,")
    assert reply == (CandidateAction.answer, "PPO clips the ratio,\nand the min is pessimistic.")
    assert kept == ["PPO clips the ratio,\nand the min is pessimistic."]


def _draft_of(home: Path, session_id: str) -> str | None:
    import sqlite3

    with sqlite3.connect(home / "sessions.sqlite") as db:
        row = db.execute("SELECT text FROM drafts WHERE session_id=?", (session_id,)).fetchone()
    return row[0] if row else None
