"""Sources, figures, review dates and aliases in bank entries: what loads, and every bad value
located by file, line and field; `bank show --sources`."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from kb_helpers import dump_entry, entry, line_containing

from knowledge.bank import load_bank, validate_bank

PAPER = {"ref": "arXiv:1707.06347", "supports": "the clipped surrogate objective and eps = 0.2"}
CODE = {"ref": "THUDM/slime:slime/backends/megatron_utils/loss.py@624b824a8", "supports": "how the loss is normalised"}
PAGE = {"ref": "https://lmsys.org/blog/2025-07-09-slime/", "supports": "slime's design", "secondary": True}


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    path = tmp_path / "bank"
    path.mkdir()
    return path


@pytest.fixture
def sourced(valid_entry):
    sourced = entry(
        valid_entry, reviewed=date(2026, 12, 1), model_answer="PPO clips the ratio (eps = 0.2) and takes the min."
    )
    sourced["key_points"][0]["sources"] = [dict(PAPER), dict(CODE)]
    sourced["misconceptions"][0]["sources"] = [dict(PAGE)]
    sourced["figures"] = [{"figure": "eps = 0.2", "sources": [dict(PAPER)]}]
    sourced["aliases"] = {"old-ratio-point": "ratio-clipped"}
    return sourced


def problem_of(bank_dir: Path, data) -> tuple[str, object]:
    text = dump_entry(bank_dir / "algo-07.yaml", data)
    bank, problems = validate_bank(bank_dir)
    assert len(bank) == 0 and len(problems) == 1, problems
    return text, problems[0]


def test_sources_figures_review_date_and_aliases_load(bank_dir, sourced):
    dump_entry(bank_dir / "algo-07.yaml", sourced)
    question = load_bank(bank_dir)["algo-07"]
    point = question.key_points[0]
    assert [s.kind for s in point.sources] == ["arxiv", "code"]
    assert question.misconceptions[0].sources[0].secondary
    assert question.figures[0].sources[0].ref == "arXiv:1707.06347"
    assert question.reviewed == date(2026, 12, 1)
    assert question.key_point("old-ratio-point") is point
    assert question.current_id("old-ratio-point") == "ratio-clipped"
    assert question.misconception("clip-bounds-kl").id == "clip-bounds-kl"


def test_sources_are_optional(bank_dir, valid_entry):
    dump_entry(bank_dir / "algo-07.yaml", valid_entry)
    question = load_bank(bank_dir)["algo-07"]
    assert question.key_points[0].sources == [] and question.figures == [] and question.reviewed is None


@pytest.mark.parametrize(
    "ref",
    [
        "Schulman et al. 2017",
        "arXiv 1707.06347",
        "1707.06347",
        "slime/loss.py",
        "THUDM/slime:slime/loss.py",
        "THUDM/slime:slime/loss.py@main",
        "ftp://x.org/a",
    ],
)
def test_a_source_of_unknown_form_names_file_line_and_field(bank_dir, sourced, ref):
    sourced["key_points"][0]["sources"] = [PAPER, {"ref": ref, "supports": "something"}]
    text, problem = problem_of(bank_dir, sourced)
    assert "key_points.0.sources.1.ref" in problem.message
    assert "arXiv id" in problem.message and "owner/repo:path@commit" in problem.message
    assert problem.line == line_containing(text, "supports: something") - 1  # the line of its ref
    assert f"algo-07.yaml:{problem.line}" in str(problem)


def test_a_source_without_what_it_supports_is_refused(bank_dir, sourced):
    sourced["misconceptions"][0]["sources"] = [{"ref": "arXiv:1707.06347"}]
    _, problem = problem_of(bank_dir, sourced)
    assert "misconceptions.0.sources.0.supports" in problem.message


def test_a_figure_missing_from_the_model_answer_names_its_line(bank_dir, sourced):
    sourced["figures"].append({"figure": "eps_high = 0.28", "sources": [dict(PAPER)]})
    text, problem = problem_of(bank_dir, sourced)
    assert "figures.1.figure" in problem.message and "does not occur in the model answer" in problem.message
    assert problem.line == line_containing(text, "eps_high = 0.28")


def test_a_figure_needs_a_source(bank_dir, sourced):
    sourced["figures"][0]["sources"] = []
    _, problem = problem_of(bank_dir, sourced)
    assert "figures.0.sources" in problem.message


def test_an_alias_to_no_current_id_is_refused_with_its_line(bank_dir, sourced):
    sourced["aliases"] = {"old-point": "no-such-point"}
    text, problem = problem_of(bank_dir, sourced)
    assert "aliases.old-point" in problem.message and "no-such-point" in problem.message
    assert problem.line == line_containing(text, "old-point:")


def test_an_alias_cannot_shadow_a_current_id(bank_dir, sourced):
    sourced["aliases"] = {"trust-region-link": "ratio-clipped"}
    _, problem = problem_of(bank_dir, sourced)
    assert "aliases.trust-region-link" in problem.message and "current id" in problem.message


def test_a_bad_review_date_names_its_line(bank_dir, sourced):
    sourced["reviewed"] = "last spring"
    text, problem = problem_of(bank_dir, sourced)
    assert "reviewed" in problem.message
    assert problem.line == line_containing(text, "reviewed:")


def test_cli_show_sources(runner, app, bank_dir, sourced, monkeypatch):
    import knowledge.bank

    dump_entry(bank_dir / "algo-07.yaml", sourced)
    monkeypatch.setattr(knowledge.bank, "BANK_DIR", bank_dir)
    result = runner.invoke(app, ["bank", "show", "algo-07", "--sources"])
    assert result.exit_code == 0, result.output
    assert "arXiv:1707.06347: the clipped surrogate objective" in result.output
    assert "source (secondary): https://lmsys.org/blog/2025-07-09-slime/" in result.output
    assert "source: none" in result.output  # the key points without one
    assert "reviewed 2026-12-01" in result.output
    plain = runner.invoke(app, ["bank", "show", "algo-07"])
    assert "arXiv:1707.06347" not in plain.output


def test_cli_show_in_chinese_heads_the_rubric_in_chinese(runner, app):
    """`bank show --lang zh` printed the Chinese rubric under English headings ("Key points", "probe:")."""
    result = runner.invoke(app, ["bank", "show", "algo-07", "--lang", "zh", "--sources"])
    assert result.exit_code == 0, result.output
    for heading in ("要点", "追问：", "误解", "参考答案", "来源：", "难度 2"):
        assert heading in result.output, heading
    for english in ("Key points", "probe:", "Misconceptions", "Model answer", "source:", "difficulty"):
        assert english not in result.output, english


def test_a_misconception_naming_a_point_the_question_lacks_names_its_line(bank_dir, sourced):
    sourced["misconceptions"][0]["gets_wrong"] = "no-such-point"
    text, problem = problem_of(bank_dir, sourced)
    assert "misconceptions.0.gets_wrong" in problem.message and "no-such-point" in problem.message
    assert problem.line == line_containing(text, "gets_wrong: no-such-point")
