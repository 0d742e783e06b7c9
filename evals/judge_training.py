"""Building the judge by meaning: embed the exemplars once, then fit its two logistic heads.

`rl-interview judge embed` writes `knowledge/exemplars/vectors.npz` (every exemplar and key-point
statement, e5, float16). `rl-interview judge train` fits the heads on the exemplars alone, leave-one-out:
each exemplar is read as if it were a candidate's sentence, with itself hidden from the groups it is
compared to. `--from items` fits them instead on the key-point set's dev part (`evals/keypoints/dev_*`),
sentences written as candidates say them, read against the whole exemplar index; dev items nearly the
same as a test item or gold answer are left out. That candidate tells the test part's hard negatives
from paraphrases far better and scores whole gold answers far worse (README: how the judge works), so
the shipped heads come from the exemplars. Nothing from the key-point test part or the gold set is
used; the dev split of the gold set only chooses the depth rule (see `scoring.DepthRule`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from agent.judge.claims import SentenceClaims
from agent.judge.heads import (
    KEY_POINT_FEATURES,
    MISCONCEPTION_FEATURES,
    MISCONCEPTION_PAIRS,
    PAIR_DIM,
    POINT_PAIRS,
    Heads,
    LogisticHead,
    feature_names,
)
from agent.judge.index import QuestionIndex
from agent.judge.meaning import Embed, MeaningJudge
from agent.judge.scoring import DepthRule, RubricScorer
from evals.keypoints import KEYPOINT_DIR, KeypointItem, load_items, near_duplicates
from knowledge.bank import Bank
from knowledge.exemplars import EXEMPLAR_DIR, VECTORS_FILE, all_rows, load_exemplars, save_vectors, text_key
from knowledge.models import Question

if TYPE_CHECKING:
    from agent.interview.retrieval import Retriever
    from evals.gold import GoldTranscript

BATCH = 64
ELSEWHERE_SAMPLE = 20
"""Key-point paraphrases of other questions read against each question, as easy negatives."""
RIVAL_SHARE = 0.3
"""Share of the other points' paraphrases kept as negatives of a point: they are many and easy, and
the head's cost grows with the rows."""


def embed_exemplars(bank: Bank, embed: Embed, log: Callable[[str], None] = print) -> int:
    """Embed every exemplar and statement (texts already stored under the same backend are kept)."""
    from knowledge.exemplars import load_vectors

    exemplars, problems = load_exemplars(bank=bank)
    for problem in problems:
        log(str(problem))
    texts = sorted(
        {r.text for r in all_rows(exemplars)} | {kp.statement for q in bank.questions() for kp in q.key_points}
    )
    path = EXEMPLAR_DIR / VECTORS_FILE
    old = load_vectors(path)
    kept = old if old is not None and old.spec == "e5" else None
    known = kept.keys if kept is not None else {}
    fresh = [t for t in texts if text_key(t) not in known]
    vectors: dict[str, np.ndarray] = {}
    for start in range(0, len(fresh), BATCH):
        batch = fresh[start : start + BATCH]
        for text, vector in zip(batch, np.asarray(embed(batch), dtype=np.float32)):
            vectors[text] = vector
        log(f"embedded {min(start + BATCH, len(fresh))}/{len(fresh)}")

    def vector_of(t: str) -> np.ndarray:
        if t in vectors:
            return vectors[t]
        assert kept is not None  # a text not embedded now is one the stored e5 file holds
        return kept.matrix[kept.keys[text_key(t)]]

    matrix = np.stack([vector_of(t) for t in texts])
    save_vectors(path, "e5", texts, matrix)
    return len(fresh)


@dataclass
class TrainingSet:
    point_x: np.ndarray
    point_y: np.ndarray
    point_kind: np.ndarray
    """What each row was: positive, plain, hard_negative, rival, other, wrong, elsewhere."""
    wrong_x: np.ndarray
    wrong_y: np.ndarray
    wrong_kind: np.ndarray
    point_group: np.ndarray
    """The question each row came from, for cross-validation by question."""
    wrong_group: np.ndarray

    @property
    def points(self) -> Rows:
        return Rows(self.point_x, self.point_y, self.point_kind, self.point_group)

    @property
    def wrongs(self) -> Rows:
        return Rows(self.wrong_x, self.wrong_y, self.wrong_kind, self.wrong_group)


class Rows(NamedTuple):
    """One head's rows: features, labels, what each row was, and its question."""

    x: np.ndarray
    y: np.ndarray
    kind: np.ndarray
    group: np.ndarray


