"""The messages sent to a model, filled from the prompt files in `prompts/`.

Both calls of a turn start with the same system message (instructions, depth scale and the
question's rubric), so a provider's prompt cache serves that prefix; what changes from turn to turn
comes after it. The candidate's words always travel inside <candidate_answer> tags.
"""

from __future__ import annotations

import re
from string import Template

from agent.brains.request import WriteRequest
from agent.brains.wording import probe_text
from agent.prompts import load_text
from agent.state import Assessment, Decision, Flag, LLMVerdict
from knowledge.chunking import reference_label
from knowledge.models import Question

TAG = re.compile(r"<\s*/?\s*candidate_answer\s*>", re.IGNORECASE)
LANGUAGES = {"en": "English", "zh": "Chinese (简体中文)"}
CONVERSATION_CHARS = 2_000
"""Each earlier answer is shown to the follow-up writer up to this length."""
REFERENCE_CHARS = 1_200
FOLLOW_UP_WORDS = 60

Message = dict[str, str]


def _fill(name: str, **values: str) -> str:
    return Template(load_text(name)).substitute(values).strip()


def as_data(text: str) -> str:
    """The candidate's words between our tags; a tag of theirs cannot close the block early."""
    return f"<candidate_answer>\n{TAG.sub('[tag removed]', text)}\n</candidate_answer>"


def system_message(question: Question) -> Message:
    key_points = "\n".join(f"- {kp.id}, level {kp.level}: {kp.statement}" for kp in question.key_points)
    misconceptions = "\n".join(f"- {m.id}: {m.statement}" for m in question.misconceptions)
    content = _fill(
        "llm_system.md",
        question=question.prompt.en,
        key_points=key_points,
        misconceptions=misconceptions,
        model_answer=question.model_answer.strip(),
    )
    return {"role": "system", "content": content}


def assess_messages(question: Question, answer: str, prior: Assessment | None) -> list[Message]:
    shown = ", ".join(e.key_point for e in prior.covered) if prior and prior.covered else "none"
    user = _fill("llm_assess.md", shown_before=shown, answer=as_data(answer))
    return [system_message(question), {"role": "user", "content": user}]


def repair_messages(messages: list[Message], reply: str, problem: str) -> list[Message]:
    return [
        *messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": _fill("llm_repair.md", problem=problem)},
    ]


def verdict_schema() -> dict:
    return LLMVerdict.model_json_schema()


def follow_up_messages(request: WriteRequest, exchange: list[tuple[str, str]]) -> list[Message]:
    """`exchange` is the question's conversation so far as (who, text), who being interviewer or candidate."""
    question, lang = request.question, request.lang
    conversation = [f"Interviewer: {question.prompt.get(lang)}"]
    for who, text in exchange:
        conversation.append(
            f"Interviewer: {text}" if who == "interviewer" else f"Candidate:\n{as_data(text[:CONVERSATION_CHARS])}"
        )
    notes = (
        "\n\n".join(
            f"[{reference_label(r.source, r.heading)}]\n{r.text[:REFERENCE_CHARS]}" for r in request.references[:3]
        )
        or "(none)"
    )
    task, target = _target(question, request.decision, request.assessment, lang)
    user = _fill(
        "llm_follow_up.md",
        task=task,
        conversation="\n".join(conversation),
        shown=", ".join(e.key_point for e in request.assessment.covered) or "none",
        target=target,
        references=notes,
        language=LANGUAGES.get(lang, "English"),
        max_words=str(FOLLOW_UP_WORDS),
    )
    return [system_message(question), {"role": "user", "content": user}]


def _target(question: Question, decision: Decision, assessment: Assessment, lang: str) -> tuple[str, str]:
    """What the line is for, and the rubric material it is about."""
    target = decision.target or question.key_points[0].id
    probe = probe_text(question, target, lang)
    if target.startswith("expert:"):
        return (
            "an expert-level probe: the candidate covered the basics, find out how deep they go.",
            f"The probe to ask, in your own words: {probe}",
        )
    for wrong in question.misconceptions:
        if wrong.id == target:
            said = next((m.quote for m in assessment.misconceptions if m.misconception == target), "")
            return (
                "a follow-up that makes the candidate re-examine a claim they made, without telling them "
                "the correction.",
                f"The claim to re-examine ({wrong.id}): {wrong.statement}\n"
                f"What is actually true (do not say it): {wrong.correction}\n"
                + (f"Their words:\n{as_data(said)}\n" if said else "")
                + f"A question that gets at it: {probe}",
            )
    kp = question.key_point(target)
    if decision.action == "hint":
        return (
            "a hint: a short nudge toward the missing key point below that lets the candidate try again, "
            "without stating the point itself." + _redirect_note(question, decision, assessment),
            f"The missing key point ({kp.id}, level {kp.level}): {kp.statement}",
        )
    return (
        "a follow-up question that probes the missing key point below.",
        f"The missing key point ({kp.id}, level {kp.level}): {kp.statement}\nA question that gets at it: {probe}",
    )


def _redirect_note(question: Question, decision: Decision, assessment: Assessment) -> str:
    """What a redirecting hint says first: the wrong claim the answer stood on, or that it explained
    a neighbouring concept (see `policy._redirect`)."""
    if decision.challenge is not None:
        wrong = question.misconception(decision.challenge)
        said = next((m.quote for m in assessment.misconceptions if m.misconception == wrong.id), "")
        return (
            f" First say plainly that this claim of theirs does not hold, without giving the correction: "
            f"{wrong.statement}" + (f"\nTheir words:\n{as_data(said)}" if said else "")
        )
    if Flag.other_concept in assessment.flags and not assessment.covered:
        return " First say that their answer explained a neighbouring concept rather than the one asked."
    return ""
