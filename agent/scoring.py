"""Rubric scoring: judges answers from the bank's rubric, without any model.

How an answer earns depth:
- a sentence shows a key point when it contains one of the point's cue phrases; for points above
  level 1 the sentence must also explain (a connective or verb, not a bare term);
- the depth is the highest level the shown points support, each level needing the one below
  (3 also needs most of the rubric's level 1-3 points, i.e. every part of the question);
- a keyword list, or an answer built on a stated misconception, supports recall (1) at most;
- sentences addressed to the grader are removed and flagged; the rest is judged on content;
- empty, gibberish, off-topic and "don't know" answers show nothing (0).
Depth is cumulative over the turns on a question and never goes down.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.state import Assessment, Evidence, Flag, MisconceptionHit
from agent.text import (
    DONT_KNOW,
    GRADER_INSTRUCTION,
    asserts,
    explains,
    find_cue,
    is_gibberish,
    list_shape,
    normalise,
    sentences,
    size,
)
from knowledge.models import Question

LEVEL_NAMES = {0: "nothing correct", 1: "recall", 2: "mechanism", 3: "reasoning", 4: "expert"}
PARTS_NEEDED_FOR_3 = 0.5
"""Share of the level 1-3 key points that must be shown for depth 3 ("every part of the question")."""


def depth_of(question: Question, covered: list[Evidence], mentioned: bool) -> int:
    """The depth the shown key points support; levels build on each other."""
    levels = {e.level for e in covered}
    if not levels:
        return 1 if mentioned else 0
    depth = 1
    if 2 in levels:
        depth = 2
        basic = [kp for kp in question.key_points if kp.level <= 3]
        shown = {e.key_point for e in covered}
        if 3 in levels and sum(kp.id in shown for kp in basic) >= PARTS_NEEDED_FOR_3 * len(basic):
            depth = 3
            if 4 in levels:
                depth = 4
    return depth


def cap_to_recall(evidence: dict[str, Evidence], flags: list[Flag], keyword_list: bool,
                  misconception: bool) -> tuple[dict[str, Evidence], bool]:
    """A keyword list, or an answer built on a stated misconception, supports recall at most: only
    level-1 evidence stands. Flags the reason; returns the evidence kept and whether it was capped."""
    if keyword_list:
        flags.append(Flag.keyword_list)
    if misconception:
        flags.append(Flag.misconception)
    capped = keyword_list or misconception
    return ({k: e for k, e in evidence.items() if e.level == 1} if capped else evidence), capped


@dataclass(frozen=True)
class PreparedAnswer:
    """The part of an answer that is judged: its sentences minus those addressed to the grader."""

    content: list[str]
    flags: list[Flag]
    """too_long and/or grader_instruction."""
    note: str | None

    @property
    def text(self) -> str:
        return "\n".join(self.content)


def prepare_answer(answer: str, limit_chars: int) -> PreparedAnswer:
    """Cut an over-long answer to its first `limit_chars` and remove sentences addressed to the grader."""
    flags: list[Flag] = []
    note = None
    text = answer
    if len(answer) > limit_chars:
        text = answer[:limit_chars]
        flags.append(Flag.too_long)
        note = f"assessed on the first {limit_chars:,} of {len(answer):,} characters"
    content: list[str] = []
    for sentence in sentences(text):
        if GRADER_INSTRUCTION.search(sentence):
            if Flag.grader_instruction not in flags:
                flags.append(Flag.grader_instruction)
        else:
            content.append(sentence)
    return PreparedAnswer(content, flags, note)


def is_keyword_list(content: list[str]) -> bool:
    """Terms listed without explanation (fewer than two explaining sentences)."""
    return list_shape("\n".join(content)).is_list and sum(explains(s) for s in content) < 2


class RubricScorer:
    name = "offline"

    def __init__(self, answer_limit_chars: int = 20_000):
        self.answer_limit_chars = answer_limit_chars

    def assess(self, question: Question, answer: str, prior: Assessment | None) -> Assessment:
        prepared = prepare_answer(answer, self.answer_limit_chars)
        flags, note, content = list(prepared.flags), prepared.note, prepared.content
        content_text = prepared.text

        evidence: dict[str, Evidence] = {}
        mentioned = False
        misconceptions: list[MisconceptionHit] = []
        gibberish = bool(content_text.strip()) and is_gibberish(content_text)
        if not gibberish:
            for sentence in content:
                normalised = normalise(sentence)
                explanatory = explains(sentence)
                for kp in question.key_points:
                    if kp.id in evidence or not find_cue(normalised, kp.cues.all()):
                        continue
                    mentioned = True
                    if kp.level == 1 or explanatory:
                        evidence[kp.id] = Evidence(key_point=kp.id, level=kp.level, quote=sentence)
                for wrong in question.misconceptions:
                    if asserts(sentence, wrong.cues.all()):
                        if all(m.misconception != wrong.id for m in misconceptions):
                            misconceptions.append(
                                MisconceptionHit(misconception=wrong.id, quote=sentence, correction=wrong.correction)
                            )

        evidence, capped = cap_to_recall(evidence, flags, bool(evidence) and is_keyword_list(content), bool(misconceptions))
        mentioned = mentioned or bool(evidence)

        if not content_text.strip():
            if Flag.grader_instruction not in flags:
                flags.append(Flag.empty)
        elif gibberish:
            flags.append(Flag.gibberish)
        elif DONT_KNOW.search(content_text) and size(content_text) < 30 and not any(e.level > 1 for e in evidence.values()):
            # "I haven't read the ProRL paper" names a term but shows nothing.
            flags.append(Flag.dont_know)
            evidence, mentioned = {}, False
        elif not mentioned:
            flags.append(Flag.off_topic)

        answer_depth = depth_of(question, list(evidence.values()), mentioned)
        if capped:
            answer_depth = min(answer_depth, 1)
        prior_covered = list(prior.covered) if prior else []
        known = {e.key_point for e in prior_covered}
        new = [e for e in evidence.values() if e.key_point not in known]
        covered = prior_covered + new
        union_depth = depth_of(question, covered, mentioned or bool(prior and prior.depth))
        if capped:
            union_depth = min(union_depth, 1)
        depth = max(prior.depth if prior else 0, union_depth, answer_depth)
        shown = {e.key_point for e in covered}
        missed = [kp.id for kp in sorted(question.key_points, key=lambda k: k.level) if kp.id not in shown]
        return Assessment(
            question=question.id,
            depth=depth,
            answer_depth=answer_depth,
            covered=covered,
            new=[e.key_point for e in new],
            missed=missed,
            misconceptions=misconceptions,
            flags=flags,
            reason=reason_for(question, depth, covered, missed, flags),
            brain=self.name,
            note=note,
        )


def reason_for(question: Question, depth: int, covered: list[Evidence], missed: list[str], flags: list[Flag]) -> str:
    """The one-line reason shown with a depth: what was shown, the lowest point missing, the limits."""
    parts = [f"Depth {depth} ({LEVEL_NAMES[depth]})"]
    if covered:
        parts.append("showed " + ", ".join(e.key_point for e in covered))
    if missed:
        lowest = question.key_point(missed[0])
        parts.append(f"not yet: {lowest.id} (level {lowest.level})")
    limits = {
        Flag.keyword_list: "terms listed without explanation count as recall at most",
        Flag.misconception: "a stated misconception caps the answer at recall",
        Flag.grader_instruction: "instructions to the grader were ignored",
        Flag.gibberish: "the answer is not readable text",
        Flag.off_topic: "the answer does not address the question",
        Flag.dont_know: "the candidate did not know",
        Flag.empty: "no answer",
    }
    parts.extend(limits[f] for f in flags if f in limits)
    return "; ".join(parts) + "."
