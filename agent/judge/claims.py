"""Which rubric claims each sentence of an answer makes: by meaning where the question has
exemplars, by cue phrases where it has none. The scorer, the LLM verifier and `eval --keypoints`
all decide through `read_sentences`, so what is measured is what the interviewer does. `collect`
adds an answer's sentences up: the evidence for each point, the misconceptions, the near misses.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Literal

import numpy as np

from agent.judge.known_figures import misstated_figures
from agent.judge.misattribution import misattributions_in, rightly_owned_in
from agent.judge.referents import resolve
from agent.judge.siblings import (
    about_another_algorithm,
    names_a_sibling_instead,
    names_its_own_member,
    owns_the_sibling,
    sibling_swapped_in,
)
from agent.judge.trends import reversed_trends, turns_round_a_trend_of
from agent.judge.upside_down import upside_down
from agent.state import Evidence, MisconceptionHit
from agent.text import (
    asserts,
    counts_contradict,
    explains,
    factors_contradict,
    figures_contradict,
    find_cue,
    gives_figure,
    normalise,
    size,
    states,
    stems,
)
from knowledge.exemplars import QuestionExemplars, load_exemplars
from knowledge.facts import confusion, load_facts, misattributions
from knowledge.models import KeyPoint, Question

if TYPE_CHECKING:  # agent.judge.meaning builds these records, so it imports this module
    from agent.judge.meaning import MeaningJudge

How = Literal["cue", "meaning"]

DISMISSAL = re.compile(
    r"\b(?:does|do|did|will|would|wo)(?: ?not|n'?t) (?:really |actually |much |even )?matter\b|"
    r"\b(?:is|are)(?: also| usually| generally| typically| rarely)?(?: not|n'?t) (?:really |actually |much )?"
    r"(?:a |an )?(?:real |big |serious )?(?:problem|issue|concern|big deal)\b|"
    r"\bno need to (?:worry|care)\b|\birrelevant\b|\bnon-?issue\b|\bthere(?:'s| is) no (?:real )?(?:issue|problem)\b|"
    r"无所谓|不是问题|不重要|不用管|不用担心|没什么问题|没有任何问题|"
    r"\b(?:does|do|did|will|would|wo)(?: ?not|n'?t) (?:really |actually )?(?:affect|cause|introduce|lead to)\b|"
    r"不会影响|不影响|不属于|不会带来|不会导致|"
    r"\bnothing (?:bad |much |really )?(?:happens|changes|goes wrong|breaks)\b|\bno harm\b|"
    r"\b(?:it's|it is|that's|that is|everything is|everything's) (?:totally |perfectly |completely |still )?fine\b|"
    r"没事|没什么影响|没有影响|什么都不会发生|没什么坏处|没有坏处|不会有问题|不会出问题"
)
"""Waving something away ("load imbalance doesn't matter", "staleness 多大都无所谓", "batch 组成变化不会影响
logprob", "without clipping it is fine, nothing bad happens"): few key points say that (those that
do, such as "logging the loss does not affect the gradient", keep their credit), several
misconceptions do, and e5 puts the dismissal on top of the point it dismisses. (跟 X 没关系, "unrelated to X", is left out: it is how correct sentences separate two
things.)"""
BUT = re.compile(r"\b(?:but|however|though|although|yet)\b|但|不过|然而|可是|而是")
"""A dismissal set against what does matter ("the order doesn't matter in exact arithmetic, but in
floating point it does") is an explanation, not a dismissal."""


def dismisses(sentence: str) -> bool:
    text = sentence.lower()
    return bool(DISMISSAL.search(text)) and not BUT.search(text)


def waves_away(point: KeyPoint, sentence: str) -> bool:
    """Does the sentence dismiss what a point that dismisses nothing itself says?"""
    return dismisses(sentence) and not DISMISSAL.search(" | ".join([point.statement, *point.cues.all()]).lower())


def cannot_show(question: Question, point: KeyPoint, sentence: str) -> bool:
    """Whatever it reads like, the sentence does not show the point: it names a sibling of the
    point's subject instead, waves the point away, names where the point's figures are without
    one, or with figures none of which is the point's, claims a factor none of our texts of the
    point backs where they give one, counts what the point counts otherwise, gives a term the point names to the wrong owner, turns
    round a trend of a quantity the point names."""
    return (
        names_a_sibling_instead(point, sentence)
        or waves_away(point, sentence)
        or lacks_its_figures(question, point, sentence)
        or factors_contradict([*figure_references(question.id, point), *point.cues.all()], sentence)
        or counts_contradict(_counts_of(point), sentence)
        or gives_its_terms_away(point, sentence)
        or turns_round_a_trend_of(" ".join([point.statement, point.statement_zh or "", *point.cues.all()]), sentence)
    )


def gives_its_terms_away(point: KeyPoint, sentence: str) -> bool:
    """Does the sentence give a term the point names to the wrong owner? "SGLang 用的是 PagedAttention，
    vLLM 是 RadixAttention" had been the evidence for "vLLM's core is PagedAttention, SGLang's is
    RadixAttention" (e5 reads the swap as the claim, 0.996) while it was challenged as a swap."""
    swapped = _swaps(sentence)
    if not swapped:
        return False
    named = " ".join([point.statement, point.statement_zh or "", *point.cues.all()]).lower()
    if any(term in named for term, _ in swapped):
        return True
    # Roles: "decoupled PPO 里 clip 以 behaviour policy 为中心" gives away no term the point's statement
    # names, but the point is the right way round of the same group ("clip on π_θ/π_prox").
    owned = rightly_owned_in(point.statement) | rightly_owned_in(point.statement_zh or "")
    return bool({confusion(m) for m in owned} & {group for _, group in swapped})


@cache
def _swaps(sentence: str) -> frozenset[tuple[str, str]]:
    """(term, group) of each term the sentence gives to the wrong owner."""
    return frozenset((swap.term.lower(), confusion(swap.misconception)) for swap in misattributions_in(sentence))


def cannot_be_taken_for(question: Question, point: KeyPoint, sentence: str) -> bool:
    """What a sentence the judge did not credit cannot be taken for, whoever asks (a protest's
    recall, an answer to the point's own follow-up): what it cannot show, and an expert point in
    none of its own words (a trial's protest had "它只在离线的偏好数据上优化" counted as DPO's practice figures)."""
    return cannot_show(question, point, sentence) or lacks_expert_words(question, point, sentence)


def lacks_expert_words(question: Question, point: KeyPoint, sentence: str) -> bool:
    """An expert (level-4) point read from a sentence that uses none of the words only it has among
    the question's points, short of the field's common ground: what it adds to the levels below (a
    loss floor, a scaling law, distillation) is not in the sentence. "When p is fixed, H(p) is a
    constant, so minimising CE is minimising KL" was credited as the level-4 point on the irreducible
    entropy and its uses; blind trial 39's "GRPO drops the learned critic and uses the average reward
    of a group" as algo-01's point on critics in LLM RL (VC-PPO, VAPO, 60.4 on AIME), and the question
    closed at 4 after one answer: "grpo", "group" and "drop" are that point's alone within algo-01,
    but a third of the bank uses them (`COMMON_IN`). With the judge by meaning on, a cue phrase's
    credit is held to it too ("grpo" is a cue of that point), unless the sentence gives figures; cue
    phrases alone (the judge off) credit as they always have."""
    if point.level < 4:
        return False
    return not (stems(sentence) & _expert_words(question, point))


COMMON_IN = 10
"""A word the key points of more than this many of the bank's 35 questions use is common ground
(GRPO, reward, group), not what an expert point adds; on the key-point dev part it takes one of 90
expert paraphrases and plain sentences (at 6: five)."""


def _expert_words(question: Question, point: KeyPoint) -> frozenset[str]:
    def words(kp: KeyPoint) -> frozenset[str]:
        return stems(" ".join([kp.statement, kp.statement_zh or "", *kp.cues.all()]))

    below = frozenset().union(*(words(kp) for kp in question.key_points if kp.level < 4))
    return words(point) - below - _common_words()


@cache
def _common_words() -> frozenset[str]:
    """Words of the shipped bank's key points used by more than `COMMON_IN` of its questions."""
    from knowledge.bank import load_bank

    counts: dict[str, int] = {}
    for q in load_bank().values():
        for word in stems(
            " ".join(f"{kp.statement} {kp.statement_zh or ''} {' '.join(kp.cues.all())}" for kp in q.key_points)
        ):
            counts[word] = counts.get(word, 0) + 1
    return frozenset(w for w, n in counts.items() if n > COMMON_IN)


def lacks_its_figures(question: Question, point: KeyPoint, sentence: str) -> bool:
    """A point that is its figures, and a sentence that gives none of them (no figure at all, or
    only others): whoever reads it, a judge by meaning or a model, it does not show the point."""
    return point.figures and (not gives_figure(sentence) or misfigured(question, point, sentence))


def miscounted(question: Question, point: KeyPoint, sentence: str) -> bool:
    """Does the sentence give figures, or a count, for the point that are not the point's?"""
    return misfigured(question, point, sentence) or counts_contradict(_counts_of(point), sentence)


def _counts_of(point: KeyPoint) -> list[str]:
    """Where a point's counts are: its statements, and its cue phrases (GRPO's copies are four in the
    statement, "three models" in a cue: without a learned reward model)."""
    return [point.statement, point.statement_zh or "", *point.cues.all()]


def misfigured(question: Question, point: KeyPoint, sentence: str) -> bool:
    """Does the sentence give figures for a point that is its figures, none of them the point's
    ("ProRL trained a 70B model")?"""
    return point.figures and figures_contradict(figure_references(question.id, point), sentence)


@cache
def _exemplars() -> dict[str, QuestionExemplars]:
    return load_exemplars()[0]


def figure_references(question_id: str, point: KeyPoint) -> list[str]:
    """Where a figures point's figures are written: its statement in both languages and the
    sentences of ours that make it (its exemplars hold right figures the statement leaves out, such
    as infra-08's 42.0 → 23.3 at staleness 4)."""
    ours = _exemplars().get(question_id)
    made = ours.key_points.get(point.id) if ours else None
    return [point.statement, point.statement_zh or "", *(made.paraphrases + made.plain if made else [])]


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

    def evidence(self) -> Evidence:
        """The claim as an assessment records it (credited, or as a near miss)."""
        return Evidence(
            key_point=self.key_point,
            level=self.level,
            quote=self.quote,
            how=self.how,
            strength=self.strength,
            nearest=self.nearest,
        )


@dataclass(frozen=True)
class WrongClaim:
    misconception: str
    quote: str
    how: How
    strength: float | None = None
    nearest: str | None = None
    clause: str | None = None
    """The clause of a long sentence it was read in (None: the whole sentence)."""
    swapped: str | None = None
    """The key point it makes with a sibling in its place (`_swaps_of_siblings`), if that is how it was read."""


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
    probability: dict[str, float] = field(default_factory=dict)
    """The judge by meaning's probability for every key point of the question (empty on cues)."""
    nearest_here: float | None = None
    """e5 cosine to the question's nearest exemplar (None on cues): how far it is from the topic."""
    nearest_elsewhere: float | None = None
    """... and to the nearest key-point paraphrase of another question."""
    reach: dict[str, float] = field(default_factory=dict)
    """Per key point, the highest probability one of the sentence's clauses reached: a long sentence
    may say one thing in each clause, and what it came close to in one is kept as a near miss."""


def read_sentences(
    question: Question, sentences: list[str], judge: MeaningJudge | None, vectors: np.ndarray | None = None
) -> list[SentenceClaims]:
    """What each sentence claims, read with an opening pronoun resolved (`agent.judge.referents`)
    and quoted as the candidate wrote it."""
    read = resolve(sentences)
    if read != sentences:
        vectors = None  # they were the unresolved sentences'
    if judge is not None and judge.heads is not None and judge.covers(question.id):
        readings = _by_meaning(question, read, judge, vectors)
    else:
        return [_quoted_as_said(_by_cues(question, s), said) for s, said in zip(read, sentences, strict=True)]
    out = [_quoted_as_said(r, said) for r, said in zip(readings, sentences, strict=True)]
    _credit_halves(question, out, judge)
    return out


def _quoted_as_said(claims: SentenceClaims, said: str) -> SentenceClaims:
    """The reading of a resolved sentence with the candidate's own words as every quote."""
    if claims.sentence == said:
        return claims
    read = claims.sentence

    def own(quote: str) -> str:
        return said if quote == read else quote

    return dataclasses.replace(
        claims,
        sentence=said,
        points=[dataclasses.replace(c, quote=own(c.quote)) for c in claims.points],
        misconceptions=[dataclasses.replace(w, quote=own(w.quote)) for w in claims.misconceptions],
        near_miss=dataclasses.replace(claims.near_miss, quote=own(claims.near_miss.quote))
        if claims.near_miss
        else None,
    )


def _by_cues(question: Question, sentence: str) -> SentenceClaims:
    normalised = normalise(sentence)
    explanatory = explains(sentence)
    out = SentenceClaims(sentence)
    for kp in question.key_points:
        cue = find_cue(normalised, kp.cues.all())
        if not cue:
            continue
        out.mentioned = True
        if (kp.level == 1 or explanatory) and not cannot_show(question, kp, sentence):
            out.points.append(PointClaim(kp.id, kp.level, sentence, "cue", cue=cue))
    out.misconceptions = [
        WrongClaim(w.id, sentence, "cue") for w in question.misconceptions if asserts(sentence, w.cues.all())
    ]
    out.misconceptions = _of_this_algorithm(question, out.misconceptions, sentence)
    own = {w.id for w in question.misconceptions}
    for swap in misattributions_in(sentence):
        # A swap the bank states as one of this question's misconceptions is charged as that one.
        same = [m for m in swap.same_as if m in own]
        wrong = same[0] if same else swap.misconception
        if wrong not in {w.misconception for w in out.misconceptions}:
            out.misconceptions.append(WrongClaim(wrong, sentence, "cue"))
    out.misconceptions += [
        WrongClaim(m.id, sentence, "cue") for m in load_facts().reversed_formulas if asserts(sentence, m.cues.all())
    ]
    out.misconceptions += [WrongClaim(wrong, sentence, "cue") for wrong in reversed_trends(sentence)]
    out.misconceptions += [WrongClaim(wrong, sentence, "cue") for wrong in misstated_figures(sentence)]
    cued = {w.misconception for w in out.misconceptions}
    out.misconceptions += [WrongClaim(wrong, sentence, "cue") for wrong in upside_down(sentence) if wrong not in cued]
    return out


def _of_this_algorithm(question: Question, wrong: list[WrongClaim], sentence: str) -> list[WrongClaim]:
    """The bank's wrong claims about one algorithm are not charged to a sentence about another."""
    statements = {m.id: m.statement for m in question.misconceptions}
    return [w for w in wrong if not about_another_algorithm(statements.get(w.misconception, ""), sentence)]


CLAUSE_BREAK = re.compile(
    r",\s+(?=and |so |since |because |which |while |whereas |but )|;\s+|，|；|\s+(?=because |so that |since )"
)
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

CUE_VETO_BY_LEVEL = {1: CUE_VETO, 2: 0.5, 3: 0.9, 4: 0.9}
"""Beyond recall a cue phrase counts only where the head agrees more, the more the level asks: at
levels 3 and 4 nearly as surely as it credits by meaning alone (0.93). "Overall I think RL will keep
scaling but will eventually saturate" had shown *where RL scaling plateaus and why* on its cue
("saturat") at 0.84. Chosen on the gold set's dev split (QWK 0.910 with 0.3 everywhere; 0.9 from
level 2 up, 0.931; 0.9 from level 3 up, 0.924; these bars, 0.925) and on two user trials' plain
level-2 sentences that 0.9 from level 2 up stops crediting ("For a one-hot label, cross entropy
equals KL.", read at 0.53; README, twenty-eighth session)."""


def cue_veto(level: int) -> float:
    return CUE_VETO_BY_LEVEL.get(level, max(CUE_VETO_BY_LEVEL.values()))


CUE_OVER_WRONG = 0.5
"""A sentence with a key point's cue phrase of two words or more, read by the head as at least this
likely that point, is not also charged with a misconception read by meaning alone ("交叉熵就是数据的熵加上
KL" is the decomposition, not *cross-entropy is KL*). A one-word cue does not clear it ("GRPO 也用 GAE
算 advantage" is the right term in a wrong claim), and a misconception's own cue phrase still counts."""


HALF = 0.5
"""A recall point no sentence makes alone is credited to the two sentences that read most like it,
each at least this likely and at most `HALVES_APART` apart, where the two read together make it:
each says a half ("For training, BF16 with FP32 master weights is the default ..." / "For inference,
... FP8 W8A8 is now preferred on Hopper", blind trial 36's infra-03 answer: 0.79 and 0.91 alone,
0.96 together; trials 34 and 36 found such points listed as not shown). Recall only: a pair credited
a level-4 point from two plain sentences of a gold dev answer ("真实数据本身的不确定性……是个常数")."""
HALVES_APART = 2


def _credit_halves(question: Question, whole: list[SentenceClaims], judge: MeaningJudge) -> None:
    """Credit the points two sentences make together (`HALF`) to the first, quoted as both. Not from a
    sentence with a wrong claim or about another concept: the pair's quote would keep a point its
    wrong sentence loses."""
    credited = {c.key_point for r in whole for c in r.points}
    clean = [i for i, r in enumerate(whole) if not r.misconceptions and not r.other_concept]
    halves = []
    for kp in (kp for kp in question.key_points if kp.level == 1):
        likely = sorted(
            (i for i in clean if whole[i].probability.get(kp.id, 0.0) >= HALF),
            key=lambda i: -whole[i].probability[kp.id],
        )
        if kp.id in credited or len(likely) < 2:
            continue
        first, second = sorted(likely[:2])
        if second - first <= HALVES_APART:
            gap = "" if second == first + 1 else "… "
            halves.append((kp.id, first, _joined(whole[first].sentence, gap + whole[second].sentence)))
    for (point_id, first, _), pair in zip(halves, judge.read(question, [text for *_, text in halves]), strict=True):
        _apply_levels_and_cues(question, pair, judge)
        made = [c for c in pair.points if c.key_point == point_id]
        claims = whole[first]
        claims.points += made
        if made and claims.near_miss is not None and claims.near_miss.key_point == point_id:
            claims.near_miss = None


def _joined(first: str, second: str) -> str:
    """Two sentences as one quote, as the answer runs (no space after a CJK stop)."""
    return first + ("" if first[-1:] in "。！？；" else " ") + second


def _by_meaning(
    question: Question, sentences: list[str], judge: MeaningJudge, vectors: np.ndarray | None
) -> list[SentenceClaims]:
    pieces = {i: clauses(s) for i, s in enumerate(sentences)}
    extra = [c for i in sorted(pieces) for c in pieces[i]]
    readings = judge.read(question, sentences + extra, None if extra else vectors, keep_best=True)
    whole, by_clause = readings[: len(sentences)], iter(readings[len(sentences) :])
    for i, claims in enumerate(whole):
        sentence = claims.sentence
        sure = any((c.strength or 0.0) >= judge.POINT_OVER_WRONG for c in claims.points)
        for clause in (next(by_clause) for _ in pieces[i]):
            for point_id, p in clause.probability.items():
                claims.reach[point_id] = max(claims.reach.get(point_id, 0.0), p)
            # A claim a clause makes is the sentence's, quoted whole (the evidence stays the candidate's sentence).
            claims.points += [
                dataclasses.replace(c, quote=sentence)
                for c in clause.points
                if c.key_point not in {p.key_point for p in claims.points}
            ]
            # A clause read alone loses its context ("每一步 batch 里的序列组成都不一样" read as *sequences
            # attend to each other*): a sentence the head reads as surely making a key point is not
            # charged with a misconception only a clause of it was read as (`POINT_OVER_WRONG`).
            for w in [] if sure else clause.misconceptions:
                # The surer reading of a claim stands (`MeaningJudge.charges` holds a weak one to more).
                weaker = [m for m in claims.misconceptions if m.misconception == w.misconception]
                if all((m.strength or 0.0) < (w.strength or 0.0) for m in weaker):
                    claims.misconceptions = [m for m in claims.misconceptions if m not in weaker]
                    claims.misconceptions.append(dataclasses.replace(w, quote=sentence, clause=clause.sentence))
        _apply_levels_and_cues(question, claims, judge)
    return whole


def _apply_levels_and_cues(question: Question, claims: SentenceClaims, judge: MeaningJudge) -> None:
    """Beyond recall, a point needs a sentence that states something (`states`: everyday verbs
    count); a cue phrase, counted beside the meaning, needs one that explains (`explains`)."""
    sentence = claims.sentence
    explanatory = states(sentence)
    claims.points.sort(key=lambda c: -(c.strength or 0.0))
    held = [c for c in claims.points if c.level == 1 or explanatory]
    dropped = [c for c in claims.points if c not in held]
    claims.near_miss = dropped[0] if dropped else claims.near_miss
    claims.points = held
    if claims.near_miss is not None and claims.near_miss.key_point in {c.key_point for c in held}:
        claims.near_miss = None  # a clause made the point the whole sentence came close to
    cued = _by_cues(question, sentence)
    for cue_claim in [] if claims.other_concept else cued.points:
        p = claims.probability.get(cue_claim.key_point, 0.0)
        if cue_claim.key_point not in {c.key_point for c in claims.points} and p >= cue_veto(cue_claim.level):
            claims.points.append(dataclasses.replace(cue_claim, strength=round(p, 3)))
            if claims.near_miss is not None and claims.near_miss.key_point == cue_claim.key_point:
                claims.near_miss = None  # the cue made it
    shown = [
        c
        for c in claims.points
        if not cannot_show(question, question.key_point(c.key_point), sentence)
        and not (
            lacks_expert_words(question, question.key_point(c.key_point), sentence)
            and (c.how == "meaning" or not gives_figure(sentence))
        )
    ]
    # Figures that are not the point's were still said toward it: the interviewer asks to check them.
    checked = [c for c in claims.points if miscounted(question, question.key_point(c.key_point), sentence)]
    if checked and claims.near_miss is None:
        claims.near_miss = checked[0]
    claims.points = shown
    sure_cues = [
        c.cue or ""
        for c in claims.points
        if c.how == "cue" and size(c.cue or "") >= 2 and (c.strength or 0.0) >= CUE_OVER_WRONG
    ]
    # The point's own words, read by the head as likely that point: a misconception read by meaning
    # alone is the nearness of a right claim to a wrong one on the same subject. Not where a clause
    # without those words made the wrong claim ("它会保留旧的 KV cache" beside "因为 recompute 太贵").
    claims.misconceptions = [
        w
        for w in claims.misconceptions
        if w.how != "meaning" or not (_near_a_cue(w, sure_cues) or _lacks_its_words(question, w))
        if judge.charges(w, claims)
    ]
    named = {w.misconception for w in claims.misconceptions}
    claims.misconceptions += [w for w in cued.misconceptions if w.misconception not in named]
    claims.misconceptions += _swaps_of_siblings(question, claims)
    claims.misconceptions = _of_this_algorithm(question, claims.misconceptions, sentence)
    # Naming a point's cue is recall only where the head does not rule the point out: "my mornings
    # are deterministic" names a cue of the determinism question and says nothing on it.
    cued_points = [kp for kp in question.key_points if find_cue(normalise(sentence), kp.cues.all())]
    claims.mentioned = bool(claims.points) or any(
        max(claims.probability.get(kp.id, 0.0), claims.reach.get(kp.id, 0.0)) >= CUE_VETO for kp in cued_points
    )


SWAPPED_POINT = 0.8
"""How surely a sentence must read as a key point for the family member it names instead to be the
misconception that names that member (`siblings.sibling_swapped_in`)."""


def _swaps_of_siblings(question: Question, claims: SentenceClaims) -> list[WrongClaim]:
    """The misconceptions the sentence states by making a point with a sibling in its place. Not
    where it makes a point that names that sibling as its own: blind trial 40's "If the rollout
    engine's log-probs are used directly as pi_old, ..." made infra-01's point on pi_old (0.97), and
    was charged with *pi_old is a fourth copy* for reading near the list of copies."""
    named = {w.misconception for w in claims.misconceptions}
    made = [question.key_point(c.key_point) for c in claims.points]
    found: list[WrongClaim] = []
    for point in question.key_points:
        p = max(claims.probability.get(point.id, 0.0), claims.reach.get(point.id, 0.0))
        if p < SWAPPED_POINT or point.id in {c.key_point for c in claims.points}:
            continue
        for wrong in question.misconceptions:
            if wrong.id in named or any(owns_the_sibling(kp, wrong, claims.sentence) for kp in made):
                continue
            if sibling_swapped_in(point, wrong, claims.sentence):
                found.append(WrongClaim(wrong.id, claims.sentence, "meaning", round(p, 3), swapped=point.id))
                named.add(wrong.id)
    return found


def _lacks_its_words(question: Question, wrong: WrongClaim) -> bool:
    """A wrong claim whose bank entry names the words it needs (`Misconception.needs`) read by
    meaning from a sentence without any: "In DPO there is no explicit reward model" is the first half
    of "DPO has no reward model, so it cannot be hacked", and right."""
    needs = question.misconception(wrong.misconception).needs
    return bool(needs) and find_cue(normalise(wrong.clause or wrong.quote), needs) is None


def _near_a_cue(wrong: WrongClaim, cues: list[str]) -> bool:
    """Is the wrong claim read where one of these cue phrases is (its clause, else the sentence)?"""
    if not cues:
        return False
    return wrong.clause is None or bool(find_cue(normalise(wrong.clause), cues))


ADJACENT_SHARE = 0.5
"""Share of an answer's explaining sentences that explain a neighbouring concept, above which the
answer is taken to be about that concept, not the one asked (it then shows nothing)."""


SAID_TOWARD = 0.5
"""A sentence (or a clause of it) whose probability for a point reaches this, short of crediting
it, said something toward the point: a near miss, even beside a point it did make."""


def collect(
    question: Question, claims: list[SentenceClaims]
) -> tuple[dict[str, Evidence], list[MisconceptionHit], list[Evidence]]:
    """The sentence that shows each point most surely (the first of equals), each misconception
    stated, and the near misses. The surest, not the first: an opening sentence with the point's cue
    phrase, read as that point at 0.69, was quoted over a later one that makes it at 0.98."""
    evidence: dict[str, Evidence] = {}
    near: dict[str, Evidence] = {}
    misconceptions: dict[str, MisconceptionHit] = {}
    corrections = {m.id: m.correction for m in [*question.misconceptions, *misattributions().values()]}
    for sentence in claims:
        for point in sentence.points:
            shown = evidence.get(point.key_point)
            if shown is None or (point.strength or 0.0) > (shown.strength or 0.0):
                evidence[point.key_point] = point.evidence()
        miss = sentence.near_miss
        if miss is not None and (
            miss.key_point not in near or (miss.strength or 0) > (near[miss.key_point].strength or 0)
        ):
            near[miss.key_point] = miss.evidence()
        for point_id, p in sentence.reach.items():
            stronger = point_id not in near or p > (near[point_id].strength or 0)
            if p >= SAID_TOWARD and stronger:
                level = question.key_point(point_id).level
                near[point_id] = Evidence(
                    key_point=point_id, level=level, quote=sentence.sentence, how="meaning", strength=round(p, 3)
                )
    for sentence in claims:
        for wrong in sentence.misconceptions:
            if wrong.swapped is not None and _made_right_elsewhere(question, wrong.swapped, sentence, claims):
                continue
            misconceptions.setdefault(
                wrong.misconception,
                MisconceptionHit(
                    misconception=wrong.misconception, quote=wrong.quote, correction=corrections[wrong.misconception]
                ),
            )
    # The surest wrong claim first: it is the one the interviewer challenges.
    strength = {w.misconception: w.strength or 1.0 for c in claims for w in c.misconceptions}
    ordered = sorted(misconceptions.values(), key=lambda m: -strength.get(m.misconception, 1.0))
    return evidence, ordered, [e for k, e in near.items() if k not in evidence]


def _made_right_elsewhere(
    question: Question, point_id: str, here: SentenceClaims, claims: list[SentenceClaims]
) -> bool:
    """Does another sentence make the point with its own member named? Then the sibling named here
    is the alternative set against it: a blind trial's correction ("估计的是 reverse KL：... = KL(π_θ‖π_teacher)。
    ... Forward KL 反而需要从 teacher 分布采样") was charged with *OPD minimises forward KL* and scored 0.
    A point credited only on a cue phrase that names no direction does not clear a swap."""
    point = question.key_point(point_id)
    return any(
        other is not here
        and point_id in {c.key_point for c in other.points}
        and names_its_own_member(point, other.sentence)
        for other in claims
    )


def about_another_concept(claims: list[SentenceClaims], evidence: dict[str, Evidence]) -> bool:
    """Does the answer mostly explain a neighbouring concept (`ADJACENT_SHARE`), showing at most one point?"""
    explaining = [c for c in claims if explains(c.sentence)]
    others = sum(c.other_concept for c in explaining)
    return bool(explaining) and len(evidence) <= 1 and others >= ADJACENT_SHARE * len(explaining)
