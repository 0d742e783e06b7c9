"""What the session list says of each session (`rl-interview sessions`, its JSON, and the index
History reads): whether it was an interview or a drill, and its language."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

from agent_helpers import collect, run_cli, services

from agent.interview.sessions import SessionIndex
from agent.planning import PlanRequest


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
