"""The end of a session is recorded in one order (final checkpoint, index status, exported report)
before `session_done` is said, and a kill at any point in between is completed later: by a resume,
or by the next start (`open_services`, so the app and the plain CLI) or `rl-interview sessions`.

Each kill is a patched step that raises, in process, at one exact point.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from agent_helpers import collect, run_cli, services

from agent.interview.events import SessionDone
from agent.interview.sessions import SessionIndex
from agent.planning import PlanRequest
from agent.state import CandidateAction

PLAN = ["algo-07"]


class Killed(Exception):
    """Stands for the process dying at a chosen point."""


async def started(svc):
    """A one-question session waiting for its first answer."""
    interview = svc.interview()
    await collect(interview.start(PlanRequest(ids=PLAN), "en", 1))
    return interview


async def ended_with_a_kill_in(svc, monkeypatch, owner: object, name: str) -> str:
    """Start a one-question session and end it, the process dying in `owner.name`; its id."""
    interview = await started(svc)

    def die(*args):
        raise Killed

    monkeypatch.setattr(owner, name, die)
    with pytest.raises(Killed):
        await collect(interview.submit(CandidateAction.skip))
    monkeypatch.undo()
    return interview.session_id


def report_files(settings, session_id: str):
    return [settings.reports_dir / f"{session_id}.{ext}" for ext in ("md", "json")]


async def saved(settings, session_id: str):
    """The session's snapshot as another process would read it: a fresh checkpointer connection."""
    from agent.interview.graph import builder
    from agent.interview.runner import open_checkpointer

    async with open_checkpointer(settings) as saver:
        return await builder.compile(checkpointer=saver).aget_state({"configurable": {"thread_id": session_id}})


async def saved_state(settings, session_id: str) -> dict:
    return (await saved(settings, session_id)).values


async def test_session_done_comes_after_the_end_is_saved_everywhere(settings, notes_retriever):
    async with services(settings, notes_retriever) as svc:
        interview = await started(svc)
        async for event in interview.submit(CandidateAction.skip):
            if event.type == "session_done":  # what a kill right after this event would leave behind
                assert (await saved_state(settings, interview.session_id))["status"] == "finished"
                assert svc.index.get(interview.session_id).status == "finished"
                assert all(path.exists() for path in report_files(settings, interview.session_id))
                break
        else:
            raise AssertionError("the session did not end")


async def test_killed_after_the_report_step_ran_but_before_its_checkpoint_the_next_start_finishes_it(
    settings, notes_retriever
):
    async with services(settings, notes_retriever) as svc:
        interview = await started(svc)
        saver = svc.graph.checkpointer
        real_put, real_put_writes = saver.aput, saver.aput_writes
        reported, written = [], asyncio.Event()

        async def put_writes(config, writes, task_id, task_path=""):
            if ("status", "finished") in writes:
                reported.append(task_id)
            await real_put_writes(config, writes, task_id, task_path)
            if reported:
                written.set()

        async def put(config, checkpoint, metadata, new_versions):
            if reported:  # the final checkpoint (the two are saved concurrently): die once the writes are in
                await written.wait()
                raise Killed
            return await real_put(config, checkpoint, metadata, new_versions)

        saver.aput, saver.aput_writes = put, put_writes
        told = []
        with pytest.raises(Killed):
            told = [event.type async for event in interview.submit(CandidateAction.skip)]
        assert reported and "session_done" not in told
        session_id = interview.session_id
    # The report step's writes are saved, the checkpoint after it is not: resuming runs nothing again.
    assert [task.name for task in (await saved(settings, session_id)).tasks] == ["report"]

    assert SessionIndex(settings.sessions_db).get(session_id).status == "active"

    async with services(settings, notes_retriever) as svc:  # the next start records the end
        assert svc.index.get(session_id).status == "finished"
        assert all(path.exists() for path in report_files(settings, session_id))
        events = await collect(svc.interview(session_id).resume())  # and a resume completes the graph
        assert [e.type for e in events] == ["session_done"]
        assert events[0] == SessionDone(session_id, "finished")
    snapshot = await saved(settings, session_id)
    assert (snapshot.values["status"], snapshot.next, snapshot.tasks) == ("finished", (), ())


async def test_killed_after_the_final_checkpoint_but_before_the_index_knew_the_next_start_finishes_it(
    settings, notes_retriever, monkeypatch
):
    async with services(settings, notes_retriever) as svc:
        session_id = await ended_with_a_kill_in(svc, monkeypatch, svc.index, "finish")
    assert (await saved_state(settings, session_id))["status"] == "finished"
    assert not any(path.exists() for path in report_files(settings, session_id))

    async with services(settings, notes_retriever) as svc:  # the next start of the app or the CLI
        row = svc.index.get(session_id)
        assert row.status == "finished" and row.average_depth == 0
        assert all(path.exists() for path in report_files(settings, session_id))
        # A resume of it, by name, is told it is over rather than refused.
        assert [e.type for e in await collect(svc.interview(session_id).resume())] == ["session_done"]


async def test_killed_between_the_end_and_the_export_the_next_sessions_listing_writes_the_report(
    settings, notes_retriever, monkeypatch
):
    import agent.interview.runner

    async with services(settings, notes_retriever) as svc:
        session_id = await ended_with_a_kill_in(svc, monkeypatch, agent.interview.runner, "export_report")
        assert svc.index.get(session_id).status == "finished"
    assert not any(path.exists() for path in report_files(settings, session_id))

    listed = run_cli(settings.home, "sessions", "--json")
    assert listed.returncode == 0, listed.stderr.decode()
    assert [(row["id"], row["status"]) for row in json.loads(listed.stdout)] == [(session_id, "finished")]
    markdown, data = report_files(settings, session_id)
    assert markdown.exists() and data.exists()
    report = run_cli(settings.home, "report", session_id, "--format", "json")
    assert json.loads(data.read_text(encoding="utf-8")) == json.loads(report.stdout)
    assert not list(settings.reports_dir.glob(".*")), "a temporary file was left behind"


async def test_the_next_start_of_the_app_writes_a_missing_report(settings, notes_retriever):
    async with services(settings, notes_retriever) as svc:
        interview = await started(svc)
        await collect(interview.submit(CandidateAction.skip))
        session_id = interview.session_id
    for path in report_files(settings, session_id):  # as if the export had never happened
        path.unlink()
    async with services(settings, notes_retriever):
        assert all(path.exists() for path in report_files(settings, session_id))
