"""Deciding the interviewer's next move after an answer: probe, hint, or move on."""

from __future__ import annotations

from dataclasses import dataclass

from agent.state import Assessment, CandidateAction, Decision, Flag
from knowledge.models import Question


@dataclass(frozen=True)
class Progress:
    """Where the current question stands, as the decision needs it."""

    follow_ups: int
    max_follow_ups: int
    stalls: int
    probed: tuple[str, ...]
    hinted: bool


def next_probe(question: Question, assessment: Assessment, probed: tuple[str, ...]) -> str | None:
    """The target to probe next: a stated misconception first, then the lowest-level missing key
    point, then (once levels 1-3 are shown) an expert probe; never one already asked."""
    for hit in assessment.misconceptions:
        if hit.misconception not in probed:
            return hit.misconception
    missing = [question.key_point(kp) for kp in assessment.missed if kp not in probed]
    below_expert = [kp for kp in missing if kp.level < 4]
    if assessment.depth < 3:
        # Expert probes only once levels 1-3 are shown; with nothing left below, the depth is known.
        return min(below_expert, key=lambda kp: kp.level).id if below_expert else None
    for i in range(len(question.expert_probes)):
        if f"expert:{i}" not in probed:
            return f"expert:{i}"
    return missing[0].id if missing else None


def decide(question: Question, assessment: Assessment, action: CandidateAction, progress: Progress) -> Decision:
    if action is CandidateAction.skip:
        return Decision(action="move_on", why="the candidate skipped")
    if assessment.depth >= 4:
        return Decision(action="move_on", why="expert depth reached")
    if progress.follow_ups >= progress.max_follow_ups:
        return Decision(action="move_on", why=f"{progress.max_follow_ups} follow-ups used")
    target = next_probe(question, assessment, progress.probed)
    stuck = action in (CandidateAction.idk, CandidateAction.hint) or Flag.dont_know in assessment.flags
    if stuck:
        if progress.hinted or target is None:
            return Decision(action="move_on", why="still stuck after a hint")
        return Decision(action="hint", target=_hint_target(question, assessment, progress.probed),
                        why="the candidate is stuck")
    if progress.stalls >= 2:
        return Decision(action="move_on", why="two follow-ups without progress")
    if target is None:
        return Decision(action="move_on", why="nothing left to probe")
    return Decision(action="follow_up", target=target, why=_why(target, assessment))


def _hint_target(question: Question, assessment: Assessment, probed: tuple[str, ...]) -> str:
    """What the candidate is stuck on: the key point last probed if it is still missing, else the
    lowest-level missing one."""
    shown = {e.key_point for e in assessment.covered}
    last = probed[-1] if probed else None
    if last in {kp.id for kp in question.key_points} and last not in shown:
        return last
    missing = [kp for kp in question.key_points if kp.id not in shown]
    return min(missing, key=lambda kp: kp.level).id if missing else question.key_points[0].id


def _why(target: str, assessment: Assessment) -> str:
    if any(hit.misconception == target for hit in assessment.misconceptions):
        return "correct a stated misconception"
    if target.startswith("expert:"):
        return "levels 1-3 shown; testing for expert depth"
    return f"missing key point {target}"
