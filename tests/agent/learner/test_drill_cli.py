"""The acceptance of weak-area drilling through the `rl-interview` command (subprocesses, a fixed
clock through RL_INTERVIEW_NOW): a session weak on PPO/KL and strong on infrastructure, then a
drill that opens on the missed key point and moves the card out, and `progress` reflecting both."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from agent_helpers import INTERVIEWER_EVENTS, cli_env, parse_jsonl, reply_bytes, rl_interview

from knowledge.models import Question

WEAK = ("algo-07", "algo-08")
STRONG = ("infra-01", "infra-04")
FIRST_DAY = "2026-12-01T00:00:00Z"
DRILL_DAY = "2026-12-03T00:00:00Z"
INTERVIEW_EVENTS = {"ask", "follow_up", "hint", "assessment", "question_done", "session_done"}


def strong_answer(question: Question) -> str:
    """Every key point in the bank's own words, each with a cue in an explaining sentence."""
    return " ".join(f"{kp.statement} This matters because {kp.cues.en[0]} explains it." for kp in question.key_points)


def converse(home: Path, now: str, args: list[str], answer: Callable[[dict], str], timeout: float = 90) -> list[dict]:
    """Run a plain JSONL session, replying to each interviewer event as it arrives."""
    proc = subprocess.Popen(
        [*rl_interview(), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(home, RL_INTERVIEW_NOW=now),
    )
    watchdog = threading.Timer(timeout, proc.kill)
    watchdog.start()
    events = []
    try:
        for line in proc.stdout:
            events.append(json.loads(line))
            if events[-1]["type"] in INTERVIEWER_EVENTS:
                proc.stdin.write(reply_bytes(answer(events[-1])))
                proc.stdin.flush()
        proc.stdin.close()
        code = proc.wait()
    finally:
        watchdog.cancel()
    assert code == 0, proc.stderr.read().decode()
    return events


def cli(home: Path, now: str, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [*rl_interview(), *args], capture_output=True, timeout=60, env=cli_env(home, RL_INTERVIEW_NOW=now)
    )
    assert done.returncode == 0, done.stderr.decode()
    return done


def card(progress: dict, question: str) -> dict:
    return next(c for c in progress["cards"] if c["question"] == question)


@pytest.mark.slow
def test_drill_opens_on_the_missed_key_point_and_moves_the_card_out(tmp_path, bank):
    home = tmp_path / "home"
    plan = [arg for qid in (*WEAK, *STRONG) for arg in ("--question", qid)]
    first = converse(
        home,
        FIRST_DAY,
        ["interview", "--plain", "--jsonl", *plan],
        lambda e: "I don't know" if e["question"] in WEAK else strong_answer(bank[e["question"]]),
    )
    depths = {e["question"]: e["depth"] for e in first if e["type"] == "question_done"}
    assert depths == {"algo-07": 0, "algo-08": 0, "infra-01": 4, "infra-04": 4}

    before = json.loads(cli(home, DRILL_DAY, "progress", "--json").stdout)
    assert before["due_today"] == 2, "the two weak cards are due by the drill day; the strong ones are not"

    drill = converse(
        home, DRILL_DAY, ["drill", "--plain", "--jsonl", "--count", "1"], lambda e: strong_answer(bank[e["question"]])
    )
    opening = drill[0]
    assert opening["type"] == "ask" and opening["question"] in WEAK
    question = bank[opening["question"]]
    missed_first = min(question.key_points, key=lambda kp: kp.level)
    assert opening["text"] == missed_first.probe.en
    assert {e["type"] for e in drill} <= INTERVIEW_EVENTS | {"previous_gap"}
    gap = [e for e in drill if e["type"] == "previous_gap"]
    assert len(gap) == 1 and gap[0]["question"] == question.id
    assert gap[0]["key_points"] == [kp.id for kp in sorted(question.key_points, key=lambda kp: kp.level)]
    types = [e["type"] for e in drill]
    assert types.index("assessment") < types.index("previous_gap") < types.index("question_done")
    assert [e["depth"] for e in drill if e["type"] == "question_done"] == [4]

    after = json.loads(cli(home, DRILL_DAY, "progress", "--json").stdout)
    drill_day = DRILL_DAY.replace("Z", "+00:00")
    assert card(before, question.id)["due"] <= drill_day < card(after, question.id)["due"]
    other = next(qid for qid in WEAK if qid != question.id)
    assert card(after, other)["due"] == card(before, other)["due"]

    sessions = json.loads(cli(home, DRILL_DAY, "sessions", "--json").stdout)
    assert sorted(after["sessions"]) == sorted(s["id"] for s in sessions) and len(after["sessions"]) == 2
    assert after["attempts"] == 5
    topics = {t["topic"]: t["mastery"] for t in after["topics"]}
    assert all(topics[t] == 1.0 for qid in STRONG for t in bank[qid].topics)
    only_other = set(bank[other].topics) - {t for q in (question.id, *STRONG) for t in bank[q].topics}
    assert only_other and all(topics[t] == 0.0 for t in only_other)
    assert all(0 < topics[t] < 1 for t in question.topics)
    assert [p["day"] for p in after["trend"]] == ["2026-12-01", "2026-12-03"]
    assert after["trend"][1]["mastery"] > after["trend"][0]["mastery"]
    assert len(after["next"]) == 3 and all(p["read"] for p in after["next"])
    assert after["next"][0]["question"] == other, "the question still at depth 0 comes first"

    text = cli(home, DRILL_DAY, "progress").stdout.decode("utf-8")
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any("mastery % over time" in line for line in lines)
    assert any(line.startswith("   └") for line in lines), "the chart's frame is drawn"


def test_drill_with_an_unknown_topic_fails_with_the_topics(tmp_path):
    done = subprocess.run(
        [*rl_interview(), "drill", "--plain", "--jsonl", "--topic", "cooking"],
        capture_output=True,
        timeout=60,
        env=cli_env(tmp_path / "home"),
    )
    assert done.returncode == 1
    assert "cooking" in done.stderr.decode() and "ppo" in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()
    assert parse_jsonl(done.stdout) == []


def test_profile_reset_asks_first(tmp_path, bank):
    home = tmp_path / "home"
    converse(home, FIRST_DAY, ["interview", "--plain", "--jsonl", "--question", "algo-07"], lambda e: "I don't know")
    refused = subprocess.run(
        [*rl_interview(), "profile", "reset"], input=b"n\n", capture_output=True, timeout=60, env=cli_env(home)
    )
    assert refused.returncode == 1 and b"Erase your profile (1 answered question" in refused.stdout
    assert json.loads(cli(home, FIRST_DAY, "progress", "--json").stdout)["attempts"] == 1
    cli(home, FIRST_DAY, "profile", "reset", "--yes")
    assert json.loads(cli(home, FIRST_DAY, "progress", "--json").stdout)["attempts"] == 0
    cli(home, FIRST_DAY, "profile", "rebuild")
    assert json.loads(cli(home, FIRST_DAY, "progress", "--json").stdout)["attempts"] == 0, "a reset is not undone"
