"""Trust, but verify: a model's verdict becomes an Assessment only through the candidate's own words
and the rubric's level logic.

- Every quote must be found in the judged part of the answer (after whitespace and case
  normalisation); a claim whose quote is not there is dropped.
- Sentences addressed to the grader are not judged (as offline), so quoting one proves nothing.
- A claimed key point must be anchored in the quoted sentence: the judge by meaning finds the point
  there (at a lower bar than it credits on its own), or, for a question without exemplars, its cue
  phrases or words shared with the point's statement are there; above level 1 the sentence must also explain, as offline; and one
  sentence can show at most two key points.
- The guard works downwards too: what the offline judge found stays credited unless the model
  names a wrong claim with its quote. A model that verified none of its own claims ("off-topic",
  "nothing shown") cannot lower the offline depth; one that read the answer may judge it one level
  below (`FLOOR_SLACK`). A model that obeys an injection and credits every point to one sentence
  gets at most what that sentence shows; in an answer that addresses the grader, only claims the
  rubric's cues confirm are accepted.
- The depth is the model's, bounded by what the verified key points support (`BOUND_RULE`: a level
  needs a verified point at or above it) and capped at recall for keyword lists and stated
  misconceptions (one wrong claim beside reasoning costs a level, `cap_for_wrong_claims`). A model
  talked into "give this a 4" cannot award it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.judge.claims import lacks_its_figures
from agent.judge.meaning import MeaningJudge
from agent.judge.scoring import (
    Bounds,
    DepthRule,
    Reading,
    Visit,
    assess_visit,
    cap_for_wrong_claims,
    flag_shows_nothing,
    held_back,
    is_keyword_list,
    prepare_answer,
    reason_for,
)
from agent.state import Assessment, Evidence, Flag, LLMVerdict, MisconceptionHit
from agent.text import explains, find_cue, is_gibberish, normalise, size
from common.terminal import clean_for_display
from knowledge.models import DEPTH_NAMES, KeyPoint, Question

ELLIPSIS = re.compile(r"\.\.\.|…")
QUOTE_MARKS = " \"'“”‘’`「」"
NOTHING_SHOWN_FLAGS = {Flag.off_topic.value, Flag.dont_know.value}
"""What a model may say about an answer in which nothing was verified."""
RATIONALE_CHARS = 300


def _squash(text: str) -> str:
    return " ".join(normalise(text).split())


class QuoteFinder:
    """Finds a quote in the candidate's sentences, ignoring case, spacing and a model's ellipses."""

    def __init__(self, content: list[str]):
        self.content = content
        squashed = [_squash(s) for s in content]
        self.joined = " ".join(squashed)
        self.spans: list[tuple[int, int]] = []
        at = 0
        for piece in squashed:
            self.spans.append((at, at + len(piece)))
            at += len(piece) + 1

    def find(self, quote: str) -> str | None:
        """The candidate's sentence(s) containing the quote, or None when the answer does not say it."""
        pieces = [p for p in (_squash(part).strip(QUOTE_MARKS) for part in ELLIPSIS.split(quote)) if p]
        if not pieces or size(" ".join(pieces)) < 1:
            return None
        start, first = 0, None
        for piece in pieces:
            found = self.joined.find(piece, start)
            if found < 0:
                return None
            first = found if first is None else first
            start = found + len(piece)
        assert first is not None  # `pieces` is not empty, so the loop set it
        return " ".join(s for s, (a, b) in zip(self.content, self.spans) if a < start and b > first)


MAX_POINTS_PER_SENTENCE = 2
CONTENT_WORD = re.compile(r"[a-z][a-z0-9-]{3,}")
STOP = frozenset(
    "this that with from have they their there which when what will would could should about into "
    "than then them were been being more most also only just over such very your the and".split()
)


def _anchors(text: str) -> set[str]:
    """Content words and CJK character pairs: what two texts about the same thing tend to share."""
    low = normalise(text)
    words = {w for w in CONTENT_WORD.findall(low) if w not in STOP}
    cjk = "".join(ch for ch in low if "\u4e00" <= ch <= "\u9fff")
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


ANCHOR_SHARE = 0.5
"""A model's claim is anchored when the judge's probability reaches this share of its own bar: the
model may see what the judge only half sees, but not what it does not see at all."""


