"""A session in which the candidate sent nothing (no answer, no key) and drafted nothing is not
kept "active" forever, nor offered to resume over an older one with answers: it is closed as
`empty` when it is left, or at the next start when a kill came first. Anything of the candidate's
(an answer, a key such as a hint, an unsent draft) keeps it resumable."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
from agent_helpers import cli_env, collect, parse_jsonl, reply_bytes, rl_interview, run_cli, services

from agent.interview.sessions import SessionIndex
from agent.planning import PlanRequest
from agent.state import CandidateAction

CLIP = "PPO clips the probability ratio to 1 - epsilon and 1 + epsilon, because it keeps the update small."


async def started(svc, session_id: str, question: str = "algo-07"):
    interview = svc.interview(session_id)
    await collect(interview.start(PlanRequest(ids=[question]), "en", 3))
    return interview


async def test_a_session_left_with_nothing_sent_is_empty_and_the_older_one_is_offered(settings, notes_retriever):
    async with services(settings, notes_retriever) as svc:
        older = await started(svc, "older")
        await collect(older.submit(CandidateAction.answer, CLIP))
        older.release()
        newer = await started(svc, "newer", "infra-01")
        assert svc.index.latest_unfinished().id == "older", "nothing in the newer one yet, even while open"
        assert newer.kept_anything() is False
        newer.release()

        assert (svc.index.get("newer").status, svc.index.get("older").status) == ("empty", "active")
        assert svc.index.latest_unfinished().id == "older"


@pytest.mark.parametrize(
    "keep",
    [
        pytest.param(lambda i: i.save_draft("PPO clips the ratio"), id="an unsent draft"),
        pytest.param(lambda i: collect(i.submit(CandidateAction.hint)), id="a key sent"),
        pytest.param(lambda i: collect(i.submit(CandidateAction.answer, CLIP)), id="an answer"),
    ],
)
async def test_anything_of_the_candidate_s_keeps_a_left_session_resumable(settings, notes_retriever, keep):
    async with services(settings, notes_retriever) as svc:
        interview = await started(svc, "kept")
        kept = keep(interview)
        if kept is not None:
            await kept
        interview.release()
        assert svc.index.get("kept").status == "active"
        assert svc.index.latest_unfinished().id == "kept"


async def test_an_empty_session_still_resumes_when_named_and_is_active_again(settings, notes_retriever, bank):
    async with services(settings, notes_retriever) as svc:
        (await started(svc, "left")).release()
        assert svc.index.get("left").status == "empty"

        again = svc.interview("left")
        [waiting] = await collect(again.resume())
        assert waiting.text == bank["algo-07"].prompt.en
        assert svc.index.get("left").status == "active", "taken again: someone drives it"
        await collect(again.submit(CandidateAction.answer, CLIP))
        again.release()
        assert svc.index.get("left").status == "active"
        assert svc.index.latest_unfinished().id == "left"


async def test_a_session_open_in_a_live_process_is_not_closed_by_the_listing(settings, notes_retriever):
    async with services(settings, notes_retriever) as svc:
        await started(svc, "open-here")  # this process holds it, nothing sent yet
        [row] = json.loads(run_cli(settings.home, "sessions", "--json").stdout)
        assert (row["id"], row["status"]) == ("open-here", "active")


def plain_jsonl(home, question: str) -> subprocess.Popen:
    """A plain JSONL interview on one question, left running for the test to drive or kill."""
    return subprocess.Popen(
        [*rl_interview(), "interview", "--plain", "--jsonl", "--question", question],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=cli_env(home),
    )


def test_a_session_killed_before_anything_was_sent_is_closed_at_the_next_listing(agent_home):
    """A kill leaves its lease to a dead process and no one to close it: the next `sessions` (or
    any start) does, and `--resume` then offers the older session with an answer."""
    paused = run_cli(agent_home, "interview", "--plain", "--jsonl", "--question", "infra-01", stdin=reply_bytes(CLIP))
    assert paused.returncode == 0, paused.stderr.decode()
    proc = plain_jsonl(agent_home, "algo-07")
    assert json.loads(proc.stdout.readline())["type"] == "ask"  # listed, and waiting for the first answer
    proc.kill()
    proc.wait(timeout=30)
    before = {row.plan[0]: row.status for row in SessionIndex(agent_home / "sessions.sqlite").list()}
    assert before == {"algo-07": "active", "infra-01": "active"}

    rows = {row["questions"][0]: row for row in json.loads(run_cli(agent_home, "sessions", "--json").stdout)}
    assert (rows["algo-07"]["status"], rows["infra-01"]["status"]) == ("empty", "active")
    resumed = run_cli(agent_home, "interview", "--plain", "--jsonl", "--resume", stdin=b"/quit\n")
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert parse_jsonl(resumed.stdout)[0]["question"] == "infra-01"


def test_the_plain_front_end_says_a_session_left_with_nothing_is_empty(agent_home):
    left = run_cli(agent_home, "interview", "--plain", "--question", "algo-07", stdin=b"/quit\n")
    assert left.returncode == 0, left.stderr.decode()
    [row] = SessionIndex(agent_home / "sessions.sqlite").list()
    assert row.status == "empty"
    assert f"Left before sending anything: session {row.id} is listed as empty" in left.stdout.decode()
    refused = run_cli(agent_home, "interview", "--plain", "--resume", stdin=b"/quit\n")
    assert refused.returncode == 1 and b"no unfinished session to resume" in refused.stderr


def test_a_paused_chinese_session_says_in_chinese_how_to_resume_it_here(agent_home):
    """A trial's Chinese session was told "Paused. Resume with: rl-interview interview --resume ID":
    English, and without --plain (which opens the TUI instead)."""
    said = reply_bytes("PPO 把新旧策略的概率比裁剪到 1±ε 之间，所以每次更新不会太大。")
    paused = run_cli(
        agent_home, "interview", "--plain", "--lang", "zh", "--question", "algo-07", stdin=said + b"/quit\n"
    )
    assert paused.returncode == 0, paused.stderr.decode()
    [row] = SessionIndex(agent_home / "sessions.sqlite").list()
    command = f"rl-interview interview --plain --resume {row.id}"
    assert f"已暂停。继续请运行：{command}" in paused.stdout.decode()
    resumed = run_cli(agent_home, *command.split()[1:], stdin=b"/quit\n")
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert "PPO 把新旧策略的概率比裁剪" in resumed.stdout.decode(), "the exchange so far, replayed"


def test_a_session_killed_with_only_a_draft_in_it_stays_resumable(agent_home):
    """A line typed and not yet sent is kept as a draft: the session is not empty, and resumes with it."""
    index = SessionIndex(agent_home / "sessions.sqlite")
    proc = plain_jsonl(agent_home, "infra-01")
    assert json.loads(proc.stdout.readline())["type"] == "ask"
    proc.stdin.write(b"Expert parallelism places experts on GPUs\n")  # no empty line: not sent
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    while not index.drafted(index.list()[0].id):
        assert time.monotonic() < deadline, "the draft was never kept"
        time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=30)

    [row] = json.loads(run_cli(agent_home, "sessions", "--json").stdout)
    assert row["status"] == "active"
    resumed = run_cli(agent_home, "interview", "--plain", "--jsonl", "--resume", stdin=b"/quit\n")
    events = parse_jsonl(resumed.stdout)
    assert {"type": "draft", "text": "Expert parallelism places experts on GPUs"} in events
