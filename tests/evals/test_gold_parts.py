"""`gold.part` in the gold format: checked against the question's parts, and the part hit rate."""

from pathlib import Path

import pytest

from evals.gold import GoldError, load_gold, load_gold_file
from evals.part_hits import part_hits, target_part
from knowledge.bank import load_bank

BANK = load_bank()


def write(tmp_path: Path, part: str) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(
        f"""id: t
turns:
  - question: algo-07
    answer: "The ratio is clipped."
    gold:
      depth: 1
      next: follow_up
      part: {part}
""",
        encoding="utf-8",
    )
    return path


def test_a_gold_part_must_be_a_part_of_the_question(tmp_path):
    assert load_gold_file(write(tmp_path, "why-min"), BANK).turns[0].gold.part == "why-min"
    with pytest.raises(
        GoldError, match=r"t\.yaml:8, turn 0: field turns\.0\.gold\.part: 'why-maximum' is not a part of algo-07"
    ):
        load_gold_file(write(tmp_path, "why-maximum"), BANK)
    # Without the bank (ids only) the part is not checked.
    assert load_gold_file(write(tmp_path, "why-maximum"), set(BANK)).turns[0].gold.part == "why-maximum"


def test_the_part_hit_rate_reads_the_target_from_the_line(tmp_path):
    question = BANK["algo-07"]
    why_min = question.points_of("why-min")[0]
    assert target_part(question, f"Let's turn to it. {why_min.probe.en}") == "why-min"
    assert target_part(question, f"A hint: {why_min.hints[1].zh}") == "why-min"
    assert target_part(question, "Something in a model's own words?") is None
    transcripts, problems = load_gold([write(tmp_path, "why-min")], BANK)
    assert problems == []
    row = {
        "transcript": "t",
        "index": 0,
        "question": "algo-07",
        "split": "dev",
        "next": "follow_up",
        "follow_up": why_min.probe.en,
    }
    assert part_hits([row], transcripts, BANK) == {
        "all": {"turns": 1, "part_hit_rate": 1.0},
        "dev": {"turns": 1, "part_hit_rate": 1.0},
    }
    moved_on = {**row, "next": "move_on", "follow_up": None}
    assert part_hits([moved_on], transcripts, BANK)["all"]["part_hit_rate"] == 0.0
