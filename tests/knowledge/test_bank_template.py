"""`rl-interview bank new`: the commented template of a question of your own, valid as written."""

from __future__ import annotations

import pytest
import yaml

from knowledge.bank import load_bank, validate_bank
from knowledge.models import Misconception, Question, Section
from knowledge.template import TemplateError, write_template


def test_the_template_lists_every_field_and_is_valid_as_written(tmp_path):
    written = write_template(tmp_path, "my-new", Section.infrastructure, "rollout")
    assert [p.name for p in written] == ["my-new.yaml", "my-new.md"]
    text = written[0].read_text(encoding="utf-8")
    for field in Question.model_fields:
        if field != "aliases":  # only for renamed ids of a saved profile; a new question has none
            assert f"\n{field}:" in text or f"\n# {field}:" in text, f"the template lacks {field}"
    for field in Misconception.model_fields:
        assert f" {field}:" in text, f"the template lacks the misconception's {field}"
    bank, problems = validate_bank(extra=[tmp_path])
    assert problems == []
    question = bank["my-new"]
    assert question.section == "infrastructure" and question.topics == ["rollout"]
    assert sorted(kp.level for kp in question.key_points) == [1, 2, 3, 3, 4]
    assert "# part: first-part" in text and "# hints:" in text, "a key point's optional fields are shown too"
    assert yaml.safe_load(text)["notes"] == ["my-new"]


def test_the_template_refuses_our_ids_unknown_topics_and_existing_files(tmp_path):
    with pytest.raises(TemplateError, match="algo-NN and infra-NN are ours"):
        write_template(tmp_path, "algo-07", Section.algorithm)
    with pytest.raises(TemplateError, match="unknown topic"):
        write_template(tmp_path, "my-x", Section.algorithm, "cooking")
    write_template(tmp_path, "my-x", Section.algorithm)
    with pytest.raises(TemplateError, match="already exists"):
        write_template(tmp_path, "my-x", Section.algorithm)


def test_bank_new_writes_into_the_first_bank_path_and_the_question_is_listed(runner, app, tmp_path, monkeypatch):
    folder = tmp_path / "mine"
    monkeypatch.setenv("RL_INTERVIEW_BANK_PATHS", str(folder))
    made = runner.invoke(app, ["bank", "new", "my-third", "--section", "algorithm"])
    assert made.exit_code == 0, made.output
    assert (folder / "my-third.yaml").is_file() and (folder / "my-third.md").is_file()
    checked = runner.invoke(app, ["bank", "validate"])
    assert checked.exit_code == 0, checked.output
    assert f"bank ok: {len(load_bank()) + 1} questions" in checked.output
    again = runner.invoke(app, ["bank", "new", "my-third", "--section", "algorithm"])
    assert again.exit_code == 1 and "already exists" in again.output


def test_bank_new_without_a_folder_says_how_to_give_one(runner, app):
    result = runner.invoke(app, ["bank", "new", "my-x", "--section", "algorithm"])
    assert result.exit_code == 1
    assert "bank_paths" in result.output and "--dir" in result.output
