"""What a candidate's reply shows: what it asks of the interviewer, and the question's assessment after
it (judged by the brain, or unchanged when there is nothing to judge; "I already said that" credited
from the earlier answers; what follows a hint marked as hinted)."""

from __future__ import annotations

from collections.abc import Callable

from agent.brains.brain import Brain
from agent.brains.listening import HINT_AGAIN, asks_which, hear, recall, strip_meta
from agent.judge.claims import cannot_be_taken_for
from agent.judge.misattribution import puts_right
from agent.judge.scoring import depth_of, reason_for
from agent.state import Assessment, CandidateAction, Evidence, Flag, Heard, ModelUse, Turn
from agent.text import HINT_REQUEST, one_per_line, sentences
from knowledge.models import KeyPoint, Question

ANSWERED_IN_PLACE = (Heard.clarify, Heard.repeat, Heard.wait, Heard.terse)
"""Replies the interviewer answers in words, then waits on the same question: nothing is judged."""


def read_reply(action: CandidateAction, text: str, question: Question) -> tuple[CandidateAction, Heard | None]:
    """What a reply asks of the interviewer: a short plea for a hint is a hint request (thinking
    aloud around it does not make it longer: "Hmm, let me think for a moment. Could you give me a
    hint ...?"), "next question" alone a skip; otherwise what `hear` recognised besides the answer."""
    if action is not CandidateAction.answer:
        return action, None
    if (HINT_REQUEST.search(text) or HINT_AGAIN.search(text)) and len(strip_meta(text)) < 80:
        return CandidateAction.hint, None
    heard = hear(text, question)
    if heard.heard is Heard.move_on and not heard.content:
        return CandidateAction.skip, heard.heard
    return action, heard.heard


def _content(turn: Turn) -> str:
    """The reply without its talk about the conversation; a hint request's own sentence is such talk
    ("Could you give me a hint about what you're looking for on the epochs part?"), and so is a
    question asking which reading is meant ("你是指正确性上的坑还是工程维护上的坑？能给点提示吗？" had its
    question credited as a level-3 point)."""
    asks = (HINT_REQUEST, HINT_AGAIN) if turn.action is CandidateAction.hint else ()
    kept = [s for s in sentences(strip_meta(turn.answer)) if not (asks_which(s) or any(p.search(s) for p in asks))]
    return one_per_line(kept)


def has_content(turn: Turn) -> bool:
    """Is there anything in the reply for the brain to judge (not a key action, not a bare protest)?"""
    content = _content(turn).strip()
    if turn.action is CandidateAction.hint:
        return bool(content)
    return turn.action is CandidateAction.answer and (turn.heard is not Heard.already_said or bool(content))


def judged_text(turn: Turn) -> str:
    """The part of a reply the brain judges (its talk about the conversation left out); empty when
    there is nothing to judge."""
    return _content(turn) if has_content(turn) else ""


async def judge_reply(
    brain: Brain, question: Question, turn: Turn, prior: Assessment | None, earlier: list[Turn]
) -> Assessment:
    """The question's assessment after `turn`: the brain judges the reply's content (its talk about
    the conversation left out); "I already said that" credits the target from `earlier` answers."""
    if has_content(turn):
        assessment = await brain.assess(question, judged_text(turn), prior)
    else:
        assessment = unchanged(question, prior, turn.action)
    if turn.heard is Heard.already_said:
        judge = brain.judge
        read = (lambda point, sentence: judge.point_probability(question, point, sentence)) if judge else None
        assessment = _credit_recalled(question, assessment, turn.target, earlier, read)
    elif turn.kind != "ask" and has_content(turn):
        assessment = _credit_answered_probe(question, assessment, turn.target)
    return _on_topic_if_put_right(assessment, turn, earlier)


ASIDE = {Flag.off_topic, Flag.other_concept}
"""What a reply that puts a challenged swap right is not, though it names another system ("The
ByteDance Seed framework is verl", blind trial 36, was marked as explaining a neighbouring concept)."""