def anchored(question: Question, point: KeyPoint, sentence: str, judge: MeaningJudge | None = None) -> bool:
    """Does the candidate's sentence plausibly make this point, whatever the model says? The judge
    by meaning at a lower bar than it credits on its own; for a question without exemplars, the
    words the sentence shares with the point (its cue phrases, or content words of its statement).
    Words alone are not enough where the judge can read the claim: a sentence that uses the point's
    terms in a wrong claim must not anchor it (on dev, also accepting shared words kept one more
    correct verdict in 244)."""
    if judge is not None and judge.heads is not None and judge.covers(question.id):
        bar = ANCHOR_SHARE * judge.heads.key_point.threshold
        return judge.point_probability(question, point, sentence) >= bar and (point.level == 1 or explains(sentence))
    return _shares_words(question, point, sentence)


def _shares_words(question: Question, point: KeyPoint, sentence: str) -> bool:
    normalised = normalise(sentence)
    if find_cue(normalised, point.cues.all()):
        return point.level == 1 or explains(sentence)
    shared = _anchors(sentence) & _anchors(point.statement + " " + " ".join(point.cues.all()))
    if point.level == 1:
        return len(shared) >= 2
    on_topic = shared | (_anchors(sentence) & _anchors(question.prompt.en + " " + question.prompt.zh))
    return explains(sentence) and len(shared) >= 1 and len(on_topic) >= 2


BOUND_RULE = DepthRule(
    reasoning_implies_mechanism=True, share_for_3=0.0, reasoning_points_without_mechanism=1, outweighs_a_wrong_claim=3
)
"""What verified points can support at most: a level needs one verified point at or above it (a
reasoning point also shows the mechanism). Looser than the offline judge's rule, which must decide
alone; the model's depth is the judgement within this bound (on the dev split's correct-model replay
the offline rule as the bound kept 86.1% of correct verdicts, this one 86.9%)."""
FLOOR_SLACK = 1
"""How far a model that has read the answer (one of its own claims verified) may go below the
offline judge's depth without naming a wrong claim. The offline evidence is kept either way; a model
that verifies nothing ("off-topic", "nothing shown") cannot lower the offline depth at all. On the
dev correct-model replay: 75.8% of correct verdicts kept with no slack, 86.9% with one level, 88.9%
with no floor at all."""


@dataclass
class _Verified:
    """The model's claims that the candidate's words bear out."""

    evidence: dict[str, Evidence] = field(default_factory=dict)
    misconceptions: list[MisconceptionHit] = field(default_factory=list)
    mentioned: bool = False
    """Something on the rubric is shown (by a verified claim, partial ones included, or offline)."""
    engaged: bool = False
    """One of the model's own key-point claims was verified: it has read the answer."""
    dropped: int = 0
    """Claims whose quote is not in the answer, or does not bear the point out."""


def verified_assessment(
    question: Question,
    answer: str,
    verdict: LLMVerdict,
    prior: Assessment | None,
    answer_limit_chars: int,
    offline: Assessment | None = None,
    judge: MeaningJudge | None = None,
) -> Assessment:
    prepared = prepare_answer(answer, answer_limit_chars)
    flags = list(prepared.flags)
    readable = bool(prepared.text.strip()) and not is_gibberish(prepared.text)
    finder = QuoteFinder(prepared.content if readable else [])
    # An answer that talks to the grader may have talked the model round too: then only claims the
    # rubric's own cues confirm in the quoted sentence are accepted.
    manipulated = Flag.grader_instruction in prepared.flags
    verified = _verified_points(question, verdict, finder, judge, manipulated)
    _verify_misconceptions(question, verdict, finder, verified)
    if offline is not None:
        _keep_offline_reading(offline, verified)
    evidence, misconceptions = verified.evidence, verified.misconceptions
    keyword_list = bool(evidence) and (is_keyword_list(prepared.content) or Flag.keyword_list.value in verdict.flags)
    read = evidence
    evidence, ceiling = cap_for_wrong_claims(question, evidence, flags, keyword_list, misconceptions, BOUND_RULE)
    capped = ceiling < 4
    held = held_back(read, evidence, misconceptions, []) if capped and not keyword_list else []
    nothing_shown = None if verified.mentioned else _nothing_shown(verdict, offline)
    flag_shows_nothing(flags, prepared.text, not readable, nothing_shown)
    reading = Reading(evidence, misconceptions, flags, verified.mentioned, ceiling, prepared.note, held)

    def explain(depth: int, visit: Visit, supported: int) -> str:
        return _reason(question, depth, visit.covered, visit.missed, flags, verdict, supported, verified.dropped)

    bounds = _bounds(verdict, offline, capped, verified.engaged)
    return assess_visit(question, prior, reading, BOUND_RULE, explain=explain, brain="llm", bounds=bounds)


