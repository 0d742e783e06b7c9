"""Rubric scoring: judges answers from the bank's rubric, without any model.

How an answer earns depth:
- a sentence shows a key point when the judge by meaning (agent/judge/meaning.py) reads it as making the
  point's claim, in any words; for a question without exemplars, when it contains one of the
  point's cue phrases. Above level 1 the sentence must also explain (a connective or verb);
- an answer that mostly explains a neighbouring concept shows nothing for the one asked;
- the depth is the highest level the shown points support (`DepthRule`: each level needs the ones
  below, though a reasoning point in plain words beside a recall point also shows the mechanism and
  two of them reach 3 without the formula; 3 also needs a share of the rubric's level 1-3 points
  and of the parts);
- a keyword list, or an answer with a stated misconception, supports recall (1) at most; one whose
  only claims are misconceptions, or that states two of them, shows nothing (0);
- sentences addressed to the grader are removed and flagged; the rest is judged on content;
- empty, gibberish, off-topic and "don't know" answers show nothing (0).
Depth is cumulative over the turns on a question and never goes down.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from agent.judge.claims import SentenceClaims, about_another_concept, collect, read_sentences
from agent.judge.meaning import MeaningJudge
from agent.judge.topic import has_a_topic_of_its_own, in_the_field, strays
from agent.labels import labels
from agent.state import Assessment, Evidence, Flag, MisconceptionHit
from agent.text import (
    DONT_KNOW,
    GRADER_INSTRUCTION,
    HIDDEN_MARKUP,
    explains,
    is_gibberish,
    list_shape,
    one_per_line,
    sentences,
    shorten,
)
from knowledge.facts import confusion, is_a_detail
from knowledge.models import Question


@dataclass(frozen=True)
class DepthRule:
    """How the levels of the key points shown become a depth."""

    reasoning_implies_mechanism: bool = False
    """A reasoning point (level 3) shown in plain words also shows that the mechanism is
    understood: "取 min 是为了悲观估计" is depth 2 even without the formula."""
    reasoning_needs_recall: bool = False
    """With `reasoning_implies_mechanism`, a reasoning point stands for the mechanism only beside a
    recall point: a lone level-3 match is as often a neighbouring concept's sentence."""
    share_for_3: float = 0.5
    """Share of the rubric's level 1-3 points that must be shown for depth 3 (every part asked)."""
    reasoning_points_without_recall: int = 99
    """With `reasoning_needs_recall`, this many reasoning points stand for the mechanism without one."""
    reasoning_points_without_mechanism: int = 99
    """Level-3 points needed for depth 3 when no level-2 point is shown."""
    parts_for_3: float = 0.0
    """Share of the question's parts (`Question.parts`) with a point shown, needed for depth 3."""
    expert_points_for_4: int = 1
    """Level-4 points needed for depth 4 (at most as many as the rubric has)."""
    wrong_alone_shows_nothing: bool = False
    """An answer whose only claims on the question are misconceptions shows nothing (0), not recall:
    the right terms in a wrong claim are not knowledge."""
    wrong_claims_for_0: int = 99
    """Distinct misconceptions in one answer from which even its level-1 points are withdrawn: an
    answer built on wrong claims (a fluent bluff) shows nothing."""
    outweighs_a_wrong_claim: int = 99
    """The depth an answer's other sentences must reach for its one wrong claim to cost a level
    rather than cap it at recall (`cap_for_wrong_claims`)."""


DEFAULT_RULE = DepthRule(
    reasoning_implies_mechanism=True,
    reasoning_needs_recall=True,
    reasoning_points_without_recall=2,
    reasoning_points_without_mechanism=2,
    parts_for_3=0.5,
    wrong_alone_shows_nothing=True,
    wrong_claims_for_0=2,
    outweighs_a_wrong_claim=3,
)
"""The best of 360 rules on the gold set's dev split with the judge by meaning on (`rl-interview judge
fit-depth`; QWK 0.870, against 0.856 for "each level needs a point of its own"): a reasoning point
beside a recall point shows the mechanism too, two of them reach depth 3 without the level-2
formula, depth 3 also needs half the parts touched, and an answer of wrong claims alone, or with
two of them, shows nothing. Two reasoning points stand for the mechanism without a recall point
(thirty-sixth session: no dev turn moves, and blind trial 40's mixed-language answer with two sure
level-3 points and an expert one, its recall and mechanism said in plain words the judge missed,
had read 1)."""