def _self_columns(index: QuestionIndex, texts: list[str]) -> np.ndarray:
    where = {text_key(r.text): i for i, r in enumerate(index.rows)}
    return np.array([where.get(text_key(t), -1) for t in texts], dtype=int)


def principal_directions(vectors: np.ndarray, k: int = PAIR_DIM) -> np.ndarray:
    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return vt[:k].T.astype(np.float32)


def training_set(judge: MeaningJudge, bank: Bank, projection: np.ndarray | None = None, seed: int = 0) -> TrainingSet:
    """Rows from the exemplars themselves, each read leave-one-out (`judge train --from exemplars`)."""
    rng = np.random.default_rng(seed)
    px, py, pk, wx, wy, wk = [], [], [], [], [], []
    pg: list[int] = []
    wg: list[int] = []
    for group, qid in enumerate(sorted(judge.exemplars)):
        index = judge.index(bank[qid])
        question = index.question
        own = [r.text for r in index.rows]
        other_positions = (
            rng.choice(len(index.elsewhere), size=min(ELSEWHERE_SAMPLE, len(index.elsewhere)), replace=False)
            if len(index.elsewhere)
            else np.array([], dtype=int)
        )
        vectors = (
            np.concatenate([index.vectors, index.elsewhere[other_positions]]) if len(other_positions) else index.vectors
        )
        texts = own + ["" for _ in other_positions]
        leave_out = np.concatenate([_self_columns(index, own), -np.ones(len(other_positions), dtype=int)]).astype(int)
        sims = index.similarities(vectors, leave_out)
        elsewhere_sims = vectors @ index.elsewhere.T if index.elsewhere.size else np.zeros((len(vectors), 0))
        for row, position in enumerate(other_positions):
            elsewhere_sims[len(own) + row, position] = -1.0
        elsewhere_max = elsewhere_sims.max(axis=1) if elsewhere_sims.shape[1] else np.full(len(vectors), -1.0)
        sides = {"positive": 1, "hard_negative": -1}
        own_side = [(r.target, sides.get(r.role, 0)) for r in index.rows] + [("", 0)] * len(other_positions)
        point_x = index.point_features(sims, vectors, texts, elsewhere_max, own_side, projection)
        wrong_x = index.misconception_features(sims, vectors, texts, projection)
        roles = [r.role for r in index.rows] + ["elsewhere"] * len(other_positions)
        targets = [r.target for r in index.rows] + [""] * len(other_positions)
        plains = [r.plain for r in index.rows] + [False] * len(other_positions)
        for kp in question.key_points:
            for i, (role, target) in enumerate(zip(roles, targets)):
                if role == "hard_negative" and target != kp.id:
                    continue  # another point's negative may well state this one
                if role == "positive" and target != kp.id and rng.random() > RIVAL_SHARE:
                    continue
                label = role == "positive" and target == kp.id
                kind = ("plain" if plains[i] else "positive") if label else ("rival" if role == "positive" else role)
                px.append(point_x[kp.id][i])
                py.append(float(label))
                pk.append(kind)
                pg.append(group)
        for wrong in question.misconceptions:
            for i, (role, target) in enumerate(zip(roles, targets)):
                if role == "hard_negative":
                    continue  # a wrong version of a point may be this very misconception
                label = role == "assertion" and target == wrong.id
                wx.append(wrong_x[wrong.id][i])
                wy.append(float(label))
                wk.append("assertion" if label else role)
                wg.append(group)
    return TrainingSet(
        np.array(px), np.array(py), np.array(pk), np.array(wx), np.array(wy), np.array(wk), np.array(pg), np.array(wg)
    )


def item_set(judge: MeaningJudge, bank: Bank, items: list[KeypointItem], projection: np.ndarray | None) -> TrainingSet:
    """Rows from sentences written as candidates would say them (the key-point set's dev part), read
    against the whole exemplar index exactly as a candidate's sentence is. Every item gives a row
    for each key point and misconception of its question; a hard negative or denial only for the
    claim it negates (it may well make another)."""
    judge.embed([item.sentence for item in items])
    px, py, pk, pg, wx, wy, wk, wg = [], [], [], [], [], [], [], []
    groups = {qid: n for n, qid in enumerate(sorted({item.question for item in items}))}
    for item in items:
        question = bank[item.question]
        index = judge.index(question)
        vectors = judge.embed([item.sentence])
        sims = index.similarities(vectors)
        point_x = index.point_features(
            sims, vectors, [item.sentence], index.elsewhere_max(vectors), projection=projection
        )
        wrong_x = index.misconception_features(sims, vectors, [item.sentence], projection)
        group = groups[item.question]
        for kp in question.key_points:
            if item.kind == "hard_negative" and item.about not in (None, kp.id):
                continue
            label = item.kind in ("paraphrase", "plain") and item.expected == kp.id
            px.append(point_x[kp.id][0])
            py.append(float(label))
            pk.append(item.kind if label or item.kind == "hard_negative" else "rival")
            pg.append(group)
        for wrong in question.misconceptions:
            if item.kind == "denial" and item.about not in (None, wrong.id):
                continue
            label = item.kind == "misconception" and item.expected == f"misconception:{wrong.id}"
            wx.append(wrong_x[wrong.id][0])
            wy.append(float(label))
            wk.append("assertion" if label else ("denial" if item.kind == "denial" else "other"))
            wg.append(group)
    return TrainingSet(
        np.array(px), np.array(py), np.array(pk), np.array(wx), np.array(wy), np.array(wk), np.array(pg), np.array(wg)
    )