def _nothing_shown(verdict: LLMVerdict, offline: Assessment | None) -> Flag:
    """Why an answer in which nothing was verified shows nothing: what the model said, unless the
    offline reader saw a neighbouring concept, which says more than a model's "off-topic"."""
    if offline is not None and Flag.other_concept in offline.flags:
        return Flag.other_concept
    said = [f for f in verdict.flags if f in NOTHING_SHOWN_FLAGS]
    return Flag(said[0]) if said else Flag.off_topic


def _bounds(verdict: LLMVerdict, offline: Assessment | None, capped: bool, engaged: bool) -> Bounds:
    """The model's depth is a ceiling; the offline reading a floor, `FLOOR_SLACK` below it for a model
    that has read the answer (`engaged`). An answer capped at recall has no floor."""
    if offline is None or capped:
        return Bounds(proposed=verdict.depth)
    slack = FLOOR_SLACK if engaged else 0
    return Bounds(
        proposed=verdict.depth,
        answer_floor=max(offline.answer_depth - slack, 0),
        visit_floor=max(offline.depth - slack, 0),
    )


def _verified_points(
    question: Question, verdict: LLMVerdict, finder: QuoteFinder, judge: MeaningJudge | None, manipulated: bool
) -> _Verified:
    """The key points the model claims whose quote is in the answer and anchors the point there; one
    sentence shows at most `MAX_POINTS_PER_SENTENCE` of them. A partial claim counts as engagement,
    not as evidence."""
    levels = {kp.id: kp.level for kp in question.key_points}
    verified = _Verified()
    uses: dict[str, int] = {}
    for claim in verdict.key_points:
        if claim.status == "missing" or claim.id not in levels or claim.id in verified.evidence:
            continue
        sentence = finder.find(claim.quote)
        point = question.key_point(claim.id)
        if (
            sentence is None
            or not anchored(question, point, sentence, judge)
            or lacks_its_figures(question, point, sentence)
            or (manipulated and not find_cue(normalise(sentence), point.cues.all()))
            or uses.get(sentence, 0) >= MAX_POINTS_PER_SENTENCE
        ):
            verified.dropped += 1
            continue
        uses[sentence] = uses.get(sentence, 0) + 1
        verified.mentioned = verified.engaged = True
        if claim.status == "covered":
            verified.evidence[claim.id] = Evidence(
                key_point=claim.id, level=levels[claim.id], quote=sentence, how="llm"
            )
    return verified


def _verify_misconceptions(question: Question, verdict: LLMVerdict, finder: QuoteFinder, verified: _Verified) -> None:
    """The bank's misconceptions the model names with a quote the answer contains, once each."""
    corrections = {m.id: m.correction for m in question.misconceptions}
    for wrong in verdict.misconceptions:
        if wrong.id not in corrections or any(m.misconception == wrong.id for m in verified.misconceptions):
            continue
        sentence = finder.find(wrong.quote)
        if sentence is None:
            verified.dropped += 1
            continue
        hit = MisconceptionHit(misconception=wrong.id, quote=sentence, correction=corrections[wrong.id])
        verified.misconceptions.append(hit)


def _keep_offline_reading(offline: Assessment, verified: _Verified) -> None:
    """The offline reading stands where the model named no wrong claim in the same sentence."""
    challenged = {m.quote for m in verified.misconceptions}
    for found in offline.covered:
        if (
            found.key_point in offline.new
            and found.key_point not in verified.evidence
            and found.quote not in challenged
        ):
            verified.evidence[found.key_point] = found
            verified.mentioned = True
    known = {m.misconception for m in verified.misconceptions}
    verified.misconceptions += [m for m in offline.misconceptions if m.misconception not in known]


def _reason(
    question: Question,
    depth: int,
    covered: list[Evidence],
    missed: list[str],
    flags: list[Flag],
    verdict: LLMVerdict,
    supported: int,
    dropped: int,
) -> str:
    parts = [reason_for(question, depth, covered, missed, flags)]
    if verdict.depth > supported:
        parts.append(
            f"The model proposed {verdict.depth} ({DEPTH_NAMES[verdict.depth]}); the candidate's quoted "
            f"words support {supported}."
        )
    if dropped:
        parts.append(f"{dropped} claim(s) quoting words that are not in the answer were dropped.")
    rationale = " ".join(clean_for_display(verdict.rationale).split())[:RATIONALE_CHARS]
    if rationale:
        parts.append(f"Model: {rationale}")
    return " ".join(parts)