def depth_of(question: Question, covered: list[Evidence], mentioned: bool, rule: DepthRule = DEFAULT_RULE) -> int:
    """The depth the shown key points support; each level builds on the ones below."""
    if not covered:
        return 1 if mentioned else 0
    count = {level: sum(e.level == level for e in covered) for level in (1, 2, 3, 4)}
    recalled = count[1] > 0 or not rule.reasoning_needs_recall or count[3] >= rule.reasoning_points_without_recall
    implied = rule.reasoning_implies_mechanism and count[3] > 0 and recalled
    mechanism = count[2] > 0 or implied
    if not mechanism:
        return 1
    shown = {e.key_point for e in covered}
    basic = [kp for kp in question.key_points if kp.level <= 3]
    share = sum(kp.id in shown for kp in basic) / max(len(basic), 1)
    parts = {kp.part for kp in question.key_points if kp.part}
    touched = {kp.part for kp in question.key_points if kp.part and kp.id in shown}
    parts_share = len(touched) / len(parts) if parts else 1.0
    reasoning = count[3] >= (1 if count[2] else rule.reasoning_points_without_mechanism)
    if not (reasoning and share >= rule.share_for_3 and parts_share >= rule.parts_for_3):
        return 2
    expert = sum(kp.level == 4 for kp in question.key_points)
    return 4 if count[4] and count[4] >= min(rule.expert_points_for_4, expert) else 3


def depth_with_earlier(question: Question, depth: int, shown: Collection[str], earlier: Collection[str]) -> int:
    """A drill that showed the point it opened on stands on everything shown on the question so far:
    the depth its own key points and those of earlier drills support together (never below its own).
    A drill asks one point's probe, so its answer alone is narrow: a full answer to a level-4 probe
    read "Depth 1 (recall)" beside the card the profile rated on all of it (a trial user's)."""
    union = sorted({question.current_id(kp) for kp in {*earlier, *shown}})  # saved under a former id
    evidence = [Evidence(key_point=kp, level=question.key_point(kp).level, quote="") for kp in union]
    return max(depth, depth_of(question, evidence, True))


def cap_for_wrong_claims(
    question: Question,
    evidence: dict[str, Evidence],
    flags: list[Flag],
    keyword_list: bool,
    misconceptions: list[MisconceptionHit],
    rule: DepthRule,
) -> tuple[dict[str, Evidence], int]:
    """A keyword list, or an answer built on stated misconceptions, supports recall at most: only
    level-1 evidence stands. One wrong claim withdraws the points of its own sentence (unless the
    claim is a detail beside them: whose the work is, one figure) and keeps the others'; it caps the
    answer at recall, or costs a level where the other sentences reach
    `DepthRule.outweighs_a_wrong_claim`:
    blind trials' expert answers with one wrong figure or attribution were scored 1, where an
    interviewer challenges the claim and gives 2 or 3. Flags the reason; returns the evidence kept and
    the depth the answer can reach."""
    if keyword_list:
        flags.append(Flag.keyword_list)
    if misconceptions:
        flags.append(Flag.misconception)
    if not (keyword_list or misconceptions):
        return evidence, 4
    if not keyword_list and distinct_wrong_claims(misconceptions) == 1:
        # What the other sentences show stands either way: a trial's "Not shown: KL in the loss, k3"
        # beside one wrong reason for dropping the KL sent the candidate to study what they had said.
        wrong = {m.quote for m in misconceptions if not is_a_detail(m.misconception)}
        apart = {k: e for k, e in evidence.items() if e.quote not in wrong}
        depth = depth_of(question, list(apart.values()), True, rule)
        return apart, depth - 1 if depth >= rule.outweighs_a_wrong_claim else 1
    return {k: e for k, e in evidence.items() if e.level == 1}, 1


def held_back(
    read: dict[str, Evidence], kept: dict[str, Evidence], misconceptions: list[MisconceptionHit], near: list[Evidence]
) -> list[Evidence]:
    """The near misses, with the points a misconception's cap left uncredited added: said, in a
    sentence other than a wrong claim's, so the interviewer does not ask for them as if unsaid, and
    "I already said that" finds them (a trial's correct "相比 SFT，它训练的是 student 自己会走到的状态"
    beside a wrong KL direction was asked for, and the protest rejected)."""
    wrong = {m.quote for m in misconceptions}
    held = [e for point_id, e in read.items() if point_id not in kept and e.quote not in wrong]
    held_ids = {e.key_point for e in held}
    return [*held, *(e for e in near if e.key_point not in held_ids)]


