"""Deciding the interviewer's next move after an answer: probe, hint, or move on.

The order of targets: a stated misconception is challenged at once; then the first part of the
question not answered yet (nothing said toward it beyond naming a concept), until something is
shown on it; then depth within the parts (the lowest-level key point still missing), and once
levels 1-3 are shown (and every part has something shown, its basic points asked first), the
rubric's missing level-4 points before our expert probes (the gold
interviewers ask for the question's own expert content, numbers and evidence, before a scenario
of ours: README, "2026-12-03, fourth session"). A target already shown is never
asked, one already asked never again, and one the candidate has partly said comes after the
others (its follow-up names what was said). An answer that shows nothing because it explains a
neighbouring concept or stands only on wrong claims gets a hint toward what was asked, the wrong
claim named first. A candidate who is stuck gets a hint; one who asks for
more climbs the key point's ladder of hints, up to `max_hints` per question (even once the
follow-ups are spent), while "I don't know" after a hint, or to a follow-up past what was
shown, closes the question.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.brains.parts import untouched_parts
from agent.brains.wording import AFFIRM_STRENGTH, point_behind
from agent.judge.misattribution import rightly_owned_in
from agent.state import Assessment, CandidateAction, Decision, Flag, Heard, QuestionProgress
from agent.text import find_cue, normalise
from knowledge.facts import confusion
from knowledge.models import KeyPoint, Part, Question

NEAR_MISS = 0.2
"""A near miss of the judge at least this strong means the candidate has partly said the point."""


@dataclass(frozen=True)
class Limits:
    """How far the interviewer goes on one question."""

    follow_ups: int
    hints: int = 2


def partly_shown(assessment: Assessment, partly: tuple[str, ...] = ()) -> set[str]:
    """Missing key points the candidate has said something toward: `partly` (read from the turns)
    and the judge's strong near misses."""
    near = {e.key_point for e in assessment.near_misses if (e.strength or 0) >= NEAR_MISS}
    return (set(partly) | near) & set(assessment.missed)


def next_probe(
    question: Question, assessment: Assessment, probed: tuple[str, ...], partly: set[str] | frozenset[str] = frozenset()
) -> str | None:
    """The target to probe next (see the module docstring); None when nothing is left to ask."""
    for hit in assessment.misconceptions:
        if hit.misconception not in probed:
            return hit.misconception
    missed = set(assessment.missed)
    missing = [kp for kp in question.key_points if kp.id in missed and kp.id not in probed]

    def first(points: list[KeyPoint]) -> str | None:
        return min(points, key=lambda kp: (kp.id in partly, kp.level)).id if points else None

    # Expert points only once levels 1-3 are shown, on an untouched part too ("how big is the
    # effect?" to a candidate who has shown nothing is no question); with nothing left below, the
    # depth is known.
    askable = missing if assessment.depth >= 3 else [kp for kp in missing if kp.level < 4]
    covered = {e.key_point for e in assessment.covered}
    for part in untouched_parts(question, covered, partly):
        target = first([kp for kp in askable if kp.part == part.id])
        if target:
            return target
    if assessment.depth < 3:
        return first(askable)
    # A part with nothing shown on it opens with its own basic question, even when a weak near miss
    # (another sentence read as half-saying it) took it off the untouched list: a blind trial was
    # asked for CISPO's full objective and reported speedup before saying anything about CISPO.
    for part in question.parts:
        if not any(kp.id in covered for kp in question.points_of(part.id)):
            target = first([kp for kp in missing if kp.part == part.id and kp.level < 4])
            if target:
                return target
    expert_point = first([kp for kp in missing if kp.level >= 4])
    if expert_point:
        return expert_point
    for i in range(len(question.expert_probes)):
        if f"expert:{i}" not in probed:
            return f"expert:{i}"
    return first(missing)


def parts_left_bare(question: Question, covered: set[str], probed: tuple[str, ...]) -> bool:
    """Is a part of the question still without any point shown, one of its basic points not asked
    yet? Something said toward it keeps it off the untouched list, but it is not answered: a trial's
    question closed at depth 4 with "Still open: how to choose the number of PPO epochs"."""
    return any(
        not any(kp.id in covered for kp in question.points_of(part.id))
        and any(kp.id not in probed and kp.level < 4 for kp in question.points_of(part.id))
        for part in question.parts
    )


