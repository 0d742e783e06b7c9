"""`rl-interview bank audit`: each check on a small bank written by the test, and the CLI."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from kb_helpers import dump_entry, entry, write

from evals.bank_audit import audit, figures_in

PAPER = {"ref": "arXiv:1707.06347", "supports": "the clipped objective"}


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    bank, notes = tmp_path / "bank", tmp_path / "notes"
    bank.mkdir()
    notes.mkdir()
    return bank, notes


@pytest.fixture
def clean(valid_entry):
    """The valid entry with every check satisfied."""
    clean = entry(
        valid_entry,
        reviewed=date(2026, 12, 1),
        model_answer="PPO clips the probability ratio with eps = 0.2 and takes the minimum.",
    )
    for kp in clean["key_points"]:
        kp["sources"] = [dict(PAPER)]
    clean["key_points"][-1]["statement"] = "CISPO matched DAPO in about 50% of the steps."
    clean["misconceptions"][0]["sources"] = [dict(PAPER)]
    clean["figures"] = [{"figure": "eps = 0.2", "sources": [dict(PAPER)]}]
    return clean


def run(folders, data, *, notes: str = "", since=None, hard_negatives=None, extra=None):
    bank, notes_dir = folders
    dump_entry(bank / "algo-07.yaml", data)
    if extra:
        dump_entry(bank / f"{extra['id']}.yaml", extra)
    write(notes_dir / "algo-07.md", notes or "# Notes\n\nPPO takes the minimum of the two terms.\n")
    report, problems = audit(bank, notes_dir, since, hard_negatives or {})
    assert problems == []
    return report


def checks(report) -> dict[str, list]:
    out: dict[str, list] = {}
    for finding in report.findings:
        out.setdefault(finding.check, []).append(finding)
    return out


def test_a_clean_entry_has_no_findings(folders, clean):
    assert run(folders, clean).findings == []


def test_unsourced_points_misconceptions_and_figures_are_listed_with_their_lines(folders, clean):
    clean["key_points"][1]["sources"] = []
    clean["misconceptions"][0]["sources"] = []
    clean["figures"] = []
    found = checks(run(folders, clean))
    (point,) = found["unsourced-key-point"]
    assert point.target == "min-is-pessimistic" and point.line is not None
    text = (folders[0] / "algo-07.yaml").read_text(encoding="utf-8").splitlines()
    assert "min-is-pessimistic" in text[point.line - 1]
    assert [f.target for f in found["unsourced-misconception"]] == ["clip-bounds-kl"]
    assert [f.target for f in found["unsourced-figure"]] == ["0.2"]


def test_a_level_4_point_needs_a_figure_and_a_source(folders, clean):
    clean["key_points"][-1]["statement"] = "CISPO clips the importance weight instead."
    (finding,) = checks(run(folders, clean))["level-4-without-figure"]
    assert finding.target == "cispo-difference" and "a figure" in finding.message and "a source" not in finding.message


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        (
            "eps = 0.2, 512 H800s for 3 weeks, about $534,700, 4k of 20k tokens, 1e-6, 43.3%",
            ["0.2", "512", "3", "$534,700", "4k", "20k", "1e-6", "43.3%"],
        ),
        ("Qwen2.5-32B, H800, DeepSeek-V3.2, 1-eps, lambda=1, AIME 2024, GPT-4, pass@128, 2 x layers", []),
    ],
)
def test_what_counts_as_a_figure(text, figures):
    assert [m.group() for m in figures_in(text)] == figures


def test_a_misconception_cue_that_our_notes_assert_is_listed(folders, clean):
    clean["misconceptions"][0]["cues"]["en"] = ["bounds the kl", "no big difference"]
    notes = (
        "# Notes\n\nPipelineRL found no big difference in final accuracy.\n\nClipping never bounds the KL exactly.\n"
    )
    (finding,) = checks(run(folders, clean, notes=notes))["misconception-cue-in-our-text"]
    assert finding.target == "clip-bounds-kl"
    assert "'no big difference'" in finding.message and "notes/algo-07.md" in finding.message


def test_a_misconception_cue_in_our_model_answer_is_listed(folders, clean):
    clean["model_answer"] += " Written as a loss, the objective takes the max of the negated terms; eps = 0.2."
    clean["misconceptions"][0]["cues"]["en"] = ["takes the max"]
    (finding,) = checks(run(folders, clean))["misconception-cue-in-our-text"]
    assert "model_answer" in finding.message


def test_cues_matching_hard_negatives_and_other_questions_are_listed(folders, clean):
    other = entry(clean, id="algo-08")
    other["key_points"][0]["statement"] = "The KL penalty is added to the reward at every token."
    clean["key_points"][0]["cues"]["en"] = ["ratio-clipped cue", "kl penalty"]
    negatives = {
        ("algo-07", "trust-region-link"): ["trust-region-link cue is about the value function, not the policy."]
    }
    found = checks(run(folders, clean, hard_negatives=negatives, extra=other))
    assert [(f.question, f.target) for f in found["cue-matches-hard-negative"]] == [("algo-07", "trust-region-link")]
    crossing = [f for f in found["cue-matches-other-question"] if f.question == "algo-07"]
    assert any("'kl penalty'" in f.message and "algo-08/ratio-clipped" in f.message for f in crossing)


def test_entries_not_reviewed_since_a_date(folders, clean):
    assert checks(run(folders, clean, since=date(2026, 11, 1))) == {}
    (late,) = checks(run(folders, clean, since=date(2027, 1, 1)))["not-reviewed"]
    assert "2026-12-01" in late.message
    del clean["reviewed"]
    (never,) = checks(run(folders, clean))["not-reviewed"]
    assert "never" in never.message


def test_cli_audit_exit_codes_and_json(runner, app, folders, clean):
    bank, notes = folders
    dump_entry(bank / "algo-07.yaml", clean)
    write(notes / "algo-07.md", "# Notes\n")
    ok = runner.invoke(app, ["bank", "audit", str(bank), "--notes", str(notes), "--check", "unsourced-key-point"])
    assert ok.exit_code == 0, ok.output
    assert "0  key points without a source" in ok.output

    clean["key_points"][0]["sources"] = []
    dump_entry(bank / "algo-07.yaml", clean)
    found = runner.invoke(app, ["bank", "audit", str(bank), "--notes", str(notes), "--json", "--since", "2027-01-01"])
    assert found.exit_code == 1
    report = json.loads(found.stdout)
    assert report["counts"]["unsourced-key-point"] == 1 and report["counts"]["not-reviewed"] == 1

    for bad, says in ((["--since", "soon"], "--since"), (["--check", "spelling"], "unknown check")):
        result = runner.invoke(app, ["bank", "audit", str(bank), *bad])
        assert result.exit_code != 0 and says in result.output and "Traceback" not in result.output


def test_the_shipped_bank_passes_the_checks_issue_14_requires():
    """Every point, misconception and model-answer figure sourced, every level-4 point with a figure,
    no misconception cue that our own text asserts, every entry reviewed."""
    report, problems = audit(hard_negatives={})
    assert problems == []
    for check in (
        "unsourced-key-point",
        "unsourced-misconception",
        "unsourced-figure",
        "level-4-without-figure",
        "misconception-cue-in-our-text",
        "not-reviewed",
    ):
        found = [str(f) for f in report.findings if f.check == check]
        assert found == [], f"{check}: {len(found)} finding(s), e.g. {found[:3]}"