@dataclass(frozen=True)
class PreparedAnswer:
    """The part of an answer that is judged: its sentences minus those addressed to the grader."""

    content: list[str]
    flags: list[Flag]
    """too_long and/or grader_instruction."""
    note: str | None
    admits_a_gap: bool = False
    """The candidate said, somewhere, that they do not know (those clauses are not in `content`)."""

    @property
    def text(self) -> str:
        return one_per_line(self.content)


def prepare_answer(answer: str, limit_chars: int) -> PreparedAnswer:
    """Cut an over-long answer to its first `limit_chars` and remove sentences addressed to the grader."""
    flags: list[Flag] = []
    note = None
    text = answer
    if len(answer) > limit_chars:
        text = answer[:limit_chars]
        flags.append(Flag.too_long)
        note = f"assessed on the first {limit_chars:,} of {len(answer):,} characters"
    hidden = HIDDEN_MARKUP.findall(text)
    if any(GRADER_INSTRUCTION.search(comment) for comment in hidden):
        flags.append(Flag.grader_instruction)
    content: list[str] = []
    admits_a_gap = False
    for sentence in sentences(HIDDEN_MARKUP.sub("\n\n", text)):
        if GRADER_INSTRUCTION.search(sentence):
            if Flag.grader_instruction not in flags:
                flags.append(Flag.grader_instruction)
        elif DONT_KNOW.search(sentence):
            admits_a_gap = True
            content += claims_beside_a_gap(sentence)
        else:
            content.append(sentence)
    return PreparedAnswer(content, flags, note, admits_a_gap)


GAP_CLAUSE = re.compile(r"\s*[,;，；]\s*|\s+(?=(?:but|though|although) )|(?=但是|不过)")


def claims_beside_a_gap(sentence: str) -> list[str]:
    """The clauses of a sentence in which the candidate does not say they do not know. "PPO clips the
    ratio; I'm not sure why" claims the clip and admits a gap: the claim is judged, the gap is not
    held against it, and "I haven't read the ProRL paper" names a term without claiming anything."""
    return [c for c in (p.strip() for p in GAP_CLAUSE.split(sentence)) if c and not DONT_KNOW.search(c)]


def is_keyword_list(content: list[str]) -> bool:
    """Terms listed without explanation (fewer than two explaining sentences)."""
    return list_shape(one_per_line(content)).is_list and sum(explains(s) for s in content) < 2


def distinct_wrong_claims(misconceptions: list[MisconceptionHit]) -> int:
    """How many wrong claims the answer makes: one sentence that swaps two owners ("vLLM 的核心是
    RadixAttention，SGLang 的核心是 PagedAttention"; "PP inside the node, TP across nodes", charged as the
    bank's "tp-across-nodes" and our swap) is one confusion, though it gives each term away. A swap
    over two sentences stays two: counting it once cost two dev and one held-out bluff their 0
    (twenty-ninth session)."""
    return len({m.quote if confusion(m.misconception) != m.misconception else m.misconception for m in misconceptions})


