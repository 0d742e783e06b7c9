"""The offline interviewer's voice: follow-ups and hints from the bank's probes and our notes."""

from __future__ import annotations

from agent.prompts import load_yaml
from agent.state import Assessment, Decision, Flag, Reference
from agent.text import clean_for_display, find_cue, normalise
from knowledge.models import Question

QUOTE_CHARS = 90


def excerpt(sentence: str, limit: int = QUOTE_CHARS) -> str:
    one_line = " ".join(clean_for_display(sentence).split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1].rstrip() + "…"


def probe_text(question: Question, target: str, lang: str) -> str:
    if target.startswith("expert:"):
        return question.expert_probes[int(target.split(":")[1])].get(lang)
    for wrong in question.misconceptions:
        if wrong.id == target:
            related = _related_key_point(question, wrong.statement)
            return related.probe.get(lang)
    return question.key_point(target).probe.get(lang)


def _related_key_point(question: Question, text: str):
    """The key point whose cues the misconception's statement touches (the mechanism to revisit)."""
    normalised = normalise(text)
    for kp in sorted(question.key_points, key=lambda k: k.level):
        if find_cue(normalised, kp.cues.all()):
            return kp
    return min(question.key_points, key=lambda k: k.level)


def _quote_for(assessment: Assessment, target: str) -> str | None:
    for hit in assessment.misconceptions:
        if hit.misconception == target:
            return hit.quote
    fresh = [e for e in assessment.covered if e.key_point in assessment.new]
    return max(fresh, key=lambda e: e.level).quote if fresh else None


def phrase(
    question: Question,
    decision: Decision,
    assessment: Assessment,
    references: list[Reference],
    lang: str,
    turn_number: int,
) -> str:
    """The follow-up or hint for the decision's target, in the interviewer's own voice."""
    phrases = load_yaml("offline_wording.yaml")[lang]
    target = decision.target or question.key_points[0].id
    probe = probe_text(question, target, lang)

    def pick(kind: str) -> str:
        variants = phrases[kind]
        return variants[turn_number % len(variants)]

    if decision.action == "hint":
        kp = question.key_point(target)
        cue = (kp.cues.zh if lang == "zh" else kp.cues.en)[0]
        heading = _heading_for(references, kp.cues.all()) or question.prompt.get(lang)[:40]
        return pick("hint").format(cue=cue, heading=heading, probe=probe)
    quote = _quote_for(assessment, target)
    if any(hit.misconception == target for hit in assessment.misconceptions):
        return pick("misconception").format(quote=excerpt(quote or ""), probe=probe)
    if target.startswith("expert:"):
        return pick("expert").format(probe=probe)
    if Flag.off_topic in assessment.flags or Flag.gibberish in assessment.flags:
        return pick("off_topic").format(probe=probe)
    if quote:
        return pick("probe_with_quote").format(quote=excerpt(quote), probe=probe)
    return pick("probe").format(probe=probe)


def _heading_for(references: list[Reference], cues: list[str]) -> str | None:
    """The heading of the reference chunk that talks most about the target's cues."""
    best, best_hits = None, 0
    for ref in references:
        text = normalise(ref.text)
        hits = sum(1 for cue in cues if find_cue(text, [cue]))
        if hits > best_hits:
            best, best_hits = ref.heading.split(" › ")[-1], hits
    return best

