"""Sessions saved by an earlier release resume after a change to how the interviewer is built.

`fixtures/release-2026-12-02/` is a home written by the release of 2026-12-02 (commit 83ebe1d,
before the typed events, the typed waiting turn and the one command line), with the hash embedding
and the cue-only judge, as tests run:
- session 29142704682c (algo-07, infra-01): one answer, then /quit at the follow-up;
- session b8d81c2864d1 (infra-10): /quit at the question, then an answer saved to the inbox that
  the graph never received (as a kill right after saving it would leave).
"""

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from agent_helpers import parse_jsonl, reply_bytes, run_cli

from agent.interview.sessions import SessionIndex

FIXTURE = Path(__file__).parent / "fixtures" / "release-2026-12-02"
EARLIER_ANSWER = "PPO clips the probability ratio between the new and the old policy"
SAVED_ANSWER = "Expert parallelism places different experts on different GPUs"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FIXTURE, home)
    return home


def test_the_session_list_and_the_profile_load(home):
    listed = run_cli(home, "sessions", "--json")
    assert listed.returncode == 0, listed.stderr.decode()
    assert {row["id"]: row["status"] for row in json.loads(listed.stdout)} == {
        "29142704682c": "active",
        "b8d81c2864d1": "active",
    }
    progress = run_cli(home, "progress", "--json")
    assert progress.returncode == 0, progress.stderr.decode()


def test_its_sessions_are_listed_with_the_kind_their_saved_request_gives(home):
    """That release kept no kind in the index: it is read from each session's saved request, once."""
    rows = json.loads(run_cli(home, "sessions", "--json").stdout)
    assert {row["id"]: (row["kind"], row["lang"]) for row in rows} == {
        "29142704682c": ("interview", "en"),
        "b8d81c2864d1": ("interview", "en"),
    }
    assert {row.id: row.kind for row in SessionIndex(home / "sessions.sqlite").list()} == {
        "29142704682c": "interview",
        "b8d81c2864d1": "interview",
    }, "kept, so the next listing need not read the checkpoints again"
    lines = run_cli(home, "sessions").stdout.decode().splitlines()
    assert all(line.split()[2:4] == ["interview", "en"] for line in lines) and len(lines) == 2


def test_that_release_still_lists_sessions_in_an_index_this_release_opened(home):
    """Opening the index adds what this release keeps without changing the table that release
    writes, so its own insert still works after an upgrade was tried and undone."""
    SessionIndex(home / "sessions.sqlite")
    with closing(sqlite3.connect(home / "sessions.sqlite")) as db:
        db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, 'active', ?, ?, ?, NULL)",
            ("0123456789ab", "2026-12-03T08:00:00+00:00", "2026-12-03T08:00:00+00:00", '["algo-01"]', "zh", "offline"),
        )
        db.commit()
    rows = {row.id: row for row in SessionIndex(home / "sessions.sqlite").list()}
    assert set(rows) == {"0123456789ab", "29142704682c", "b8d81c2864d1"}
    assert (rows["0123456789ab"].lang, rows["0123456789ab"].kind) == ("zh", None)


def test_a_paused_session_resumes_at_its_follow_up_and_ends_with_both_answers(home):
    done = run_cli(
        home,
        "interview",
        "--plain",
        "--jsonl",
        "--resume",
        "29142704682c",
        stdin=reply_bytes("With a positive advantage the gradient is zero once the ratio passes 1 + eps.") + b"/end\n",
    )
    assert done.returncode == 0, done.stderr.decode()
    events = parse_jsonl(done.stdout)
    assert (events[0]["type"], events[0]["question"], events[0]["target"]) == (
        "follow_up",
        "algo-07",
        "zero-gradient-cases",
    )
    assert events[1]["type"] == "assessment" and events[-1] == {
        "type": "session_done",
        "session_id": "29142704682c",
        "status": "ended",
    }
    report = run_cli(home, "report", "29142704682c", "--format", "json")
    answers = [t["answer"] for t in json.loads(report.stdout)["transcript"]]
    assert any(EARLIER_ANSWER in a for a in answers) and any("gradient is zero" in a for a in answers)


def test_an_answer_saved_but_never_judged_is_recovered_and_judged(home):
    resumed = run_cli(home, "interview", "--plain", "--jsonl", "--resume", "b8d81c2864d1", stdin=b"/quit\n")
    assert resumed.returncode == 0, resumed.stderr.decode()
    events = parse_jsonl(resumed.stdout)
    assert events[0]["type"] == "recovered" and SAVED_ANSWER in events[0]["answer"]
    assert events[1]["type"] == "assessment" and events[1]["question"] == "infra-10"


def test_its_question_progress_in_loose_fields_reads_as_one_model(home):
    """That release kept the current question's progress in seven loose state fields; they are read
    as one `QuestionProgress` (nothing rewritten), so the resumed question goes on where it was."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from agent.interview.graph import builder
    from agent.interview.runner import checkpoint_serde
    from agent.state import progress_of

    with SqliteSaver.from_conn_string(str(home / "checkpoints.sqlite")) as saver:
        saver.serde = checkpoint_serde()
        values = builder.compile(checkpointer=saver).get_state({"configurable": {"thread_id": "29142704682c"}}).values
    assert "progress" not in values and values["probed"] == ["zero-gradient-cases"]
    progress = progress_of(values)
    assert (progress.probed, progress.follow_ups, progress.hints) == (("zero-gradient-cases",), 1, ())
    assert progress.assessment is not None and progress.assessment.question == "algo-07"
    assert any(EARLIER_ANSWER in e.quote for e in progress.assessment.covered), "its evidence is the earlier answer"
