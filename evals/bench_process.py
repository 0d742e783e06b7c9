"""Timing the real CLI in fresh interpreters, each in a bench home of its own: time to the first line
and to the exit, and the child's own peak memory."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from common.errors import InputError
from common.settings import ENV_PREFIX, InterviewSettings, JudgeSettings, KnowledgeSettings, LLMSettings, Settings

CLI = (sys.executable, "-c", "from tui.cli import main; main()")
"""The `rl-interview` entry point in a fresh interpreter (what the console script runs)."""


class BenchError(InputError):
    """A measured command failed; the message names it and ends with its last words on stderr."""


# -- running things --------------------------------------------------------------------------
@dataclass(frozen=True)
class ProcessRun:
    first_line_s: float | None
    exit_s: float
    peak_rss_mb: float
    stdout: str


def judge_for(embedding: str) -> str:
    """The judge a bench runs: by meaning with the real store (e5), by cues with the quick one."""
    return "e5" if embedding == "e5" else "off"


def bench_env(home: Path, embedding: str) -> dict[str, str]:
    """This environment without the user's own settings, with a home of the bench's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIX)}
    return env | {
        f"{ENV_PREFIX}HOME": str(home),
        f"{ENV_PREFIX}CONFIG": str(home / "no-config.toml"),
        f"{ENV_PREFIX}KNOWLEDGE__EMBEDDING": embedding,
        f"{ENV_PREFIX}JUDGE__EMBEDDING": judge_for(embedding),
    }


def bench_settings(home: Path, embedding: str) -> Settings:
    """The same as `bench_env`, for this process: every field given, so nothing else leaks in."""
    return Settings(
        home=home,
        chroma_url=None,
        knowledge=KnowledgeSettings(embedding=embedding),
        llm=LLMSettings(),
        interview=InterviewSettings(),
        judge=JudgeSettings(embedding=judge_for(embedding)),
    )


def run_process(args: Sequence[str], env: dict[str, str], stdin: str = "") -> ProcessRun:
    """Run to the end; times from just before the start to its first line on stdout and to its exit."""
    with tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        proc = subprocess.Popen(args, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        assert proc.stdin is not None and proc.stdout is not None  # both opened with PIPE
        try:
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass  # it stopped reading; its exit status tells whether that was a failure
        watcher = PeakMemory(proc.pid)
        first = proc.stdout.readline()
        first_s = time.perf_counter() - started if first else None
        rest = proc.stdout.read()
        peak_mb = watcher.stop()
        _, status, _ = os.wait4(proc.pid, 0)
        exit_s = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            stderr.seek(0)
            last = " / ".join(stderr.read().decode(errors="replace").strip().splitlines()[-3:])
            raise BenchError(f"`{command_line(args)}` exited with status {proc.returncode}: {last or 'no message'}")
    return ProcessRun(first_s, exit_s, peak_mb, (first + rest).decode(errors="replace"))


class PeakMemory:
    """The child's own peak resident memory (VmHWM), sampled while it runs. Its ru_maxrss would not
    do: Linux carries the parent's high-water mark over fork and exec, so under a large parent (a
    test runner) every child would seem at least as large as the parent."""

    def __init__(self, pid: int, every_s: float = 0.02):
        self.path = Path(f"/proc/{pid}/status")
        self.peak_kb = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(every_s,), daemon=True)
        self._thread.start()

    def _sample(self, every_s: float) -> None:
        while not self._done.is_set():
            try:
                for line in self.path.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        self.peak_kb = max(self.peak_kb, int(line.split()[1]))
            except (OSError, ValueError):
                return  # the process has exited (or is a zombie without memory figures)
            self._done.wait(every_s)

    def stop(self) -> float:
        """Once the child has closed its output (it is exiting): a high-water mark only grows, so the
        last sample is its peak."""
        self._done.set()
        self._thread.join(timeout=5)
        return self.peak_kb / 1024


def command_line(args: Sequence[str]) -> str:
    return "rl-interview " + " ".join(args[3:]) if tuple(args[:3]) == CLI else " ".join(args)


def first_line_s(args: Sequence[str], env: dict[str, str]) -> float:
    run = run_process(args, env)
    if run.first_line_s is None:
        raise BenchError(f"`{command_line(args)}` printed nothing")
    return run.first_line_s
