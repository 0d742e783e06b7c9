"""What the session list says of each session (`rl-interview sessions`, its JSON, and the index
History reads): whether it was an interview or a drill, and its language."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest
from agent_helpers import answer_for_levels, cached_bank, collect, run_cli, services

from agent.interview.sessions import SessionIndex
from agent.planning import PlanRequest
from agent.state import CandidateAction


def listed_line(output: bytes, session_id: str) -> list[str]:
    """The words of the text listing's line for `session_id`."""
    [line] = [line for line in output.decode().splitlines() if line.startswith(session_id)]
    return line.split()


async def test_a_drill_and_an_interview_are_listed_with_their_kind_and_language(settings, notes_retriever):
    async with services(settings, notes_retriever) as svc:
        await collect(svc.interview("drill-zh").start(PlanRequest(ids=["algo-07"], drill=True), "zh", 1))
        await collect(svc.interview("talk-en").start(PlanRequest(ids=["infra-01"]), "en", 3))
        assert (svc.index.get("drill-zh").kind, svc.index.get("talk-en").kind) == ("drill", "interview")

    rows = json.loads(run_cli(settings.home, "sessions", "--json").stdout)
    assert {row["id"]: (row["kind"], row["lang"]) for row in rows} == {
        "drill-zh": ("drill", "zh"),
        "talk-en": ("interview", "en"),
    }
    assert {"id", "started", "updated", "status", "questions", "brain", "average_depth"} <= set(rows[0])

    listing = run_cli(settings.home, "sessions").stdout
    assert listed_line(listing, "drill-zh")[2:4] == ["drill", "zh"]
    assert listed_line(listing, "talk-en")[2:4] == ["interview", "en"]


def test_a_session_whose_kind_no_saved_state_tells_is_listed_as_unknown(agent_home):
    """A row an earlier release wrote (no kind kept), whose checkpoints are gone: "-" and null."""
    index = SessionIndex(agent_home / "sessions.sqlite")
    with closing(sqlite3.connect(index.path)) as db:
        db.execute(
            "INSERT INTO sessions VALUES ('old-one', '2026-01-02T10:00:00+00:00', '2026-01-02T10:30:00+00:00', "
            "'finished', '[\"algo-07\"]', 'zh', 'offline', 2.0)"
        )
        db.commit()

    [row] = json.loads(run_cli(agent_home, "sessions", "--json").stdout)
    assert (row["id"], row["kind"], row["lang"], row["status"]) == ("old-one", None, "zh", "finished")
    assert listed_line(run_cli(agent_home, "sessions").stdout, "old-one")[2:5] == ["-", "zh", "finished"]


async def test_an_unfinished_session_is_listed_with_the_average_depth_of_its_closed_questions(
    settings, notes_retriever
):
    """`sessions` said "avg depth    -" for an active session with five closed questions: the
    average was kept only when the session ended."""
    bank = cached_bank()
    full = answer_for_levels(bank["algo-07"], 1, 2)
    async with services(settings, notes_retriever) as svc:
        session = svc.interview("half-done")
        await collect(session.start(PlanRequest(ids=["algo-07", "infra-01", "algo-05"]), "en", 0))
        await collect(session.submit(CandidateAction.answer, full))  # no follow-ups: the question closes
        await collect(session.submit(CandidateAction.skip))
        depths = [s.depth for s in (await session.state())["summaries"]]
        session.release()
    assert len(depths) == 2 and depths[0] > 0, "one question answered, one skipped, one still open"

    [row] = json.loads(run_cli(settings.home, "sessions", "--json").stdout)
    assert row["status"] == "active"
    assert row["average_depth"] == pytest.approx(sum(depths) / 2)
    assert listed_line(run_cli(settings.home, "sessions").stdout, "half-done")[7] == f"{sum(depths) / 2:.2f}"

    # A row an earlier release kept without it gets it at the next start (the services settle every session)
    with closing(sqlite3.connect(settings.sessions_db)) as db:
        db.execute("UPDATE sessions SET average_depth=NULL")
        db.commit()
    async with services(settings, notes_retriever) as svc:
        assert svc.index.get("half-done").average_depth == pytest.approx(sum(depths) / 2)
