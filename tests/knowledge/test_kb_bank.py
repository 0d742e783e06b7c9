"""The question bank: loading, every kind of bad entry located by file/line/field, and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from kb_helpers import dump_entry, entry, line_containing

from knowledge.bank import BankError, load_bank, validate_bank
from tui.cli.console import EXIT_SKIPPED


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    path = tmp_path / "bank"
    path.mkdir()
    return path


def only_problem(path: Path):
    bank, problems = validate_bank(path)
    assert len(bank) == 0
    assert len(problems) >= 1
    return problems


def test_valid_entry_loads(bank_dir, valid_entry):
    dump_entry(bank_dir / "algo-07.yaml", valid_entry)
    bank = load_bank(bank_dir)
    assert list(bank) == ["algo-07"]
    question = bank["algo-07"]
    assert question.section == "algorithm"
    assert question.prompt.get("zh") == valid_entry["prompt"]["zh"]
    assert question.prompt.get("en") == valid_entry["prompt"]["en"]
    assert {kp.level for kp in question.key_points} == {1, 2, 3, 4}
    assert question.key_point("cispo-difference").level == 4


def test_bank_is_ordered_algorithm_first_then_by_id(bank_dir, valid_entry):
    infra = entry(valid_entry, id="infra-02", section="infrastructure", topics=["rollout"])
    dump_entry(bank_dir / "a.yaml", infra)
    dump_entry(bank_dir / "b.yaml", entry(valid_entry, id="algo-12"))
    dump_entry(bank_dir / "c.yaml", entry(valid_entry, id="algo-03"))
    assert list(load_bank(bank_dir)) == ["algo-03", "algo-12", "infra-02"]


def test_yaml_syntax_error_names_file_and_line(bank_dir, valid_entry):
    text = dump_entry(bank_dir / "algo-07.yaml", valid_entry)
    bad_line = line_containing(text, "difficulty: 2")
    lines = text.splitlines()
    lines[bad_line - 1] = "difficulty: 2: 3"
    path = bank_dir / "algo-07.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    (problem,) = only_problem(bank_dir)
    assert problem.path == path
    assert problem.line == bad_line
    assert "YAML" in problem.message
    assert f"{path}:{bad_line}" in str(problem)


def test_missing_nested_field_names_field_and_line(bank_dir, valid_entry):
    broken = entry(valid_entry)
    del broken["key_points"][2]["probe"]
    text = dump_entry(bank_dir / "algo-07.yaml", broken)

    (problem,) = only_problem(bank_dir)
    assert "key_points.2.probe" in problem.message
    assert problem.line == line_containing(text, "id: no-gradient-outside")
    assert f"algo-07.yaml:{problem.line}" in str(problem)


def test_missing_top_level_field_is_named(bank_dir, valid_entry):
    broken = entry(valid_entry)
    del broken["model_answer"]
    dump_entry(bank_dir / "algo-07.yaml", broken)

    (problem,) = only_problem(bank_dir)
    assert "model_answer" in problem.message
    assert problem.line is not None
    assert "algo-07.yaml" in str(problem)


def test_mistyped_level_names_field_and_its_line(bank_dir, valid_entry):
    broken = entry(valid_entry)
    broken["key_points"][1]["level"] = "high"
    text = dump_entry(bank_dir / "algo-07.yaml", broken)

    (problem,) = only_problem(bank_dir)
    assert "key_points.1.level" in problem.message
    assert problem.line == line_containing(text, "level: high")


def test_out_of_range_difficulty_names_the_line(bank_dir, valid_entry):
    text = dump_entry(bank_dir / "algo-07.yaml", entry(valid_entry, difficulty=9))
    (problem,) = only_problem(bank_dir)
    assert "difficulty" in problem.message
    assert problem.line == line_containing(text, "difficulty: 9")


def test_unknown_key_is_refused(bank_dir, valid_entry):
    text = dump_entry(bank_dir / "algo-07.yaml", entry(valid_entry, dificulty=2))
    (problem,) = only_problem(bank_dir)
    assert "dificulty" in problem.message
    assert problem.line == line_containing(text, "dificulty:")


def test_duplicated_id_names_both_files(bank_dir, valid_entry):
    first = bank_dir / "first.yaml"
    second = bank_dir / "second.yaml"
    dump_entry(first, valid_entry)
    dump_entry(second, entry(valid_entry, difficulty=3))

    bank, problems = validate_bank(bank_dir)
    assert list(bank) == ["algo-07"]
    (problem,) = problems
    assert "algo-07" in problem.message
    assert str(first) in str(problem) and str(second) in str(problem)
    with pytest.raises(BankError) as raised:
        load_bank(bank_dir)
    assert "first.yaml" in str(raised.value) and "second.yaml" in str(raised.value)


def test_unknown_topic_is_refused(bank_dir, valid_entry):
    text = dump_entry(bank_dir / "algo-07.yaml", entry(valid_entry, topics=["ppo", "astrology"]))
    (problem,) = only_problem(bank_dir)
    assert "topics" in problem.message
    assert "astrology" in problem.message
    assert problem.line == line_containing(text, "topics:")


def test_rubric_without_level_4_key_point_is_refused(bank_dir, valid_entry):
    broken = entry(valid_entry)
    for kp in broken["key_points"]:
        kp["level"] = min(kp["level"], 3)
    dump_entry(bank_dir / "algo-07.yaml", broken)

    (problem,) = only_problem(bank_dir)
    assert "level" in problem.message and "4" in problem.message


def test_section_must_match_id(bank_dir, valid_entry):
    dump_entry(bank_dir / "algo-07.yaml", entry(valid_entry, section="infrastructure"))
    (problem,) = only_problem(bank_dir)
    assert "section" in problem.message


def test_too_few_key_points_is_refused(bank_dir, valid_entry):
    broken = entry(valid_entry)
    broken["key_points"] = broken["key_points"][:1] + broken["key_points"][3:]
    dump_entry(bank_dir / "algo-07.yaml", broken)
    problems = only_problem(bank_dir)
    assert any("key_points" in p.message for p in problems)


def test_non_utf8_and_non_mapping_files_are_reported(bank_dir, valid_entry):
    (bank_dir / "latin1.yaml").write_bytes("id: algo-07\nmodel_answer: Größe\n".encode("latin-1"))
    (bank_dir / "list.yaml").write_text("- just\n- a list\n", encoding="utf-8")
    dump_entry(bank_dir / "good.yaml", valid_entry)
    bank, problems = validate_bank(bank_dir)
    assert list(bank) == ["algo-07"]
    by_file = {p.path.name: p for p in problems}
    assert set(by_file) == {"latin1.yaml", "list.yaml"}
    assert "UTF-8" in by_file["latin1.yaml"].message


def test_non_strict_load_keeps_the_good_files(bank_dir, valid_entry):
    dump_entry(bank_dir / "good.yaml", valid_entry)
    dump_entry(bank_dir / "bad.yaml", entry(valid_entry, id="algo-08", topics=["nope"]))
    assert list(load_bank(bank_dir, strict=False)) == ["algo-07"]
    with pytest.raises(BankError) as raised:
        load_bank(bank_dir)
    assert [p.path.name for p in raised.value.problems] == ["bad.yaml"]


def test_empty_folder_is_a_problem(bank_dir):
    bank, problems = validate_bank(bank_dir)
    assert len(bank) == 0 and len(problems) == 1


# -- CLI ----------------------------------------------------------------------------------------


def test_cli_validate_some_bad_some_good_exits_3_and_names_the_bad_file(runner, app, bank_dir, valid_entry):
    dump_entry(bank_dir / "algo-07.yaml", valid_entry)
    broken = entry(valid_entry, id="algo-08")
    broken["key_points"][0]["level"] = "high"
    dump_entry(bank_dir / "algo-08-broken.yaml", broken)

    result = runner.invoke(app, ["bank", "validate", str(bank_dir)])
    assert result.exit_code == EXIT_SKIPPED == 3
    assert "algo-08-broken.yaml" in result.output
    assert "key_points.0.level" in result.output
    assert str(bank_dir / "algo-07.yaml") not in result.output  # the good file is not blamed
    assert "Traceback" not in result.output


def test_cli_validate_all_good_exits_0(runner, app, bank_dir, valid_entry):
    dump_entry(bank_dir / "algo-07.yaml", valid_entry)
    dump_entry(bank_dir / "infra-01.yaml", entry(valid_entry, id="infra-01", section="infrastructure"))
    result = runner.invoke(app, ["bank", "validate", str(bank_dir)])
    assert result.exit_code == 0, result.output
    assert "2" in result.stdout


def test_cli_validate_all_bad_exits_1(runner, app, bank_dir, valid_entry):
    dump_entry(bank_dir / "x.yaml", entry(valid_entry, topics=[]))
    result = runner.invoke(app, ["bank", "validate", str(bank_dir)])
    assert result.exit_code == 1
    assert "x.yaml" in result.output


def test_cli_validate_single_file(runner, app, bank_dir, valid_entry):
    path = bank_dir / "one.yaml"
    dump_entry(path, valid_entry)
    result = runner.invoke(app, ["bank", "validate", str(path)])
    assert result.exit_code == 0, result.output