FIT_STEPS = 1500
"""Adam steps per fit: converged on the full sets (a tenth of them fits a small set's rows)."""


def fit_logistic(
    x: np.ndarray, y: np.ndarray, names: tuple[str, ...], l2: float = 1e-3, steps: int | None = None, rate: float = 0.02
) -> LogisticHead:
    """Class-balanced L2 logistic regression, full-batch Adam (thousands of features: Newton's
    Hessian would cost minutes)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = ((x - mean) / scale).astype(np.float32)
    y = y.astype(np.float32)
    weight = np.where(y > 0.5, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9)).astype(np.float32)
    weight /= weight.sum()
    beta = np.zeros(z.shape[1], dtype=np.float32)
    bias = 0.0
    m, v, mb, vb = np.zeros_like(beta), np.zeros_like(beta), 0.0, 0.0
    for step in range(1, (steps or FIT_STEPS) + 1):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta + bias, -30, 30)))
        residual = weight * (p - y)
        gradient = z.T @ residual + l2 * beta
        gb = float(residual.sum())
        m = 0.9 * m + 0.1 * gradient
        v = 0.999 * v + 0.001 * gradient * gradient
        mb = 0.9 * mb + 0.1 * gb
        vb = 0.999 * vb + 0.001 * gb * gb
        correction = np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
        beta -= rate * correction * m / (np.sqrt(v) + 1e-8)
        bias -= rate * correction * mb / (np.sqrt(vb) + 1e-8)
    return LogisticHead(names, mean, scale, beta.astype(np.float64), float(bias), 0.5)


def pick_threshold(p: np.ndarray, kind: np.ndarray, guard: str, max_false_positive: float) -> float:
    """The lowest threshold whose false-positive rate on the `guard` rows stays within the bound."""
    negatives = p[kind == guard]
    for threshold in np.arange(0.30, 0.96, 0.01):
        if not len(negatives) or (negatives >= threshold).mean() <= max_false_positive:
            return round(float(threshold), 2)
    return 0.95


def summary(p: np.ndarray, threshold: float, kind: np.ndarray) -> dict[str, float]:
    """Rates per kind of row at the threshold: recall for positives, false positives for the rest."""
    hit = p >= threshold
    return {str(k): round(float(hit[kind == k].mean()), 3) for k in sorted(set(kind))}


FOLDS = 5


def out_of_fold(x: np.ndarray, y: np.ndarray, groups: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """Each row's probability from a head fitted without its question's rows: what the bar is chosen
    on, so that it is not chosen on rows the head has seen."""
    p = np.zeros(len(y))
    fold = groups % FOLDS
    for k in range(FOLDS):
        held = fold == k
        if held.any() and (~held).any():
            p[held] = fit_logistic(x[~held], y[~held], names).probability(x[held])
    return p


def training_items(bank: Bank) -> list[KeypointItem]:
    """The key-point set's dev part, less any item nearly the same as a test item or a gold answer
    (those measure the judge: they must not be what it learnt from)."""
    from evals.gold import load_gold

    items, _ = load_items([KEYPOINT_DIR], bank)
    probes = [item.sentence for stem, item in items if stem.startswith("test")]
    transcripts, _ = load_gold([], set(bank))
    probes += [turn.answer for t in transcripts for turn in t.turns if turn.answer]
    dev = [item for stem, item in items if stem.startswith("dev")]
    leaking = near_duplicates(probes, [item.sentence for item in dev])
    return [item for item in dev if item.sentence not in leaking]


HARD_NEGATIVE_BOUND = 0.04
"""The key-point bar: hard negatives credited at most this often, out of fold."""
DENIAL_BOUND = 0.15
"""The misconception bar, before negations are read (agent.judge.index.same_polarity drops most of the
rest): denials flagged at most this often, out of fold."""


def train_heads(judge: MeaningJudge, bank: Bank, source: str = "exemplars") -> tuple[Heads, dict]:
    """Fit both heads, on the exemplars themselves (leave-one-out) or on the key-point set's dev
    part (`items`). The bars are chosen out of fold: on rows the head was not fitted on."""
    stored = judge.vectors.matrix if judge.vectors is not None else None
    if stored is None:  # another backend than the shipped store's (the tests' hash embedding)
        stored = np.concatenate([judge.index(bank[qid]).vectors for qid in sorted(judge.exemplars)])
    projection = principal_directions(stored)
    if source == "items":
        data = item_set(judge, bank, training_items(bank), projection)
    else:
        data = training_set(judge, bank, projection)
    dim = projection.shape[1]
    point_names = feature_names(KEY_POINT_FEATURES, POINT_PAIRS, dim)
    wrong_names = feature_names(MISCONCEPTION_FEATURES, MISCONCEPTION_PAIRS, dim)
    point, point_report = _fit_head(data.points, point_names, "hard_negative", HARD_NEGATIVE_BOUND)
    wrong, wrong_report = _fit_head(data.wrongs, wrong_names, "denial", DENIAL_BOUND)
    report = {"source": source, "key_point": point_report, "misconception": wrong_report}
    return Heads(point, wrong, projection), report


def _fit_head(rows: Rows, names: tuple[str, ...], guard: str, bound: float) -> tuple[LogisticHead, dict[str, Any]]:
    x, y, kind, groups = rows
    held_out = out_of_fold(x, y, groups, names)
    threshold = pick_threshold(held_out, kind, guard, bound)
    head = fit_logistic(x, y, names)
    report = {"out_of_fold": summary(held_out, threshold, kind), "threshold": threshold, "rows": len(y)}
    return LogisticHead(head.names, head.mean, head.scale, head.weights, head.bias, threshold), report


DEPTH_GRID = {
    "reasoning_implies_mechanism": (False, True),
    "share_for_3": (0.4, 0.5, 0.6),
    "reasoning_points_without_mechanism": (2, 99),
    "reasoning_needs_recall": (False, True),
    "parts_for_3": (0.0, 0.5),
    "expert_points_for_4": (1, 2),
    "wrong_alone_shows_nothing": (False, True),
    "wrong_claims_for_0": (2, 3, 99),
}


class _ReadOnce(RubricScorer):
    """A scorer that reads each answer once for every rule of the grid: what a sentence claims does
    not depend on the rule."""

    def __init__(self, judge: MeaningJudge | None) -> None:
        super().__init__(judge=judge)
        self._seen: dict[tuple[str, tuple[str, ...]], list[SentenceClaims]] = {}

    def read(self, question: Question, content: list[str]) -> list[SentenceClaims]:
        key = (question.id, tuple(content))
        if key not in self._seen:
            self._seen[key] = super().read(question, content)
        return self._seen[key]


def fit_depth_rule(
    transcripts: list[GoldTranscript], bank: Bank, judge: MeaningJudge | None, retriever: Retriever
) -> list[tuple[dict, float]]:
    """QWK on the given (dev) transcripts for every rule of the grid, best first. Each sentence is
    embedded once: the judge caches what it has seen."""
    import itertools

    from agent.brains.brain import OfflineBrain
    from evals.metrics import depth_metrics
    from evals.replay import evaluate

    results: list[tuple[dict[str, Any], float]] = []
    names = list(DEPTH_GRID)
    scorer = _ReadOnce(judge)
    for values in itertools.product(*DEPTH_GRID.values()):
        params: dict[str, Any] = dict(zip(names, values))  # the grid mixes bool, float and int knobs
        rule = DepthRule(**params)
        if not rule.reasoning_implies_mechanism and (
            rule.reasoning_points_without_mechanism != 99 or rule.reasoning_needs_recall
        ):
            continue  # without that, neither is read: the same rule as with 99 and False
        scorer.rule = rule
        brain = OfflineBrain(judge=judge)
        brain._scorer = scorer
        report = evaluate(transcripts, bank, brain, retriever)
        gold = [r["gold_depth"] for r in report["per_turn"]]
        pred = [r["depth"] for r in report["per_turn"]]
        qwk = depth_metrics(gold, pred)["qwk"]
        if qwk is None:
            raise ValueError("QWK is undefined on these transcripts (fewer than two turns, or no variance)")
        results.append((params, qwk))
    return sorted(results, key=lambda r: -r[1])
