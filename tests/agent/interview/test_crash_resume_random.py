"""Acceptance (issue 8): a plain --jsonl session killed with SIGKILL at 20 random points and resumed
loses no acknowledged answer, asks nothing twice, and ends with a consistent report.

A clean run first counts the answers a whole session takes (N). Ten sessions are then killed twice
each, after k1 < k2 < N answers written (k2 counted across processes, so the second kill lands in a
resumed process), each kill a seeded random delay (up to 250 ms) after the last write: while the
reply is read, assessed, checkpointed or saved to the inbox. In two sessions the second kill comes
up to 40 ms after the last question is closed instead: while the report is made and exported. A last
`--resume` finishes what is left. Whether a session is over is what the session index says after the
kill, not what the killed process printed: a kill can come after the end is recorded and before it
is said. The reverse must never happen: a `session_done` printed is an end already recorded. Once
`rl-interview sessions` has run, a finished session's report file exists, whatever the kill left.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from agent_helpers import INTERVIEWER_EVENTS, run_cli
from test_crash_resume import PLAN, Live, Outcome, answer_for

pytestmark = pytest.mark.slow

SEED = 8
SESSIONS = 10
REPORT = "report"
"""A kill point: after the last question's `question_done` (the report is being made and exported)."""
REPORT_KILLS = 2
"""Sessions whose second kill is REPORT."""
MAX_DELAY = 0.25
REPORT_MAX_DELAY = 0.04
"""From the last `question_done` to the exported report takes about 10-20 ms here."""


def session_args(plan: list[str]) -> list[str]:
    return ["interview", "--plain", "--jsonl", *[arg for q in plan for arg in ("--question", q)]]


START = session_args(PLAN)


def drive(live: Live, out: Outcome, kill_at: int | str | None, delay: float) -> bool:
    """Answer every interviewer turn until `kill_at` answers are written in all (or the last question
    is closed, for REPORT), then SIGKILL after `delay`; True once the process has reported the end
    of the session."""
    last: str | None = None
    """The reply whose assessment comes next."""
    while (event := live.next_event()) is not None:
        kind = event["type"]
        if kind == "question_done" and event["question"] == PLAN[-1] and kill_at == REPORT:
            return kill_after(live, out, delay, None)
        last = out.heard(event, last)
        if kind in INTERVIEWER_EVENTS:
            if len(out.written) != kill_at:  # kill_at 0: killed while waiting for the first answer
                text = answer_for(event, len(out.written) + 1)
                live.send(text)
                out.written.append(text)
                last = text
            if len(out.written) == kill_at:
                return kill_after(live, out, delay, last)
    assert live.proc.wait(timeout=60) == 0, live.stderr()
    return any(e["type"] == "session_done" for e in live.events)


def kill_after(live: Live, out: Outcome, delay: float, last: str | None) -> bool:
    """SIGKILL after `delay`; what the process printed before dying may acknowledge `last` or end
    the session."""
    time.sleep(delay)
    seen = len(live.events)
    live.kill()
    printed = [e["type"] for e in live.events[seen:]]
    if last is not None and "assessment" in printed:
        out.acknowledged.add(last)
    return "session_done" in printed


def session_killed_at(root: Path, kills: tuple[int | str, ...] = (), delays: tuple[float, ...] = ()) -> Outcome:
    """One session in its own home, killed at each point in turn and resumed after each kill."""
    from agent.interview.sessions import SessionIndex

    home = Path(tempfile.mkdtemp(prefix="session-", dir=root))
    out = Outcome(kills, delays)
    started: list[Live] = []
    try:
        for phase in range(len(kills) + 1):
            args = START if phase == 0 else ["interview", "--plain", "--jsonl", "--resume", out.session_id]
            live = Live(home, args, f"phase-{phase}")
            started.append(live)
            told = drive(
                live, out, kills[phase] if phase < len(kills) else None, delays[phase] if phase < len(kills) else 0
            )
            assert "Traceback" not in live.stderr(), live.stderr()
            [row] = SessionIndex(home / "sessions.sqlite").list()
            out.session_id = row.id
            assert row.status == "finished" or not told, (
                f"phase {phase} said session_done, but the session is {row.status}"
            )
            if row.status == "finished":
                break
        else:
            raise AssertionError(f"the last --resume did not finish the session: {[e['type'] for e in live.events]}")
    finally:
        for live in started:
            if live.proc.poll() is None:
                live.proc.kill()
                live.proc.wait(timeout=30)
    out.rows = json.loads(run_cli(home, "sessions", "--json").stdout)  # writes a report a kill kept from being exported
    saved = home / "reports" / f"{out.session_id}.json"
    assert saved.exists(), "a finished session without its report, after `sessions` ran"
    report = run_cli(home, "report", out.session_id, "--format", "json")
    assert report.returncode == 0, report.stderr.decode()
    out.report = json.loads(report.stdout)
    assert json.loads(saved.read_text(encoding="utf-8")) == out.report, "the exported report differs"
    return out


def kill_plans(answers: int) -> list[tuple[tuple[int, int | str], tuple[float, float]]]:
    """Two kill points per session: k1 < k2 answers written, or k1 and REPORT."""
    rng = random.Random(SEED)
    plans = []
    for session in range(SESSIONS):
        first = rng.randrange(answers - 1)
        second = REPORT if session < REPORT_KILLS else rng.randint(first + 1, answers - 1)
        delays = (rng.uniform(0, MAX_DELAY), rng.uniform(0, REPORT_MAX_DELAY if second == REPORT else MAX_DELAY))
        plans.append(((first, second), delays))
    return plans


def check(out: Outcome) -> None:
    where = f"kills after {out.kills} answers (+{[round(d * 1000) for d in out.delays]} ms, seed {SEED})"
    transcript = out.report["transcript"]
    answers = [turn["answer"] for turn in transcript if turn["action"] == "answer"]
    for text in out.written:
        expected = {1} if text in out.acknowledged else {0, 1}
        assert answers.count(text) in expected, f"{where}: {text!r} appears {answers.count(text)} times"
    assert set(out.recovered) <= set(out.written), where
    assert answers == [text for text in out.written if text in answers], f"{where}: answers invented or reordered"
    pairs = [(turn["question"], turn["asked"]) for turn in transcript]
    assert len(pairs) == len(set(pairs)), f"{where}: a question was asked twice"
    assert all(turn["depth"] is not None and turn["next"] is not None for turn in transcript), where

    assert out.report["status"] == "finished", where
    summaries = out.report["questions"]
    assert [s["question"] for s in summaries] == PLAN, f"{where}: not one summary per planned question"
    for summary in summaries:
        last = [turn["depth"] for turn in transcript if turn["question"] == summary["question"]][-1]
        assert summary["depth"] == last, (
            f"{where}: {summary['question']} summed up at {summary['depth']}, last assessed {last}"
        )
    [row] = out.rows
    assert (row["id"], row["status"], row["questions"]) == (out.session_id, "finished", PLAN), where
    assert row["average_depth"] == pytest.approx(sum(s["depth"] for s in summaries) / len(summaries)), where


def test_sigkill_at_twenty_random_points_then_resume(tmp_path):
    clean = session_killed_at(tmp_path)
    check(clean)
    answers = len(clean.written)
    assert answers >= 3, "too short a session to place two kills in it"

    plans = kill_plans(answers)
    assert sum(len(kills) for kills, _ in plans) == 20
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda plan: session_killed_at(tmp_path, *plan), plans))
    for out in outcomes:
        check(out)
