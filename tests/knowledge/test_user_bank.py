"""Your own questions: bank_paths, the template of `bank new`, validation with file/line/field,
merging with ours, and the user's notes in the knowledge store and in a whole plain session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from isolation import child_env
from user_questions import break_field, write_user_question

from common.settings import load_settings
from knowledge.bank import BANK_DIR, load_bank
from tui.cli.console import EXIT_SKIPPED


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.startswith(needle))


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    """A folder with two questions of the user's: my-good is valid, my-broken has difficulty 7."""
    folder = tmp_path / "my-questions"
    write_user_question(folder, "my-good", like="algo-07")
    break_field(write_user_question(folder, "my-broken", like="infra-01"), "difficulty: ", "difficulty: 7 #")
    return folder


def test_bank_paths_come_from_the_environment_as_a_path_list_or_json(monkeypatch, tmp_path):
    monkeypatch.setenv("RL_INTERVIEW_BANK_PATHS", os.pathsep.join(["/one", "/two"]))
    assert load_settings().bank_paths == [Path("/one"), Path("/two")]
    monkeypatch.setenv("RL_INTERVIEW_BANK_PATHS", json.dumps(["/with space"]))
    assert load_settings().bank_paths == [Path("/with space")]


def test_bank_paths_come_from_the_settings_file(monkeypatch, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('bank_paths = ["/mine"]\n', encoding="utf-8")
    monkeypatch.setenv("RL_INTERVIEW_CONFIG", str(config))
    assert load_settings().bank_paths == [Path("/mine")]


def test_the_good_question_is_merged_and_the_broken_one_is_named_with_file_line_and_field(mine):
    bank = load_bank(extra=[mine])
    assert "my-good" in bank and "my-broken" not in bank
    assert len(bank) == len(load_bank()) + 1
    assert bank["my-good"].yours and not bank["algo-07"].yours
    assert bank.notes["my-good"] == [mine / "my-good.md"]
    (problem,) = bank.problems
    broken = mine / "my-broken.yaml"
    assert problem.path == broken
    assert problem.line == line_of(broken, "difficulty:")
    assert "field difficulty" in problem.message
    assert f"{broken}:{problem.line}: field difficulty" in str(problem)


def test_your_question_sits_with_its_section_after_ours(mine):
    ids = list(load_bank(extra=[mine]))
    assert ids.index("my-good") == ids.index("algo-19") + 1
    assert ids.index("my-good") < ids.index("infra-01")


def test_an_id_of_ours_in_your_folder_names_both_files(tmp_path):
    folder = tmp_path / "mine"
    path = write_user_question(folder, "my-copy")
    break_field(path, "id: my-copy", "id: algo-07")
    bank = load_bank(extra=[folder])
    (problem,) = bank.problems
    assert problem.path == path and problem.line == line_of(path, "id:")
    assert str(BANK_DIR / "algo-07.yaml") in problem.message
    assert bank["algo-07"].prompt == load_bank()["algo-07"].prompt


def test_the_same_id_in_two_of_your_folders_names_both_files(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    write_user_question(first, "my-twice")
    write_user_question(second, "my-twice", like="algo-08")
    bank = load_bank(extra=[first, second])
    (problem,) = bank.problems
    assert problem.path == second / "my-twice.yaml"
    assert str(first / "my-twice.yaml") in problem.message and "duplicated id" in problem.message
    assert bank.notes["my-twice"] == [first / "my-twice.md"]


def test_a_missing_note_or_one_that_does_not_name_its_question_is_a_problem(tmp_path):
    folder = tmp_path / "mine"
    write_user_question(folder, "my-a")
    write_user_question(folder, "my-b")
    (folder / "my-a.md").unlink()
    (folder / "my-b.md").write_text("# A note\n\nQuestion: my-a\n", encoding="utf-8")
    bank = load_bank(extra=[folder])
    assert "my-a" not in bank and "my-b" not in bank
    messages = sorted(p.message for p in bank.problems)
    assert messages[0].startswith("field notes.0: my-b.md must name its question")
    assert messages[1] == "field notes.0: no note my-a.md beside the question"
    assert {p.line for p in bank.problems} == {line_of(folder / "my-a.yaml", "notes:")}


def test_a_folder_that_does_not_exist_is_a_problem_not_a_crash(tmp_path):
    bank = load_bank(extra=[tmp_path / "nowhere"])
    assert [p.message for p in bank.problems] == ["bank_paths: no such folder"]
    assert len(bank) == len(load_bank())


def test_bank_validate_and_list_on_the_command_line(runner, app, monkeypatch, mine):
    monkeypatch.setenv("RL_INTERVIEW_BANK_PATHS", str(mine))
    checked = runner.invoke(app, ["bank", "validate"])
    assert checked.exit_code == EXIT_SKIPPED
    broken = mine / "my-broken.yaml"
    assert f"{broken}:{line_of(broken, 'difficulty:')}: field difficulty" in checked.output
    assert f"{len(load_bank()) + 1} valid question(s), 1 problem(s)" in checked.output
    listed = runner.invoke(app, ["bank", "list", "--json"])
    rows = {row["id"]: row for row in json.loads(listed.stdout)}
    assert rows["my-good"]["yours"] is True and rows["algo-07"]["yours"] is False
    assert "my-broken" not in rows


def test_kb_build_indexes_the_note_of_your_question(mine, monkeypatch):
    from knowledge.store import KnowledgeStore

    monkeypatch.setenv("RL_INTERVIEW_BANK_PATHS", str(mine))
    note = mine / "my-good.md"
    note.write_text(
        note.read_text(encoding="utf-8") + "\n## Reward hacking\n\nThe policy games the judge model.\n",
        encoding="utf-8",
    )
    store = KnowledgeStore(load_settings())
    report = store.build()
    assert str(note.resolve()) in report.embedded_files
    hits = store.for_question("my-good")
    assert hits and {h.source for h in hits} == {str(note.resolve())}
    assert any("games the judge" in h.text for h in hits)
    assert "Question: my-good" not in "".join(h.text for h in hits)


@pytest.mark.slow  # a whole plain session in a process of its own: a few seconds
def test_a_plain_session_on_your_question_runs_to_its_report(mine, tmp_path):
    home = tmp_path / "home"
    env = child_env(home, tmp_path / "none.toml", RL_INTERVIEW_BANK_PATHS=str(mine))
    answers = (
        b"PPO clips the probability ratio to 1 - epsilon and 1 + epsilon, because it keeps the update small.\n\n/skip\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from tui.cli import main; main()",
            "interview",
            "--plain",
            "--jsonl",
            "--question",
            "my-good",
        ],
        input=answers,
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr.decode()
    events = [json.loads(line) for line in result.stdout.decode().splitlines()]
    ask = events[0]
    assert (ask["type"], ask["question"]) == ("ask", "my-good")
    assert ask["text"] == load_bank(extra=[mine])["my-good"].prompt.en
    assessment = next(e for e in events if e["type"] == "assessment")
    assert "clip-the-ratio" in assessment["covered"]
    assert [e["type"] for e in events][-2:] == ["question_done", "session_done"]
    assert f"left out: {mine / 'my-broken.yaml'}:" in result.stderr.decode()
    reports = list((home / "reports").glob("*.json"))
    assert len(reports) == 1 and "my-good" in reports[0].read_text(encoding="utf-8")
