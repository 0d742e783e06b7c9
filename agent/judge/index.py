"""A question's exemplars as the judge reads them: grouped vectors, the features of a sentence
against each key point and misconception, and the words that tell a point's paraphrases from its
hard negatives."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property
from typing import TypedDict

import numpy as np

from agent.judge.heads import pair_features
from agent.text import NEGATION, asserts, explains, find_cue, normalise
from knowledge.exemplars import (
    Row,
)
from knowledge.models import Question

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
        def count(sets: list[frozenset[str]]) -> dict[str, int]:
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


def same_polarity(sentence: str, exemplar: str, about_need: bool = True) -> bool:
    """Do both say it, or both deny it? Embeddings put "PPO takes the max" and "it is a myth that PPO
    takes the max" side by side; an odd number of negations more in one of them flips the claim.
    On the dev sentences this halves the denials taken for the misconception they deny. A word
    negated by its prefix counts too: "keeps the gradient unbiased" against "biases the gradient".
    Saying something is not needed denies a claim `about_need` ("std normalisation is required");
    of another claim it is a consequence, and no flip."""
    flips = sum(len(NEGATION.findall(t)) + len(NO_LONGER.findall(t)) for t in (sentence, exemplar))
    # NEGATION, which the trained heads read as a feature, counts 不需要 and 不必 already, not the English.
    counted = sum(len(NOT_NEEDED_ZH.findall(t)) for t in (sentence, exemplar))
    flips += sum(len(NOT_NEEDED.findall(t)) for t in (sentence, exemplar)) - counted if about_need else -counted
    flips += antonyms(sentence, exemplar)
    flips += sameness_reversed(sentence, exemplar) + comparison_reversed(sentence, exemplar)
    return (flips + opposites_reversed(sentence, exemplar)) % 2 == 0


NO_LONGER = re.compile("不再")
"""The "no longer" `NEGATION` lacks (which stays what the trained heads read as a feature): without it
blind trial 40's retraction "减 baseline 的好处纯粹是降方差，不是拿偏差换方差" read as the claim it retracts,
nearest "梯度就不再无偏了"."""
NOT_NEEDED_ZH = re.compile("不需要|不必")
NOT_NEEDED = re.compile(
    rf"\bno need\b|\bunnecessary\b|\bneedn't\b|\bno (?!longer\b)(?:[\w-]+ ){{1,4}}(?:is |are )?(?:needed|required)\b|"
    rf"{NOT_NEEDED_ZH.pattern}",
    re.IGNORECASE,
)
"""Saying a thing is not needed, in English and Chinese: a denial of a claim that something is
needed, the consequence of any other ("after the recompute it is on-policy, so no importance
correction is needed", blind trial 39's claim, nearest "…，所以不需要 importance sampling"; a dev
sentence of the same claim, nearest one without it)."""
NEEDED = re.compile(r"\b(?:needs?|needed|requires?|required|necessary|must)\b|需要|必须|必要", re.IGNORECASE)
"""A claim about what is needed, which "not needed" denies."""


OPPOSITES = (
    (
        re.compile(r"\bsingle[- ](?:gpu|node|card|device)|\bone gpu\b|单卡|单机|单张|单 ?gpu|个人", re.IGNORECASE),
        re.compile(
            r"\bmulti[- ]?(?:node|gpu|machine)|\bclusters?\b|\blarge[- ]scale\b|多机|多节点|多卡|集群|大规模",
            re.IGNORECASE,
        ),
    ),
    (
        re.compile(r"(?<![a-z])synchronous|(?<!异)同步", re.IGNORECASE),
        re.compile(r"\basync(?:hronous)?\b|异步", re.IGNORECASE),
    ),
    (
        re.compile(
            r"\b(?:keep|keeps|kept|keeping|retain\w*|reuse\w*|hold\w* on to)\b|保留|沿用|复用|留着", re.IGNORECASE
        ),
        re.compile(
            r"\b(?:discard\w*|thr(?:ow\w*|ew) (?:\w+ ){0,3}away|flush\w*)\b|丢弃|丢掉|扔掉|清空|作废", re.IGNORECASE
        ),
    ),
    (
        re.compile(r"\bmin(?:imum)?\b|取小|较小的|最小值", re.IGNORECASE),
        re.compile(r"\bmax(?:imum)?\b|取大|较大的|最大值", re.IGNORECASE),
    ),
)
"""Words that say the opposite of each other about the same thing: the scale a tool is for,
whether generation waits for training, whether something is kept or thrown away, the min or the
max. "Unsloth 是单卡 LoRA 省显存" is not *Unsloth suits multi-node RL*, though e5 reads them as one
claim (0.996: a user's correct sentence was challenged); "AReaL 会保留旧的 KV cache" says what "AReaL
不会丢弃 KV cache" says, though only the second has a negation (a trial's wrong central claim went
unchallenged); "PPO takes the min, which makes the objective pessimistic" read at 0.974 as *PPO
takes the max*, its nearest assertion (the thirty-fifth session's looser bar charged it)."""


def opposites_reversed(one: str, other: str) -> int:
    """How many pairs of opposites one text takes one side of and the other text the other side."""
    flips = 0
    for side_a, side_b in OPPOSITES:
        a1, b1, a2, b2 = (bool(p.search(t)) for t in (one, other) for p in (side_a, side_b))
        flips += (a1 and not b1 and b2 and not a2) or (b1 and not a1 and a2 and not b2)
    return flips


SAME = re.compile(r"\b(?:same|identical|equivalent|interchangeable)\b|一样|相同|一回事|等价|同一个", re.IGNORECASE)
DIFFERENT = re.compile(
    r"\b(?:differ(?:s|ence|ing)?|different(?! names?\b)|distinct)\b|不同|不一样|区别|差别|相差|差一个", re.IGNORECASE
)
"""("The same thing under a different name" says they are the same.)"""


def sameness_reversed(one: str, other: str) -> int:
    """1 when one text says two things differ and the other that they are the same: "cross-entropy
    and KL differ only by a constant" denies "cross-entropy and KL are the same quantity", though e5
    puts them side by side (a user's correct answer was charged with it and scored 0)."""

    def says(text: str) -> tuple[bool, bool]:
        return bool(SAME.search(text)), bool(DIFFERENT.search(text))

    (same_1, diff_1), (same_2, diff_2) = says(one), says(other)
    return int((diff_1 and not same_1 and same_2 and not diff_2) or (diff_2 and not same_2 and same_1 and not diff_1))


NEGATED_WORD = re.compile(
    r"\b(?:un(?!der|til|i|like)|non-?)([a-z]{4,})|[无非](?![常论])([\u4e00-\u9fff])", re.IGNORECASE
)
"""A prefix that negates its word; not "under", "until", "unit", "unlike", 非常 (very), 无论 (whatever)."""


def antonyms(one: str, other: str) -> int:
    """How many words one text negates by a prefix (unbiased, non-negative, 无偏, 非负) whose stem the
    other text says without it."""

    def negated(text: str) -> set[str]:
        return {(m.group(1) or m.group(2)).lower()[:4] for m in NEGATED_WORD.finditer(text)}

    def said(text: str) -> str:
        return NEGATED_WORD.sub(" ", text.lower())

    return sum(stem in said(other) for stem in negated(one) - negated(other)) + sum(
        stem in said(one) for stem in negated(other) - negated(one)
    )


THAN = re.compile(r"\b(?:than|over)\s+([^.;,，。；]+)|比\s*([^，。；,.;更]+)", re.IGNORECASE)
COMPARATIVE = re.compile(
    r"\b(?:more|less|fewer|better|worse|higher|lower|faster|slower|cheaper)\b|更|较", re.IGNORECASE
)
NAMED = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
COMPARED_WITHIN = 40
"""Characters from the thing compared to its comparative word ("DQN is usually more sample efficient")."""


def _named(text: str) -> set[str]:
    """The names in a phrase: words with a capital, a digit or a hyphen (DQN, Q-learning, value-based)."""
    return {w.lower() for w in NAMED.findall(text) if any(c.isupper() or c.isdigit() or c == "-" for c in w)}


def comparison_reversed(sentence: str, exemplar: str) -> int:
    """1 when the exemplar says A is more something than B and the sentence makes B the one that is
    more: "so DQN is usually more sample efficient" against "actor-critic is more sample-efficient
    than DQN", which e5 puts side by side (a user's correction was charged as the claim it corrected)."""
    compared = THAN.search(exemplar)
    if not compared:
        return 0
    names = _named(compared.group(1) or compared.group(2))
    in_than = set().union(*(_named(m.group(1) or m.group(2)) for m in THAN.finditer(sentence)))
    lowered = sentence.lower()
    for name in names - in_than:
        for at in (m.end() for m in re.finditer(re.escape(name), lowered)):
            after = sentence[at : at + COMPARED_WITHIN]
            more = COMPARATIVE.search(after)
            if more and not _named(after[: more.start()]):
                return 1
    return 0


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

    def nearest_here(self, sims: np.ndarray) -> np.ndarray:
        """Each sentence's similarity to the nearest exemplar about this question (its neighbouring
        concepts' explanations aside)."""
        return _max(sims[:, np.flatnonzero(self.role != "other_concept")])

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
        point and side (+1/-1) of an exemplar read as a sentence, to leave it out of the contrast.
        Long on purpose: the stack below is the feature order the trained heads read, kept in one
        place so it cannot drift from `head.json`."""
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
                    self._negation_mismatch(sims, cols["pos"], negated),
                ],
                axis=1,
            )
            out[kp.id] = np.hstack(
                [
                    scalars,
                    *pair_features(
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
                    *pair_features(
                        projection,
                        vectors,
                        self._nearest_vectors(sims, cols["assert"]),
                        self._nearest_vectors(sims, cols["deny"]),
                    ),
                ]
            )
        return out

    def _negation_mismatch(self, sims: np.ndarray, columns: np.ndarray, negated: np.ndarray) -> np.ndarray:
        """1 where a sentence and its nearest exemplar among `columns` disagree on being negated."""
        if not len(columns):
            return np.zeros(len(negated), dtype=np.float32)
        nearest = columns[np.argmax(sims[:, columns], axis=1)]
        return np.array(
            [float(negated[i] != bool(NEGATION.search(self.rows[n].text))) for i, n in enumerate(nearest)],
            dtype=np.float32,
        )

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
