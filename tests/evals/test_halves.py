"""The blind sets' table: a row per half and group, with every figure the report holds."""

from __future__ import annotations

from evals.topic import table as topic_table
from evals.trends import table as trends_table


def test_every_half_and_group_gets_a_row_with_its_figures():
    report = {
        "items": 12,
        "raters_agree": 0.75,
        "splits": {
            "dev": {"reversed": {"n": 4, "flagged": 0.5}, "right (zh)": {"n": 3, "flagged": 0.0}},
            "test": {"reversed": {"n": 2, "flagged": 1.0}},
        },
    }
    lines = trends_table(report).splitlines()
    assert lines[0].startswith("12 sentences") and "75.0%" in lines[0]
    rows = [line.split(" | ") for line in lines if line.startswith("| dev") or line.startswith("| test")]
    assert [(r[0].strip("| "), r[1], r[2], r[3].strip(" |")) for r in rows] == [
        ("dev", "reversed", "4", "0.500"),
        ("dev", "right (zh)", "3", "0.000"),
        ("test", "reversed", "2", "1.000"),
    ]
    header = next(line for line in lines if line.startswith("| half"))
    assert header.count("|") == next(line for line in lines if line.startswith("|---")).count("|")


def test_the_topic_table_keeps_both_of_its_figures():
    report = {
        "items": 3,
        "raters_agree": 1.0,
        "splits": {"test": {"off_domain": {"n": 3, "called_off_the_question": 2 / 3, "scored_above_0": 0.0}}},
    }
    row = next(line for line in topic_table(report).splitlines() if line.startswith("| test"))
    assert row == "| test | off_domain | 3 | 0.667 | 0.000 |"