def stalls_after(progress: QuestionProgress, assessment: Assessment, first_reply: bool) -> int:
    """Replies in a row after the first that moved nothing; two end the question. (Counting an
    empty or gibberish first reply as one was tried and not kept: README, "2026-12-03, second session".)"""
    prior = progress.assessment
    if first_reply or assessment.depth > (prior.depth if prior else 0) or assessment.new:
        return 0
    return progress.stalls + 1


def decide(
    question: Question,
    progress: QuestionProgress,
    action: CandidateAction,
    limits: Limits,
    *,
    heard: Heard | None = None,
    partly: tuple[str, ...] = (),
) -> Decision:
    """The next move on the question after `action`; `heard` is what the reply asked of the
    interviewer and `partly` the missing points it already said something toward."""
    assessment = progress.assessment
    assert assessment is not None, "a decision follows an assessment"
    if action is CandidateAction.skip:
        return Decision(action="move_on", why="the candidate skipped", heard=heard)
    if heard is Heard.move_on:
        return Decision(action="move_on", why="the candidate asked to move on", heard=heard)
    covered = {e.key_point for e in assessment.covered}
    partly_said = partly_shown(assessment, partly)
    open_parts = untouched_parts(question, covered, partly_said)
    if assessment.depth >= 4 and not open_parts and not parts_left_bare(question, covered, progress.probed):
        return Decision(action="move_on", why="expert depth reached", heard=heard)
    asked_for_hint = action is CandidateAction.hint
    # The follow-ups are the interviewer's budget; a hint the candidate asks for is theirs, up to
    # `max_hints` (a second "another hint" after the last follow-up used to close the question unsaid).
    if progress.follow_ups >= limits.follow_ups and not (asked_for_hint and len(progress.hints) < limits.hints):
        return Decision(action="move_on", why=f"{limits.follow_ups} follow-ups used", heard=heard)
    if progress.stalls >= 2 and not (asked_for_hint and len(progress.hints) < limits.hints):
        return Decision(action="move_on", why="two follow-ups without progress", heard=heard)
    if asked_for_hint or action is CandidateAction.idk or Flag.dont_know in assessment.flags:
        # "I don't know" to a follow-up beyond what was shown marks where the candidate's depth
        # ends: the gold interviewers move on there (README, "twenty-fourth session"). A hint is for
        # a candidate with nothing shown yet, or one who asks for it.
        if not asked_for_hint and progress.follow_ups > 0 and assessment.depth >= 1:
            return Decision(action="move_on", why="does not know what the follow-up asked", heard=heard)
        # Another hint when the candidate asks for one; "I don't know" after a hint closes the question.
        hint_target = _hint_target(question, assessment, progress.probed)
        if hint_target is None:
            return Decision(action="move_on", why="nothing left to hint at", heard=heard)
        if len(progress.hints) >= (limits.hints if asked_for_hint else min(1, limits.hints)):
            return Decision(action="move_on", why=f"still stuck after {len(progress.hints)} hint(s)", heard=heard)
        return Decision(
            action="hint",
            target=hint_target,
            why="the candidate is stuck",
            heard=heard,
            rung=progress.hints.count(hint_target),
        )
    redirect = _redirect(question, progress, limits, heard)
    if redirect is not None:
        return redirect
    target = next_probe(question, assessment, progress.probed, partly_said)
    if target is None:
        return Decision(action="move_on", why="nothing left to probe", heard=heard)
    return Decision(action="follow_up", target=target, why=_why(question, target, assessment, open_parts), heard=heard)