class RubricScorer:
    name = "offline"

    def __init__(
        self, answer_limit_chars: int = 20_000, judge: MeaningJudge | None = None, rule: DepthRule | None = None
    ):
        self.answer_limit_chars = answer_limit_chars
        self.rule = rule or DEFAULT_RULE
        self.judge = judge
        """The judge by meaning; None judges every question on its cue phrases alone."""

    def read(self, question: Question, content: list[str]) -> list[SentenceClaims]:
        return read_sentences(question, content, self.judge)

    def built_on_wrong_claims(self, evidence: dict[str, Evidence], misconceptions: list[MisconceptionHit]) -> bool:
        """Does the answer stand on its misconceptions (`DepthRule.wrong_alone_shows_nothing`,
        `wrong_claims_for_0`)? Then what it got right in passing is not counted either."""
        if not misconceptions:
            return False
        return (not evidence and self.rule.wrong_alone_shows_nothing) or distinct_wrong_claims(
            misconceptions
        ) >= self.rule.wrong_claims_for_0

    def strays(self, question: Question, claims: list[SentenceClaims], text: str) -> bool | None:
        """Is the answer about something other than the question (`agent/judge/topic.py`), or on it?
        None when there is no telling (judged on cue phrases alone): an answer that names nothing of
        the question is then taken to be off it, and what it named stands."""
        read = [c for c in claims if c.nearest_here is not None and c.nearest_elsewhere is not None]
        if self.judge is None or not read:
            return None
        here = [c.nearest_here for c in read if c.nearest_here is not None]
        elsewhere = [c.nearest_elsewhere for c in read if c.nearest_elsewhere is not None]
        return strays(question.id, here, elsewhere, text, self.judge.vocabularies)

    def assess(self, question: Question, answer: str, prior: Assessment | None) -> Assessment:
        prepared = prepare_answer(answer, self.answer_limit_chars)
        flags, note, content = list(prepared.flags), prepared.note, prepared.content
        content_text = prepared.text

        gibberish = bool(content_text.strip()) and is_gibberish(content_text)
        claims = [] if gibberish else self.read(question, content)
        evidence, misconceptions, near_misses = collect(question, claims)
        mentioned = any(c.mentioned for c in claims)
        adjacent = about_another_concept(claims, evidence)
        strayed = self.strays(question, claims, content_text)
        if adjacent or (strayed is True and (evidence or mentioned) and has_a_topic_of_its_own(content_text)):
            evidence, mentioned = {}, False

        keyword_list = bool(evidence) and is_keyword_list(content)
        read_before_cap = evidence
        evidence, ceiling = cap_for_wrong_claims(question, evidence, flags, keyword_list, misconceptions, self.rule)
        built_on_wrong = self.built_on_wrong_claims(evidence, misconceptions)
        if built_on_wrong:
            evidence, mentioned = {}, False
        elif ceiling < 4 and not keyword_list:
            near_misses = held_back(read_before_cap, evidence, misconceptions, near_misses)
        mentioned = mentioned or bool(evidence)

        if prepared.admits_a_gap and not evidence and not misconceptions:
            flags.append(Flag.dont_know)
            mentioned = False
        else:
            nothing_shown = None
            if not (mentioned or built_on_wrong):
                neighbouring = (
                    adjacent and self.judge is not None and in_the_field(content_text, self.judge.vocabularies)
                )
                nothing_shown = (
                    Flag.other_concept if neighbouring else Flag.off_topic if adjacent or strayed is not False else None
                )
            flag_shows_nothing(flags, content_text, gibberish, nothing_shown)

        reading = Reading(evidence, misconceptions, flags, mentioned, ceiling, note, near_misses)

        def explain(depth: int, visit: Visit, supported: int) -> str:
            return reason_for(question, depth, visit.covered, visit.missed, flags, built_on_wrong)

        return assess_visit(question, prior, reading, self.rule, explain=explain, brain=self.name)


@dataclass(frozen=True)
class Visit:
    """What a question's visit has shown once an answer is added to the turns before it."""

    covered: list[Evidence]
    """The earlier turns' points, then this answer's new ones."""
    new: list[str]
    missed: list[str]
    """Level-ordered, as `Question.missed`."""


def cumulate(question: Question, prior: Assessment | None, evidence: dict[str, Evidence]) -> Visit:
    """How evidence accumulates over a visit."""
    covered = list(prior.covered) if prior else []
    known = {e.key_point for e in covered}
    new = [e for e in evidence.values() if e.key_point not in known]
    covered += new
    return Visit(covered, [e.key_point for e in new], question.missed({e.key_point for e in covered}))


def flag_shows_nothing(flags: list[Flag], text: str, gibberish: bool, nothing_shown: Flag | None) -> None:
    """Flag why an answer shows nothing: it is empty (unless it only addressed the grader, already
    flagged), unreadable, or `nothing_shown` (off-topic and the like; None when something was)."""
    if not text.strip():
        if Flag.grader_instruction not in flags:
            flags.append(Flag.empty)
    elif gibberish:
        flags.append(Flag.gibberish)
    elif nothing_shown is not None:
        flags.append(nothing_shown)


@dataclass(frozen=True)
class Reading:
    """What one answer shows, once the offline scorer or the LLM verifier has decided what stands."""

    evidence: dict[str, Evidence]
    misconceptions: list[MisconceptionHit]
    flags: list[Flag]
    mentioned: bool
    """Something on the rubric is shown (a point, or a term of one)."""
    ceiling: int
    """The most the answer can reach: 1 for recall at most, lower than 4 beside a wrong claim (`cap_for_wrong_claims`)."""
    note: str | None
    near_misses: list[Evidence] = field(default_factory=list)


@dataclass(frozen=True)
class Bounds:
    """What a second opinion adds to the depth the evidence supports: a ceiling (the model's proposed
    depth) and floors for the answer and for the visit (the offline reading, less some slack). The
    offline scorer has none."""

    proposed: int = 4
    answer_floor: int = 0
    visit_floor: int = 0


Explain = Callable[[int, Visit, int], str]
"""The one-line reason for (depth, visit, depth the visit's evidence supports)."""


