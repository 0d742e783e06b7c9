"""Credited key points against the blind quote labels, counted over each visit to a question."""

from types import SimpleNamespace

from evals.labelled_points import labelled_points, same_words


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
    assert result["all"] == {"labelled": 3, "credited": 3, "precision": 0.667, "recall": 0.667, "quoted": None}


def test_transcripts_without_labels_are_left_out():
    t = _transcript("t", "dev", [("q1", None)])
    assert labelled_points([_row("t", 0, "a")], [t], {}) is None


def test_quotes_are_compared_with_the_labellers_for_points_both_saw():
    t = _transcript("t", "dev", [("q1", None)])
    row = {
        "transcript": "t",
        "index": 0,
        "split": "dev",
        "evidence": [
            {"key_point": "a", "quote": "The min makes the objective a pessimistic bound, so big steps gain nothing."},
            {"key_point": "b", "quote": "PPO clips the ratio."},
            {"key_point": "c", "quote": "Not labelled at all."},
        ],
    }
    shown = {"t#0": [("a", "the min makes the objective a pessimistic bound"), ("b", "GRPO has no critic.")]}
    result = labelled_points([row], [t], shown)
    assert result["dev"]["quoted"] == result["all"]["quoted"] == 0.5


def test_same_words_means_one_quote_inside_the_other_or_a_long_common_run():
    assert same_words("取 min 是为了悲观估计，防止更新太大。", "取 min 是为了悲观估计")
    assert same_words("A  clause\nwrapped.", "A clause wrapped. And more after it")
    assert not same_words("PPO clips the ratio to 1±ε.", "GRPO normalises rewards within the group.")
    assert not same_words("", "anything")
