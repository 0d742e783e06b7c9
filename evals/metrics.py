"""Agreement metrics used for automated scoring against human raters."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

LEVELS = 5  # depth 0..4


def confusion(gold: Sequence[int], pred: Sequence[int]) -> list[list[int]]:
    """rows = gold depth, columns = predicted depth."""
    matrix = np.zeros((LEVELS, LEVELS), dtype=int)
    for g, p in zip(gold, pred, strict=True):
        matrix[g, p] += 1
    return matrix.tolist()


def qwk(gold: Sequence[int], pred: Sequence[int]) -> float | None:
    """Quadratic weighted kappa; None when undefined (fewer than two turns, or no variance)."""
    if len(gold) < 2:
        return None
    observed = np.asarray(confusion(gold, pred), dtype=float)
    weights = np.array([[(i - j) ** 2 for j in range(LEVELS)] for i in range(LEVELS)]) / (LEVELS - 1) ** 2
    expected = np.outer(observed.sum(1), observed.sum(0)) / observed.sum()
    denominator = (weights * expected).sum()
    if denominator == 0:
        return None
    return float(1 - (weights * observed).sum() / denominator)


def exact(gold: Sequence[int], pred: Sequence[int]) -> float | None:
    return sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold) if gold else None


def adjacent(gold: Sequence[int], pred: Sequence[int]) -> float | None:
    return sum(abs(g - p) <= 1 for g, p in zip(gold, pred, strict=True)) / len(gold) if gold else None


def _ranks(values: Sequence[float]) -> np.ndarray:
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values))
    sorted_values = np.asarray(values)[order]
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(gold: Sequence[int], pred: Sequence[int]) -> float | None:
    if len(gold) < 2:
        return None
    a, b = _ranks(gold), _ranks(pred)
    if a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def smd(gold: Sequence[int], pred: Sequence[int]) -> float | None:
    """Standardised mean difference (pred - gold) / pooled sd: the scorer's bias in sd units."""
    if len(gold) < 2:
        return None
    g, p = np.asarray(gold, float), np.asarray(pred, float)
    pooled = math.sqrt((g.var(ddof=1) + p.var(ddof=1)) / 2)
    return float((p.mean() - g.mean()) / pooled) if pooled else None


def depth_metrics(gold: Sequence[int], pred: Sequence[int]) -> dict[str, float | int | None]:
    return {
        "turns": len(gold),
        "qwk": _round(qwk(gold, pred)),
        "exact": _round(exact(gold, pred)),
        "adjacent": _round(adjacent(gold, pred)),
        "spearman": _round(spearman(gold, pred)),
        "smd": _round(smd(gold, pred)),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
