"""How many cores the e5 engine may use for the next batch: every core when no other program wants
them, fewer when the machine is busy.

The engine splits each matrix product across its threads and waits for the slowest at every layer.
On an idle machine two threads embed an answer in about half the time of one; beside a program that
holds a core, the second thread waits for a time slice at each of those barriers and a turn took
3-4x longer than on one thread. So the choice is made per batch, from what the other programs did
since the last one: the machine's busy time (/proc/stat) minus this process's own CPU time, over the
wall time between the two samples. A user's `OMP_NUM_THREADS` is obeyed as it is.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MIN_WINDOW_S = 0.25
"""Samples closer than this say little (a tick is 10 ms); the last choice stands."""


@dataclass(frozen=True)
class Sample:
    wall_s: float
    busy_s: float
    """Every program's CPU time on this machine (idle and I/O wait left out)."""
    own_s: float
    """This process's, all threads."""


def machine_busy_s() -> float | None:
    """The machine's total busy CPU seconds since boot; None where /proc/stat is not there."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / CLOCK_TICKS


def sample() -> Sample | None:
    busy = machine_busy_s()
    return None if busy is None else Sample(time.monotonic(), busy, time.process_time())


def others_cores(before: Sample, after: Sample) -> float:
    """The cores other programs kept busy, on average, between two samples."""
    wall = after.wall_s - before.wall_s
    theirs = (after.busy_s - before.busy_s) - (after.own_s - before.own_s)
    return max(theirs, 0.0) / wall if wall > 0 else 0.0


def threads_for(cores: int, others: float) -> int:
    """The cores left free, counting a core as taken once another program holds half of it."""
    return max(1, min(cores, math.floor(cores - others + 0.5)))


class CoreGauge:
    """One per process: samples at every choice, so a long pause (the candidate typing) is measured
    whole. Until two samples are far enough apart it says one thread, as the engine ran before."""

    def __init__(self, cores: int | None = None):
        self.cores = cores or os.cpu_count() or 1
        self._lock = threading.Lock()
        self._last = sample()
        self._threads = 1
        self.chosen: Counter[int] = Counter()
        """How many batches ran on each thread count (the bench reports it)."""

    def threads(self) -> int:
        count = self._choose()
        self.chosen[count] += 1
        return count

    def _choose(self) -> int:
        fixed = os.environ.get("OMP_NUM_THREADS", "").strip()
        if fixed.isdigit() and int(fixed) > 0:
            return int(fixed)
        with self._lock:
            now = sample()
            if now is None:
                return 1  # no way to tell: one thread never waits for a busy core
            if self._last is not None and now.wall_s - self._last.wall_s >= MIN_WINDOW_S:
                self._threads = threads_for(self.cores, others_cores(self._last, now))
                self._last = now
            elif self._last is None:
                self._last = now
            return self._threads


gauge = CoreGauge()
"""Created at import: the first answer's batch is measured over the time the candidate took."""
