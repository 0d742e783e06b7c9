"""The judge's learned heads: which features it reads, and the logistic heads (one for key points,
one for misconceptions) that `rl-interview judge train` fits and ships as
`knowledge/exemplars/head.json`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from knowledge.exemplars import (
    EXEMPLAR_DIR,
)

HEAD_FILE = EXEMPLAR_DIR / "head.json"

KEY_POINT_FEATURES = (
    "pos_max",
    "pos_top3",
    "hard_neg_max",
    "rival_max",
    "other_concept_max",
    "wrong_max",
    "elsewhere_max",
    "statement",
    "pos_minus_hard_neg",
    "pos_minus_rival",
    "pos_minus_other",
    "pos_minus_wrong",
    "pos_minus_elsewhere",
    "rank_among_points",
    "cue",
    "explains",
    "contrast_sum",
    "contrast_min",
    "negation_mismatch",
)
MISCONCEPTION_FEATURES = (
    "assert_max",
    "assert_top3",
    "denial_max",
    "points_max",
    "assert_minus_denial",
    "assert_minus_points",
    "negation",
    "cue_asserted",
    "cue_denied",
)
POINT_PAIRS = ("statement", "nearest_positive", "nearest_hard_negative")
MISCONCEPTION_PAIRS = ("nearest_assertion", "nearest_denial")
"""Besides the scalar features, SBERT-style pair features [u*v, |u-v|] of the sentence with these
vectors: where a sentence and a claim differ, not just how far apart they are. Relative similarity
alone tells a point's paraphrases from its hard negatives at AUC 0.65-0.80 per feature; with the
pair features the head reaches 0.83 on questions it was not trained on (leave-question-out)."""


def feature_names(scalars: tuple[str, ...], pairs: tuple[str, ...], dim: int) -> tuple[str, ...]:
    return scalars + tuple(f"{pair}:{part}{i}" for pair in pairs for part in ("prod", "diff") for i in range(dim))


PAIR_DIM = 64
"""Pair features are taken in the exemplars' top principal directions: 64 of e5's 384 dimensions
keep what tells claims apart at a sixth of the head's size and training time."""


def pair_features(projection: np.ndarray | None, sentence_vectors: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    project = (lambda v: v @ projection) if projection is not None else (lambda v: v)
    s = project(sentence_vectors)
    out = []
    for other in others:
        o = project(other)
        out += [s * o, np.abs(s - o)]
    return out


@dataclass(frozen=True)
class LogisticHead:
    """Standardised features -> probability; fitted by `judge train`."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def as_dict(self) -> dict:
        return {
            "names": list(self.names),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "weights": self.weights.tolist(),
            "bias": self.bias,
            "threshold": self.threshold,
        }

    @classmethod
    def from_dict(cls, data: dict) -> LogisticHead:
        return cls(
            tuple(data["names"]),
            np.array(data["mean"]),
            np.array(data["scale"]),
            np.array(data["weights"]),
            float(data["bias"]),
            float(data["threshold"]),
        )


@dataclass(frozen=True)
class Heads:
    key_point: LogisticHead
    misconception: LogisticHead
    projection: np.ndarray | None = None
    """(embedding dim, PAIR_DIM): the principal directions the pair features are taken in."""

    def fits(self, pair_dim: int, embedding_dim: int | None = None) -> bool:
        """Were the heads trained for the features this code computes, on vectors of this size?"""
        if self.projection is not None and embedding_dim not in (None, self.projection.shape[0]):
            return False
        return (
            len(self.key_point.names) == len(KEY_POINT_FEATURES) + 2 * len(POINT_PAIRS) * pair_dim
            and len(self.misconception.names) == len(MISCONCEPTION_FEATURES) + 2 * len(MISCONCEPTION_PAIRS) * pair_dim
        )

    def save(self, path: Path) -> None:
        data = {
            "key_point": self.key_point.as_dict(),
            "misconception": self.misconception.as_dict(),
            "projection": None if self.projection is None else np.round(self.projection, 6).tolist(),
        }
        path.write_text(json.dumps(data) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path = HEAD_FILE) -> Heads | None:
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        projection = data.get("projection")
        return cls(
            LogisticHead.from_dict(data["key_point"]),
            LogisticHead.from_dict(data["misconception"]),
            None if projection is None else np.array(projection, dtype=np.float32),
        )
