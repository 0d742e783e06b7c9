"""Agreement metrics checked against values worked out by hand."""

import pytest

from evals.metrics import adjacent, confusion, exact, qwk, smd, spearman


def test_perfect_agreement_is_one_everywhere():
    gold = [0, 1, 2, 3, 4, 2]
    assert qwk(gold, gold) == pytest.approx(1.0)
    assert exact(gold, gold) == 1.0
    assert spearman(gold, gold) == pytest.approx(1.0)
    assert smd(gold, gold) == pytest.approx(0.0)


def test_qwk_hand_computed_two_by_two():
    # observed [[1,0],[1,0]] on levels {0,1}: the scorer always says 0.
    # With 5 levels, weights (i-j)^2/16; expected = outer(rows, cols)/n.
    gold, pred = [0, 1], [0, 0]
    # observed weighted disagreement: one pair at distance 1 -> 1/16
    # expected: rows (1,1), cols (2,0): E[0][0]=1, E[1][0]=1 -> weighted 1/16
    assert qwk(gold, pred) == pytest.approx(0.0)


def test_qwk_penalises_large_errors_more_than_small_ones():
    gold = [0, 1, 2, 3, 4] * 4
    off_by_one = [min(g + 1, 4) for g in gold]
    off_by_three = [min(g + 3, 4) for g in gold]
    assert qwk(gold, off_by_one) > qwk(gold, off_by_three)


def test_adjacent_counts_within_one():
    assert adjacent([0, 2, 4], [1, 4, 4]) == pytest.approx(2 / 3)


def test_confusion_rows_are_gold():
    matrix = confusion([0, 0, 3], [1, 0, 3])
    assert matrix[0][1] == 1 and matrix[0][0] == 1 and matrix[3][3] == 1
    assert sum(map(sum, matrix)) == 3


def test_smd_sign_shows_over_scoring():
    assert smd([0, 1, 2, 3], [1, 2, 3, 4]) > 0
    assert smd([1, 2, 3, 4], [0, 1, 2, 3]) < 0


def test_undefined_metrics_are_none_not_errors():
    assert qwk([2], [2]) is None
    assert spearman([1, 1, 1], [0, 1, 2]) is None