def _redirect(question: Question, progress: QuestionProgress, limits: Limits, heard: Heard | None) -> Decision | None:
    """Nothing shown yet because the answer explains a neighbouring concept, or stands only on wrong
    claims: a hint toward what was asked (after naming the wrong claim), as an interviewer would,
    rather than a probe of something the candidate has no footing for yet."""
    assessment = progress.assessment
    assert assessment is not None
    # An unasked-for hint only while none has been given, as after "I don't know".
    if len(progress.hints) >= min(1, limits.hints):
        return None
    open_wrong = [m.misconception for m in assessment.misconceptions if m.misconception not in progress.probed]
    # A first answer whose only footing is recall the judge is not sure of (a cue phrase, a
    # borderline reading), beside a wrong claim, stands on that claim as well: the gold interviewers
    # hint there (README, "eighteenth session"). Sure recall beside it is challenged instead.
    unsure_recall = assessment.depth <= 1 and all((e.strength or 0) < AFFIRM_STRENGTH for e in assessment.covered)
    first_unsure = progress.follow_ups == 0 and unsure_recall
    nothing_shown = not assessment.covered and assessment.depth == 0
    if open_wrong and (first_unsure or nothing_shown):
        why = "the answer stands on a wrong claim"
    elif assessment.covered:
        return None
    elif Flag.other_concept in assessment.flags:
        why = "the answer explains a neighbouring concept"
    else:
        return None
    challenge = open_wrong[0] if open_wrong else None
    # The hint after a named wrong claim helps with what that claim gets wrong.
    target = _hint_target(question, assessment, (*progress.probed, *open_wrong[:1]))
    if target is None:
        return None
    rung = progress.hints.count(target)
    return Decision(action="hint", target=target, why=why, heard=heard, rung=rung, challenge=challenge)


def _hint_target(question: Question, assessment: Assessment, probed: tuple[str, ...]) -> str | None:
    """What the candidate is stuck on: the key point last asked about if it is still missing (the
    next rung of its ladder), or the one behind the misconception just challenged, else the first
    missing point of the first part nothing was said on, else the lowest-level missing point."""
    missed = set(assessment.missed)
    if not missed:
        return None
    last = probed[-1] if probed else None
    if last in missed:
        return last
    behind = _point_behind_challenge(question, last)
    if behind is not None and behind in missed:
        return behind  # a hint right after a challenge helps with that
    # The bank's level order now, not the order `assessment.missed` was saved in (a session resumed
    # after the bank changed); the scorer's assessments list them in this order anyway.
    in_order = [point_id for point_id in question.missed() if point_id in missed]
    covered = {e.key_point for e in assessment.covered}
    for part in untouched_parts(question, covered):
        points = [point_id for point_id in in_order if question.key_point(point_id).part == part.id]
        if points:
            return points[0]
    return in_order[0]


def _point_behind_challenge(question: Question, last: str | None) -> str | None:
    """The key point the wrong claim just challenged gets wrong: the bank's own misconception's, or,
    for a term given to the wrong owner, a point whose statement gives that group's terms to their
    owners (trial 31: the hint that
    challenged "vLLM 的核心是 RadixAttention" was filed under another point, which the correction
    then showed "with a hint"). A swap on a question none of whose points names it has none."""
    if last is None:
        return None
    try:
        wrong = question.misconception(last)
    except KeyError:
        return None
    behind = point_behind(question, wrong)
    if wrong in question.misconceptions:
        return behind.id
    owned = rightly_owned_in(behind.statement) | rightly_owned_in(behind.statement_zh or "")
    if confusion(wrong.id) in {confusion(m) for m in owned}:
        return behind.id
    # or names the swap's term and owner, where the statement's clauses bind neither ("R3 ... records the
    # inference engine's top-k masks and replays them in the training forward")
    named = {cue for cue in wrong.cues.all() if find_cue(normalise(behind.statement), [cue])}
    return behind.id if len(named) >= 2 else None


def _why(question: Question, target: str, assessment: Assessment, open_parts: list[Part]) -> str:
    if any(hit.misconception == target for hit in assessment.misconceptions):
        return "correct a stated misconception"
    if target.startswith("expert:"):
        return "levels 1-3 shown; testing for expert depth"
    part = question.key_point(target).part
    if part and any(p.id == part for p in open_parts):
        return f"part {part} not touched yet"
    return f"missing key point {target}"
