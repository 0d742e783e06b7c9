"""The runner (Interview + session index through open_services) and the `rl-interview` CLI as a
subprocess, with the plain front end's JSONL events."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from agent_helpers import (
    BANK_IDS,
    GRADER_INSTRUCTIONS,
    INTERVIEWER_EVENTS,
    answer_for_levels,
    cli_env,
    collect,
    keyword_list,
    parse_jsonl,
    reply_bytes,
    rl_interview,
    run_cli,
    services,
    zh_answer_for_levels,
)

from agent.planning import PlanRequest
from agent.state import CandidateAction

EVENT_KEYS = {
    "ask": {"question", "text"},
    "follow_up": {"question", "text", "target"},
    "hint": {"question", "text", "target"},
    "assessment": {"question", "depth", "covered", "missed", "flags"},
    "question_done": {"question", "depth"},
    "session_done": {"session_id"},
}


# --- the runner, in process ------------------------------------------------------------------


async def test_interview_start_submit_finish_and_index(settings, notes_retriever, bank):
    async with services(settings, notes_retriever) as svc:
        interview = svc.interview()
        events = await collect(interview.start(PlanRequest(ids=["algo-07", "infra-12"]), "en", 1))
        assert [e.type for e in events] == ["ask"]
        assert events[0].text == bank["algo-07"].prompt.en
        row = svc.index.get(interview.session_id)
        assert (row.status, row.plan, row.lang) == ("active", ["algo-07", "infra-12"], "en")
        assert svc.index.latest_unfinished() is None, "nothing sent yet: nothing to offer to resume"

        answers = [
            answer_for_levels(bank["algo-07"], 1, 2),
            "I don't know",
            answer_for_levels(bank["infra-12"], 1),
            "I don't know",
        ]
        seen = []
        for answer in answers:
            if interview.waiting is None:
                break
            seen.append(interview.waiting)
            events = await collect(interview.submit(CandidateAction.answer, answer))
            assert events[0].type == "assessment"
            if interview.waiting is not None:
                assert svc.index.latest_unfinished().id == interview.session_id
        assert interview.waiting is None
        assert events[-1].type == "session_done"
        assert events[-1].session_id == interview.session_id

        state = await interview.state()
        assert state["status"] == "finished"
        summaries = state["summaries"]
        assert [s.question for s in summaries] == ["algo-07", "infra-12"]
        row = svc.index.get(interview.session_id)
        assert row.status == "finished"
        assert row.average_depth == pytest.approx(sum(s.depth for s in summaries) / 2)
        assert svc.index.latest_unfinished() is None
        assert [t.answer for t in state["turns"]] == answers[: len(seen)]
        with pytest.raises(RuntimeError):
            await collect(interview.submit(CandidateAction.answer, "too late"))


async def test_a_session_left_is_free_for_another_driver_at_once(settings, notes_retriever, bank):
    """Issue 15: the lease is released when a front end stops driving (left, paused), not only when
    its process dies; until then a second driver is refused, and a released driver sends nothing."""
    from agent.interview.sessions import SessionBusy

    async with services(settings, notes_retriever) as svc:
        interview = svc.interview()
        await collect(interview.start(PlanRequest(ids=["algo-07"]), "en", 1))
        with pytest.raises(SessionBusy, match="open in another process"):
            svc.index.take(interview.session_id, "another-window")
        turn = interview.waiting.turn
        interview.release()
        svc.index.take(interview.session_id, "another-window")
        with pytest.raises(RuntimeError):
            await collect(interview.submit(CandidateAction.answer, "sent after leaving"))
        assert svc.index.saved_answer(interview.session_id, turn) is None


async def test_resume_in_new_services_waits_at_the_same_turn(settings, notes_retriever, bank):
    async with services(settings, notes_retriever) as svc:
        interview = svc.interview()
        await collect(interview.start(PlanRequest(ids=["algo-07", "infra-12"]), "en", 3))
        await collect(interview.submit(CandidateAction.answer, answer_for_levels(bank["algo-07"], 1)))
        waiting = interview.waiting
        session_id = interview.session_id
    async with services(settings, notes_retriever) as svc:
        again = svc.interview(session_id)
        events = await collect(again.resume())
        assert events == [waiting]
        state = await again.state()
        assert len(state["turns"]) == 1


async def test_a_saved_reply_the_graph_never_received_is_recovered_once(settings, notes_retriever, bank):
    answer = answer_for_levels(bank["algo-07"], 1, 2)
    async with services(settings, notes_retriever) as svc:
        interview = svc.interview()
        await collect(interview.start(PlanRequest(ids=["algo-07"]), "en", 3))
        # The front end saved the reply to the inbox, then the process died before the graph saw it.
        svc.index.save_answer(interview.session_id, interview.waiting.turn, "answer", answer)
        session_id = interview.session_id
    async with services(settings, notes_retriever) as svc:
        again = svc.interview(session_id)
        events = await collect(again.resume())
        assert events[0].type == "recovered"
        assert events[0].answer == answer
        assert [e.type for e in events[1:]] == ["assessment", "follow_up"]
        assert events[1].depth >= 2
        state = await again.state()
        assert [t.answer for t in state["turns"]] == [answer]
    # Resuming again finds the reply already taken: nothing is submitted twice.
    async with services(settings, notes_retriever) as svc:
        again = svc.interview(session_id)
        events = await collect(again.resume())
        assert [e.type for e in events] == ["follow_up"]
        assert [t.answer for t in (await again.state())["turns"]] == [answer]


async def test_resume_between_nodes_finishes_the_step(settings, notes_retriever, bank):
    """A process that died after the answer was checkpointed but before it was assessed."""
    from langgraph.types import Command

    answer = answer_for_levels(bank["algo-07"], 1)
    async with services(settings, notes_retriever) as svc:
        interview = svc.interview()
        await collect(interview.start(PlanRequest(ids=["algo-07"]), "en", 3))
        svc.index.save_answer(interview.session_id, interview.waiting.turn, "answer", answer)
        stream = svc.graph.astream(
            Command(resume={"action": "answer", "text": answer}),
            interview.config,
            context=svc.context,
            stream_mode="updates",
            durability="sync",
        )
        assert "ask" in await anext(stream)
        await stream.aclose()
        session_id = interview.session_id
    async with services(settings, notes_retriever) as svc:
        again = svc.interview(session_id)
        events = await collect(again.resume())
        assert [e.type for e in events] == ["assessment", "follow_up"]
        assert [t.answer for t in (await again.state())["turns"]] == [answer]


class Killed(Exception):
    """Stands for the process dying at a chosen point."""


async def test_resume_after_dying_between_a_node_and_the_next_checkpoint(settings, notes_retriever, bank):
    """The assess node finished and its writes were saved, then the process died before the next
    checkpoint: resume must carry on from those writes (here: decide, then the follow-up)."""
    answer = answer_for_levels(bank["algo-07"], 1)
    async with services(settings, notes_retriever) as svc:
        interview = svc.interview()
        await collect(interview.start(PlanRequest(ids=["algo-07", "infra-12"]), "en", 3))
        saver = svc.graph.checkpointer
        real_put, real_put_writes = saver.aput, saver.aput_writes
        assessed = []

        async def put_writes(config, writes, task_id, task_path=""):
            await real_put_writes(config, writes, task_id, task_path)
            if any(channel == "progress" and value.assessment for channel, value in writes):
                assessed.append(task_id)

        async def put(config, checkpoint, metadata, new_versions):
            if assessed:
                raise Killed
            return await real_put(config, checkpoint, metadata, new_versions)

        saver.aput, saver.aput_writes = put, put_writes
        with pytest.raises(Killed):
            await collect(interview.submit(CandidateAction.answer, answer))
        assert assessed
        session_id = interview.session_id

    async with services(settings, notes_retriever) as svc:
        again = svc.interview(session_id)
        events = await collect(again.resume())
        kinds = [e.type for e in events]
        assert kinds and kinds[-1] == "follow_up", f"resume did nothing the session could go on from: {kinds}"
        assert again.waiting is not None
        state = await again.state()
        assert [t.answer for t in state["turns"]] == [answer]
        assert state["turns"][0].decision.action == "follow_up"


async def test_checkpoints_hold_only_registered_types(settings, notes_retriever, bank, monkeypatch):
    """Every model the state holds must be allowed by the checkpointer (strict msgpack), or a resume
    in a future langgraph would lose it."""
    from langgraph.checkpoint.serde import _msgpack

    monkeypatch.setattr(_msgpack, "STRICT_MSGPACK_ENABLED", True)
    async with services(settings, notes_retriever) as svc:
        interview = svc.interview()
        await collect(interview.start(PlanRequest(ids=["algo-07"]), "en", 1))
        await collect(interview.submit(CandidateAction.answer, answer_for_levels(bank["algo-07"], 1)))
        await collect(interview.submit(CandidateAction.answer, "I don't know"))
        session_id = interview.session_id
    async with services(settings, notes_retriever) as svc:
        state = await svc.interview(session_id).state()
        assert state["status"] == "finished"
        turn = state["turns"][0]
        assert turn.action is CandidateAction.answer
        assert turn.assessment.covered and turn.decision is not None
        assert state["summaries"][0].question == "algo-07"
        assert state["request"].ids == ["algo-07"]


# --- the CLI as a subprocess -----------------------------------------------------------------


def _script(bank) -> list[tuple[str, str]]:
    algo, infra = bank["algo-07"], bank["infra-12"]
    return [
        ("partial", answer_for_levels(algo, 1)),
        ("strong", answer_for_levels(algo, 1, 2)),
        ("keywords", keyword_list(algo)),
        ("injection", GRADER_INSTRUCTIONS[0]),
        ("gibberish", "asdf qwer zxcv jkl;"),
        ("idk", "/idk"),
        ("chinese", zh_answer_for_levels(infra, 1, 2)),
        ("skip", "/skip"),
    ]


@pytest.fixture(scope="module")
def scripted_session(tmp_path_factory):
    """One scripted plain --jsonl session, shared by the CLI tests (a process start costs seconds)."""
    from agent_helpers import cached_bank

    bank = cached_bank()
    home = tmp_path_factory.mktemp("cli-home")
    script = _script(bank)
    stdin = b"".join(reply_bytes(text) for _, text in script)
    result = run_cli(
        home, "interview", "--plain", "--jsonl", "--question", "algo-07", "--question", "infra-12", stdin=stdin
    )
    return home, script, result


def test_cli_session_events(scripted_session):
    _home, script, result = scripted_session
    assert result.returncode == 0, result.stderr.decode()
    assert b"Traceback" not in result.stderr
    events = parse_jsonl(result.stdout)
    for event in events:
        assert event["type"] in EVENT_KEYS, event
        missing = EVENT_KEYS[event["type"]] - set(event)
        assert not missing, f"{event['type']} lacks {missing}"
    types = [e["type"] for e in events]
    assert types[0] == "ask" and types[-1] == "session_done"
    assert types.count("session_done") == 1
    assert [e["question"] for e in events if e["type"] == "question_done"] == ["algo-07", "infra-12"]
    # Every reply was consumed: one assessment each.
    assert types.count("assessment") == len(script)
    assert sum(t in INTERVIEWER_EVENTS for t in types) == len(script)


def test_cli_traps_are_scored_as_the_scale_says(scripted_session):
    _home, script, result = scripted_session
    events = parse_jsonl(result.stdout)
    positions = [i for i, e in enumerate(events) if e["type"] == "assessment"]
    assessments = [events[i] for i in positions]
    names = [name for name, _ in script]
    by_name = dict(zip(names, assessments))
    following = {name: events[i + 1] for name, i in zip(names, positions)}

    def before(name):
        i = names.index(name)
        earlier = [a for a in assessments[:i] if a["question"] == by_name[name]["question"]]
        return earlier[-1]["depth"] if earlier else 0

    assert by_name["partial"]["depth"] == 1
    assert by_name["strong"]["depth"] >= 2
    for trap, flag in [("keywords", "keyword_list"), ("injection", "grader_instruction"), ("gibberish", "gibberish")]:
        assert flag in by_name[trap]["flags"], trap
        assert by_name[trap]["depth"] == before(trap), f"{trap} must not raise the depth"
    assert by_name["chinese"]["question"] == "infra-12"
    assert by_name["chinese"]["depth"] >= 1
    assert "dont_know" in by_name["idk"]["flags"]
    assert following["idk"]["type"] == "hint"
    done = following["skip"]
    assert (done["type"], done["question"], done["depth"]) == ("question_done", "infra-12", by_name["skip"]["depth"])
    assert by_name["skip"]["depth"] == before("skip")


def test_cli_report_and_sessions(scripted_session):
    home, script, result = scripted_session
    events = parse_jsonl(result.stdout)
    session_id = events[-1]["session_id"]
    assert (home / "reports" / f"{session_id}.md").is_file()
    assert (home / "reports" / f"{session_id}.json").is_file()

    report = run_cli(home, "report", session_id, "--format", "json")
    assert report.returncode == 0, report.stderr.decode()
    data = json.loads(report.stdout)
    assert data["session_id"] == session_id
    assert data["status"] == "finished"
    transcript = data["transcript"]
    assert len(transcript) == len(script)
    for turn, (name, text) in zip(transcript, script):
        for key in ("question", "asked", "answer", "depth", "next", "action"):
            assert key in turn, key
        if text.startswith("/"):
            assert turn["action"] == name
        else:
            assert (turn["action"], turn["answer"]) == ("answer", text)
    asked = [e["text"] for e in events if e["type"] in INTERVIEWER_EVENTS]
    assert [t["asked"] for t in transcript] == asked
    assert transcript[-1]["next"] == "move_on"
    assert [q["question"] for q in data["questions"]] == ["algo-07", "infra-12"]

    listing = run_cli(home, "sessions", "--json")
    assert listing.returncode == 0, listing.stderr.decode()
    rows = json.loads(listing.stdout)
    [row] = [r for r in rows if r["id"] == session_id]
    assert row["status"] == "finished"
    assert row["questions"] == ["algo-07", "infra-12"]
    assert row["started"]


def test_cli_unknown_question_lists_valid_ids(tmp_path):
    result = run_cli(tmp_path, "interview", "--plain", "--jsonl", "--question", "algo-99")
    assert result.returncode != 0
    output = (result.stdout + result.stderr).decode()
    assert "Traceback" not in output
    assert "algo-99" in output
    for qid in BANK_IDS:
        assert qid in output


def test_cli_named_question_and_a_count_asks_the_named_one_then_draws_the_rest(tmp_path):
    """`--question algo-05 --questions 2` asked only algo-05 ("Question 1 of 1")."""
    from agent.interview.sessions import SessionIndex

    result = run_cli(
        tmp_path, "interview", "--plain", "--jsonl", "--question", "algo-05", "--questions", "2", stdin=b"/quit\n"
    )
    assert result.returncode == 0, result.stderr.decode()
    first = parse_jsonl(result.stdout)[0]
    assert (first["question"], first["number"], first["of"]) == ("algo-05", 1, 2)
    [row] = SessionIndex(tmp_path / "sessions.sqlite").list()
    assert row.plan[0] == "algo-05" and len(set(row.plan)) == 2


NASTY = (
    b"\x1b[31mThe probability ratio matters \xff\xfe\xc3( because it keeps \x1b]0;title\x07the update "
    b"small.\x1b[2J\x1b[0m\n\x1b[1mA second line\x1b[0m with a CSI \x9b31m byte.\n\n"
)


def test_cli_invalid_utf8_and_ansi_then_quit_and_resume(tmp_path):
    """Invalid UTF-8 and escape sequences in an answer: no crash, no ESC on screen (plain text) or in
    the JSONL (where the follow-up quotes the answer); /quit leaves the session resumable."""
    from agent.interview.sessions import SessionIndex

    first = run_cli(tmp_path, "interview", "--plain", "--question", "algo-07", stdin=NASTY + b"/quit\n")
    assert first.returncode == 0, first.stderr.decode()
    assert b"Traceback" not in first.stderr
    assert b"\x1b" not in first.stdout
    screen = first.stdout.decode("utf-8")  # valid UTF-8 although the input was not
    assert "depth so far: 1/4" in screen, "the readable part of the answer still counts"
    [row] = SessionIndex(tmp_path / "sessions.sqlite").list()
    assert row.status == "active"
    assert f"--resume {row.id}" in screen

    proc = subprocess.run(
        [*rl_interview(), "interview", "--plain", "--jsonl", "--resume", row.id],
        input=b"/end\n",
        capture_output=True,
        timeout=60,
        env=cli_env(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"\x1b" not in proc.stdout
    events = parse_jsonl(proc.stdout)
    waiting = events[0]
    assert (waiting["type"], waiting["question"]) == ("follow_up", "algo-07")
    assert "probability ratio" in waiting["text"], "the follow-up quotes the answer"
    for event in events:
        if event["type"] in INTERVIEWER_EVENTS:
            assert "\x1b" not in event["text"] and "\x9b" not in event["text"]
    assert events[-1] == {"type": "session_done", "session_id": row.id, "status": "ended"}
    [row] = SessionIndex(tmp_path / "sessions.sqlite").list()
    assert row.status == "ended"


def test_a_plain_session_ends_by_saying_where_its_report_is(tmp_path):
    """The plain front end ended on "Session … ended." and left the candidate to find the report."""
    result = run_cli(tmp_path, "interview", "--plain", "--question", "algo-07", "--lang", "zh", stdin=b"/end\n")
    assert result.returncode == 0, result.stderr.decode()
    [line] = [line for line in result.stdout.decode("utf-8").splitlines() if line.startswith("报告：")]
    path = Path(line.removeprefix("报告："))
    assert path.parent == tmp_path / "reports" and path.suffix == ".md"
    assert "面试报告" in path.read_text(encoding="utf-8")


def test_a_command_on_the_line_after_an_answer_sends_the_answer_then_acts():
    """ "answer\n/end" stored "/end" inside the answer and left the session open: a command line
    ends the answer and acts on the next read, whichever command it is."""
    import io

    from tui.plain import LineReader

    reader = LineReader(io.BytesIO(b"PPO clips the ratio.\nThe min is pessimistic.\n/end\n/hint\n"))
    assert reader.reply() == (CandidateAction.answer, "PPO clips the ratio.\nThe min is pessimistic.")
    assert reader.reply() == (CandidateAction.end, "")
    assert reader.reply() == (CandidateAction.hint, "")
    assert reader.reply() is None
    quitting = LineReader(io.BytesIO(b"PPO clips the ratio.\n/quit\n"))
    assert quitting.reply() == (CandidateAction.answer, "PPO clips the ratio.")
    assert quitting.reply() == (None, "")


def test_end_typed_right_after_an_answer_ends_the_session_with_the_answer_in_it(tmp_path):
    from agent.interview.sessions import SessionIndex

    answer = b"PPO clips the probability ratio to 1 +/- epsilon so one update cannot move the policy far."
    result = run_cli(tmp_path, "interview", "--plain", "--question", "algo-07", stdin=answer + b"\n/end\n")
    assert result.returncode == 0, result.stderr.decode()
    [row] = SessionIndex(tmp_path / "sessions.sqlite").list()
    assert row.status == "ended"
    report = json.loads(run_cli(tmp_path, "report", row.id, "--format", "json").stdout)
    answers = [t["answer"] for t in report["transcript"]]
    assert answers == [answer.decode()], "the answer is kept whole, without the command"


def test_report_and_sessions_on_a_new_home_say_there_is_nothing_yet(tmp_path):
    """`report` said "no session  found" (a blank where the id goes) and `sessions` printed nothing."""
    report = run_cli(tmp_path, "report")
    assert report.returncode != 0 and b"Traceback" not in report.stderr
    assert "no sessions yet" in report.stderr.decode() and "  found" not in report.stderr.decode()
    listing = run_cli(tmp_path, "sessions")
    assert listing.returncode == 0 and "No sessions yet" in listing.stdout.decode()
    assert json.loads(run_cli(tmp_path, "sessions", "--json").stdout) == []


@pytest.mark.slow
def test_a_plain_resume_shows_the_current_questions_exchanges_so_far(tmp_path, bank):
    """`--plain --resume` printed only the follow-up waiting for an answer: not the question it
    follows up on, nor the answer it reacts to (a user trial)."""
    home = tmp_path / "home"
    answer = "PPO clips the probability ratio between the new and the old policy to stay near one."
    first = run_cli(
        home,
        "interview",
        "--plain",
        "--verbatim",  # the seed wording, so the test knows what was asked
        "--question",
        "algo-07",
        "--questions",
        "1",
        stdin=reply_bytes(answer) + b"/quit\n",
    )
    assert first.returncode == 0, first.stderr.decode()
    again = run_cli(home, "interview", "--plain", "--resume", stdin=b"/quit\n")
    assert again.returncode == 0, again.stderr.decode()
    shown = again.stdout.decode("utf-8")
    asked = bank["algo-07"].prompt.en
    assert asked[:40] in shown and f"> {answer}" in shown
    assert shown.index(asked[:40]) < shown.index(answer) < shown.index("Resumed")