def _on_topic_if_put_right(assessment: Assessment, turn: Turn, earlier: list[Turn]) -> Assessment:
    """A reply that gives back the term the last follow-up challenged as given to the wrong owner
    answers that challenge: it is not off-topic, though it shows no key point (a blind trial's "对，我记混
    了。RadixAttention 是 SGLang 提出的……" was marked 偏题)."""
    challenged = earlier[-1].decision.challenge if earlier and earlier[-1].decision else None
    if challenged is None or not ASIDE & set(assessment.flags):
        return assessment
    hits = [m for t in reversed(earlier) if t.assessment for m in t.assessment.misconceptions]
    wrong = next((m.quote for m in hits if m.misconception == challenged), "")
    if not any(puts_right(challenged, wrong, s) for s in sentences(turn.answer)):
        return assessment
    return assessment.model_copy(update={"flags": [f for f in assessment.flags if f not in ASIDE]})


ANSWERED_PROBE = 0.5
"""A reply to a follow-up on a key point that the judge reads as this likely that point (short of
its bar) answers what was asked: an interviewer who asked "what does dropping the KL buy you on the
systems side?" and heard "you save the reference model's memory and its forward pass" takes it,
where the same sentence out of the blue would only be a near miss (a drill trial was asked it again)."""


def _credit_answered_probe(question: Question, assessment: Assessment, target: str | None) -> Assessment:
    if target not in assessment.missed or assessment.misconceptions:
        return assessment
    point = question.key_point(target)
    near = [
        e
        for e in assessment.near_misses
        if e.key_point == target
        and (e.strength or 0) >= ANSWERED_PROBE
        and not cannot_be_taken_for(question, point, e.quote)
    ]
    if not near:
        return assessment
    best = max(near, key=lambda e: e.strength or 0)
    return _credited(question, assessment, best.model_copy(update={"how": "meaning", "level": point.level}))


def unchanged(question: Question, prior: Assessment | None, action: CandidateAction) -> Assessment:
    """A turn with nothing to judge (a hint request, a skip, "I don't know"): no model was asked."""
    flags = [Flag.dont_know] if action is CandidateAction.idk else []
    if prior:
        return prior.model_copy(
            update={"answer_depth": 0, "new": [], "misconceptions": [], "flags": flags, **ModelUse().model_dump()}
        )
    return Assessment(
        question=question.id,
        depth=0,
        answer_depth=0,
        flags=flags,
        reason="Depth 0 (nothing shown yet).",
        missed=question.missed(),
    )


def _credit_recalled(
    question: Question,
    assessment: Assessment,
    target: str | None,
    earlier: list[Turn],
    read: Callable[[KeyPoint, str], float] | None,
) -> Assessment:
    """On "I already said that": credit the target from the earlier answers when they bear it out.
    When the protest itself shows it too, the earlier words are its evidence: it was said before (a
    blind trial, who had said it in the first answer and said it again protesting, was told "这次有了")."""
    if target is None:
        return assessment
    if target in assessment.new:
        found = recall(question, target, earlier, read)
        if found is None:
            return assessment
        return assessment.model_copy(
            update={"covered": [found if e.key_point == target else e for e in assessment.covered]}
        )
    if target not in assessment.missed:
        return assessment
    found = recall(question, target, earlier, read)
    return assessment if found is None else _credited(question, assessment, found)


def _credited(question: Question, assessment: Assessment, found: Evidence) -> Assessment:
    """The assessment with one more key point shown (`found`), its depth and reason brought along."""
    covered = [*assessment.covered, found]
    missed = [kp for kp in assessment.missed if kp != found.key_point]
    depth = max(assessment.depth, depth_of(question, covered, True))
    return assessment.model_copy(
        update={
            "covered": covered,
            "missed": missed,
            "new": [*assessment.new, found.key_point],
            "depth": depth,
            "near_misses": [e for e in assessment.near_misses if e.key_point != found.key_point],
            "reason": reason_for(question, depth, covered, missed, list(assessment.flags)),
        }
    )


def mark_hinted(assessment: Assessment, turn: Turn, hints: tuple[str, ...]) -> Assessment:
    """What this answer shows in reply to a hint, or toward a point hinted at, is shown with a hint."""

    def hinted(e: Evidence) -> bool:
        return e.key_point in assessment.new and (turn.kind == "hint" or e.key_point in hints)

    if not any(hinted(e) for e in assessment.covered):
        return assessment
    return assessment.model_copy(
        update={"covered": [e.model_copy(update={"hinted": True}) if hinted(e) else e for e in assessment.covered]}
    )
