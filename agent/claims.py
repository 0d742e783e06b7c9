"""Which rubric claims each sentence of an answer makes: by meaning where the question has
exemplars, by cue phrases where it has none. The scorer, the LLM verifier and `eval --keypoints`
all decide through `read_sentences`, so what is measured is what the interviewer does.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from agent.meaning import MeaningJudge
from agent.text import asserts, explains, find_cue, normalise, size
from knowledge.models import Question

How = Literal["cue", "meaning"]


@dataclass(frozen=True)
class PointClaim:
    key_point: str
    level: int
    quote: str
    how: How
    strength: float | None = None
    """The judge's probability that the sentence makes the point (None for a cue match)."""
    nearest: str | None = None
    """The exemplar of the point the sentence is closest to."""
    cue: str | None = None


@dataclass(frozen=True)
class WrongClaim:
    misconception: str
    quote: str
    how: How
    strength: float | None = None
    nearest: str | None = None


@dataclass
class SentenceClaims:
    sentence: str
    points: list[PointClaim] = field(default_factory=list)
    misconceptions: list[WrongClaim] = field(default_factory=list)
    mentioned: bool = False
    """It names the question's concepts (a cue phrase), whether or not it makes a claim of the rubric."""
    other_concept: bool = False
    """It explains a neighbouring concept rather than anything this question asks."""
    near_miss: PointClaim | None = None
    """The point it came closest to without being credited (for the review's "why not")."""


def read_sentences(question: Question, sentences: list[str], judge: MeaningJudge | None,
                   vectors: np.ndarray | None = None) -> list[SentenceClaims]:
    if judge is not None and judge.heads is not None and judge.covers(question.id):
        return _by_meaning(question, sentences, judge, vectors)
    return [_by_cues(question, s) for s in sentences]


def _by_cues(question: Question, sentence: str) -> SentenceClaims:
    normalised = normalise(sentence)
    explanatory = explains(sentence)
    out = SentenceClaims(sentence)
    for kp in question.key_points:
        cue = find_cue(normalised, kp.cues.all())
        if not cue:
            continue
        out.mentioned = True
        if kp.level == 1 or explanatory:
            out.points.append(PointClaim(kp.id, kp.level, sentence, "cue", cue=cue))
    out.misconceptions = [WrongClaim(w.id, sentence, "cue") for w in question.misconceptions
                          if asserts(sentence, w.cues.all())]
    return out


CLAUSE_BREAK = re.compile(r",\s+(?=and |so |since |because |which |while |whereas |but )|;\s+|，|；|\s+(?=because |so that |since )")
LONG_SENTENCE = 18
"""Sentences longer than this (in words, CJK characters / 2) are also read clause by clause: one
long sentence often makes two claims, and its embedding sits between them."""


def clauses(sentence: str) -> list[str]:
    if size(sentence) <= LONG_SENTENCE:
        return []
    parts = [p.strip() for p in CLAUSE_BREAK.split(sentence) if size(p) >= 4]
    return parts if len(parts) > 1 else []


CUE_VETO = 0.3
"""A cue match stands beside the judge by meaning unless the head all but rules the point out: the
cue keeps rubric-worded answers credited, the veto drops a cue inside another claim. Chosen on the
gold set's dev split (README: how the judge works)."""


def _by_meaning(question: Question, sentences: list[str], judge: MeaningJudge,
                vectors: np.ndarray | None) -> list[SentenceClaims]:
    levels = {kp.id: kp.level for kp in question.key_points}
    pieces = {i: clauses(s) for i, s in enumerate(sentences)}
    extra = [c for i in sorted(pieces) for c in pieces[i]]
    readings = judge.read(question, sentences + extra, None if extra else vectors, keep_best=True)
    whole, by_clause = readings[: len(sentences)], iter(readings[len(sentences):])
    for i, reading in enumerate(whole):
        for clause in (next(by_clause) for _ in pieces[i]):
            # A point a clause makes is the sentence's, quoted whole (the evidence stays the candidate's sentence).
            known = {p.target for p in reading.points if p.credited}
            for signal in clause.points:
                if signal.credited and signal.target not in known:
                    reading.points.append(signal)
            reading.misconceptions += [m for m in clause.misconceptions
                                       if m.target not in {w.target for w in reading.misconceptions}]
    out = []
    for reading in whole:
        sentence = reading.sentence
        cued = _by_cues(question, sentence)
        normalised = normalise(sentence)
        explanatory = explains(sentence)
        claims = SentenceClaims(sentence, other_concept=reading.other_concept)
        reading.points.sort(key=lambda p: (not p.credited, -p.probability))
        claims.mentioned = any(find_cue(normalised, kp.cues.all()) for kp in question.key_points)
        for signal in reading.points:
            claim = PointClaim(signal.target, levels[signal.target], sentence, "meaning", round(signal.probability, 3),
                               signal.nearest, signal.cue)
            if signal.credited and (claim.level == 1 or explanatory):
                claims.points.append(claim)
            elif claims.near_miss is None:
                claims.near_miss = claim
        credited = {c.key_point for c in claims.points}
        for cue_claim in [] if reading.other_concept else cued.points:
            p = reading.probability.get(cue_claim.key_point, 0.0)
            if cue_claim.key_point not in credited and p >= CUE_VETO:
                claims.points.append(dataclasses.replace(cue_claim, strength=round(p, 3)))
                if claims.near_miss is not None and claims.near_miss.key_point == cue_claim.key_point:
                    claims.near_miss = None
        claims.misconceptions = [WrongClaim(s.target, sentence, "meaning", round(s.probability, 3), s.nearest)
                                 for s in reading.misconceptions]
        named = {w.misconception for w in claims.misconceptions}
        claims.misconceptions += [w for w in cued.misconceptions if w.misconception not in named]
        claims.mentioned = claims.mentioned or bool(claims.points)
        out.append(claims)
    return out