def assess_visit(
    question: Question,
    prior: Assessment | None,
    reading: Reading,
    rule: DepthRule,
    *,
    explain: Explain,
    brain: str,
    bounds: Bounds = Bounds(),
) -> Assessment:
    """One copy of the depth step for the offline scorer and the LLM verifier: this answer's depth,
    the depth the whole visit's evidence supports (below the reading's ceiling), and the
    cumulative depth, which never goes down."""
    ceiling = reading.ceiling
    evidence = list(reading.evidence.values())
    answer_depth = max(
        min(bounds.proposed, depth_of(question, evidence, reading.mentioned, rule), ceiling), bounds.answer_floor
    )
    visit = cumulate(question, prior, reading.evidence)
    shown_before = reading.mentioned or bool(prior and prior.depth)
    supported = min(depth_of(question, visit.covered, shown_before, rule), ceiling)
    depth = max(prior.depth if prior else 0, min(bounds.proposed, supported), answer_depth, bounds.visit_floor)
    return Assessment(
        question=question.id,
        depth=depth,
        answer_depth=answer_depth,
        covered=visit.covered,
        new=visit.new,
        missed=visit.missed,
        near_misses=[e for e in reading.near_misses if e.key_point in visit.missed],
        misconceptions=reading.misconceptions,
        flags=reading.flags,
        reason=explain(depth, visit, supported),
        brain=brain,
        note=reading.note,
    )


def reason_for(
    question: Question,
    depth: int,
    covered: list[Evidence],
    missed: list[str],
    flags: list[Flag],
    built_on_wrong: bool = False,
    lang: str = "en",
    earlier: int = 0,
) -> str:
    """The one-line reason shown with a depth: what was shown (and how many points shown in earlier
    sessions the depth also stands on), the lowest point missing, the limits."""
    say = labels(lang)
    parts = [say("reason_depth", depth=depth, name=say.depth_name(depth))]
    if covered:
        parts.append(say("reason_showed", shown=len(covered), total=len(question.key_points)))
    if earlier:
        parts.append(say("reason_with_earlier", earlier=earlier))
    if missed:
        lowest = question.key_point(missed[0])
        point = shorten(lowest.statement_in(lang).rstrip("."), REASON_POINT_CHARS)
        parts.append(say("reason_not_yet", point=point, level=lowest.level))
    for flag in flags:
        key = flag.value
        if flag is Flag.misconception:
            # Beside deeper content one wrong claim costs a level (`cap_for_wrong_claims`): "Depth 2; a
            # stated misconception caps the answer at recall" contradicted itself (blind trial 40).
            key = "built_on_wrong" if built_on_wrong else "misconception_costs_a_level" if depth >= 2 else key
        if key in REASON_LIMITS:
            parts.append(say.name("reason_limits", key))
    return say("reason_separator").join(parts) + say("reason_end")


REASON_POINT_CHARS = 70
"""The first missing point is named by the start of its statement, in the session's language (its
id, "kl-ref-vs-trust-region", says little to a candidate and nothing in Chinese)."""

REASON_LIMITS = {"keyword_list", "misconception", "misconception_costs_a_level", "built_on_wrong", "gibberish"}
REASON_LIMITS |= {"grader_instruction", "off_topic", "other_concept", "dont_know", "empty"}
"""The flags that limit a depth, named in the reason (`reason_limits` in prompts/labels.yaml)."""


def reason_in(
    question: Question, assessment: Assessment, lang: str, shown_before: Collection[str] = (), depth: int | None = None
) -> str:
    """An assessment's reason in the session's language (0 beside a misconception: built on wrong
    claims). What a model brain added after the rubric's reason stays in the model's words.
    `shown_before`: in a drill, the key points shown in earlier drills, which the reason does not
    name as "not yet" (the review lists them as shown before); `depth`: the drill's depth with them
    (`depth_with_earlier`), which the reason gives and says how it was reached."""
    rated = assessment.depth if depth is None else depth
    if lang == "en" and not shown_before and rated == assessment.depth:
        return assessment.reason
    built_on_wrong = Flag.misconception in assessment.flags and assessment.depth == 0
    args = (question, assessment.depth, assessment.covered, assessment.missed, list(assessment.flags), built_on_wrong)
    english = reason_for(*args)
    added = assessment.reason[len(english) :].strip() if assessment.reason.startswith(english) else ""
    missed = [kp for kp in assessment.missed if kp not in shown_before]
    earlier = len(set(shown_before) - {e.key_point for e in assessment.covered}) if rated > assessment.depth else 0
    said = reason_for(question, rated, assessment.covered, missed, *args[4:], lang=lang, earlier=earlier)
    return " ".join(filter(None, [said, added]))
