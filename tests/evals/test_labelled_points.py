"""Credited key points against the blind quote labels, counted over each visit to a question."""

from types import SimpleNamespace

from evals.labelled_points import labelled_points


def _transcript(tid, split, turns):
    return SimpleNamespace(id=tid, split=split, turns=[SimpleNamespace(question=q, asked=asked) for q, asked in turns])


def _row(tid, index, *points):
    return {"transcript": tid, "index": index, "evidence": [{"key_point": p} for p in points]}


def test_points_are_counted_over_the_visit_not_the_turn():
    # Visit 1 (turns 0-1): credited a then b, labelled a and c. Visit 2 (turn 2, a new question): c and c.
    t = _transcript("t", "dev", [("q1", None), ("q1", "follow-up"), ("q2", None)])
    per_turn = [_row("t", 0, "a"), _row("t", 1, "b"), _row("t", 2, "c")]
    shown = {"t#0": [("c", "quote")], "t#1": [("a", "quote")], "t#2": [("c", "quote")]}
    result = labelled_points(per_turn, [t], shown)
    assert result["all"] == result["dev"]
    assert result["all"] == {"labelled": 3, "credited": 3, "precision": 0.667, "recall": 0.667}


def test_transcripts_without_labels_are_left_out():
    t = _transcript("t", "dev", [("q1", None)])
    assert labelled_points([_row("t", 0, "a")], [t], {}) is None
