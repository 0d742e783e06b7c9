"""The time spent in a session, kept in the session index for a front end's clock to go on from."""

from __future__ import annotations

from pathlib import Path

from agent.interview.sessions import SessionIndex


def test_the_time_kept_never_goes_back(tmp_path: Path):
    """Two windows on one session (one took it over) each keep their count; the larger one stands."""
    index = SessionIndex(tmp_path / "sessions.sqlite")
    assert index.time_spent("s1") == 0
    index.save_time("s1", 40)
    index.save_time("s1", 30)  # the window that lost the session, leaving with its smaller count
    assert index.time_spent("s1") == 40
    index.save_time("s1", 55)
    assert (index.time_spent("s1"), index.time_spent("s2")) == (55, 0)
