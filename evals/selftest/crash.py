"""Crash and resume: plain sessions killed with SIGKILL and resumed; no answer may be lost."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evals.selftest.suite import Suite

ANSWERS = [
    "PPO clips the probability ratio to 1 plus or minus epsilon, so an update cannot move too far.",
    "The min of the clipped and unclipped terms gives a pessimistic lower bound on the improvement.",
    "I don't know.",
    "Expert parallelism shards the experts across GPUs and routes tokens with all-to-all.",
    "Load imbalance makes the slowest GPU set the pace of the whole layer.",
]


def _cli(home: Path, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "RL_INTERVIEW_HOME": str(home),
        "RL_INTERVIEW_CONFIG": str(home / "none.toml"),
        "RL_INTERVIEW_KNOWLEDGE__EMBEDDING": "hash",
    }
    return subprocess.Popen(
        [sys.executable, "-c", "from tui.cli import main; main()", *args],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        **kwargs,
    )


def _send(process: subprocess.Popen[str], text: str) -> None:
    assert process.stdin is not None  # _cli opens it with stdin=PIPE
    process.stdin.write(text)
    process.stdin.flush()


def _until_waiting(process: subprocess.Popen[str]) -> bool:
    """Read events until the interviewer waits for a reply (True) or the session ends (False)."""
    assert process.stdout is not None  # _cli opens it with stdout=PIPE
    for line in process.stdout:
        kind = json.loads(line)["type"]
        if kind in ("ask", "follow_up", "hint"):
            return True
        if kind == "session_done":
            return False
    return False


def crash_suite(kill_points: int = 3) -> Suite:
    suite = Suite("crash and resume (SIGKILL)", failure_label="turns lost")
    plan = ["--question", "algo-07", "--question", "infra-10"]
    for point in range(kill_points):
        suite.tried += 1
        with tempfile.TemporaryDirectory(prefix="rl-selftest-") as folder:
            home = Path(folder)
            sent: list[str] = []
            process = _cli(home, "interview", "--plain", "--jsonl", *plan)
            _until_waiting(process)
            for answer in ANSWERS[:point]:  # acknowledged: the interviewer replied to each
                _send(process, answer + "\n\n")
                sent.append(answer)
                _until_waiting(process)
            _send(process, ANSWERS[point] + "\n\n")  # in flight when the process dies
            time.sleep(random.Random(point).uniform(0, 0.3))
            process.send_signal(signal.SIGKILL)
            process.wait()
            in_flight = ANSWERS[point]
            resumed = _cli(home, "interview", "--plain", "--jsonl", "--resume")
            waiting = _until_waiting(resumed)
            for answer in ANSWERS[point + 1 :]:  # whatever the resumed session asks
                if not waiting:
                    break
                _send(resumed, answer + "\n\n")
                sent.append(answer)
                waiting = _until_waiting(resumed)
            while waiting:
                _send(resumed, "/skip\n")
                waiting = _until_waiting(resumed)
            assert resumed.stdin is not None  # _cli opens it with stdin=PIPE
            resumed.stdin.close()
            resumed.wait(timeout=60)
            report = subprocess.run(
                [sys.executable, "-c", "from tui.cli import main; main()", "report", "--format", "json"],
                env={**os.environ, "RL_INTERVIEW_HOME": str(home), "RL_INTERVIEW_CONFIG": str(home / "none.toml")},
                capture_output=True,
                text=True,
                encoding="utf-8",
            )
            kept = [t["answer"] for t in json.loads(report.stdout)["transcript"] if t["action"] == "answer"]
            # every acknowledged answer must be there, once; the one in flight when the process died
            # may or may not have reached the inbox (the candidate saw no reply), but never twice.
            missing = [a for a in sent if kept.count(a) != 1] + ([in_flight] if kept.count(in_flight) > 1 else [])
            if missing:
                suite.failures += len(missing)
                suite.notes.append(f"kill after {point + 1} answers: lost {len(missing)}")
            else:
                suite.survived += 1
    return suite
