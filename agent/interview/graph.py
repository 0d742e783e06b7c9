"""The interviewer graph. `builder` is uncompiled: the app compiles it with AsyncSqliteSaver, tests
with InMemorySaver. Routing lives in each node's `Command[Literal[...]]` signature.

plan -> ask -(answer)-> retrieve -> assess -> decide -(probe/hint)-> follow_up -> ask
                                                    \\-(move on)-> close -> ask (next) | report

A reply that only asks something of the interviewer (a clarifying question, "can you repeat",
"let me think") is answered in `ask` itself and the same question waits again: it costs no
follow-up and is not judged. "I already said that" is judged on what it adds and on the earlier
answers it points to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, cast

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from agent.brains.brain import Brain
from agent.brains.listening import partly_said
from agent.brains.parts import coverage_with_earlier
from agent.brains.request import WriteRequest
from agent.brains.wording import claim_of, claim_quote, closing_reply, point_behind, probe_text, respond
from agent.interview.events import (
    Assessed,
    PartShown,
    Prompted,
    QuestionDone,
    Reply,
    SessionDone,
    Streamed,
    Token,
    WrongShown,
)
from agent.interview.policy import Limits, decide, stalls_after
from agent.interview.replies import (
    ANSWERED_IN_PLACE,
    has_content,
    judge_reply,
    judged_text,
    mark_hinted,
    read_reply,
    unchanged,
)
from agent.interview.retrieval import Retriever
from agent.judge.misattribution import puts_right
from agent.judge.scoring import depth_with_earlier, reason_in
from agent.judge.trends import states_right
from agent.state import (
    Amended,
    Assessment,
    CandidateAction,
    Decision,
    Evidence,
    Heard,
    InterviewInput,
    InterviewState,
    MisconceptionHit,
    Pending,
    PromptKind,
    QuestionProgress,
    QuestionSummary,
    Reference,
    Turn,
    progress_of,
)
from agent.text import admits_a_gap, sentences
from knowledge.bank import Bank
from knowledge.models import Part, Question


@dataclass(frozen=True)
class InterviewContext:
    """The collaborators every node uses; passed at invocation, never stored in the checkpoint."""

    bank: Bank
    brain: Brain
    retriever: Retriever
    max_hints: int = 2
    """Hints per question, each a rung further up the key point's ladder."""


def _pending(state: InterviewState) -> Pending:
    """What the candidate is being asked: set by `plan` and kept until `report` ends the graph."""
    pending = state["pending"]
    assert pending is not None
    return pending


def _emit(runtime: Runtime[InterviewContext], event: Streamed) -> None:
    """Tell the front end as it happens. The stream is not checkpointed, so events go as they are."""
    runtime.stream_writer(event)


def _new_question(state: InterviewInput, position: int, bank: Bank) -> dict[str, Any]:
    qid = state["plan"][position]
    lang = state.get("lang", "en")
    opener = state["request"].openers.get(qid)
    if opener:  # a drill: start from the key point missed last time; never probe it twice
        pending = Pending(question=qid, kind="ask", text=bank[qid].key_point(opener).probe.get(lang), target=opener)
    else:
        pending = Pending(question=qid, kind="ask", text=bank[qid].prompt.get(lang))
    return {"position": position, "pending": pending, "progress": QuestionProgress(probed=(opener,) if opener else ())}


def plan(state: InterviewInput, runtime: Runtime[InterviewContext]) -> Command[Literal["ask"]]:
    """Start the session on the first question of its plan (made by whoever started it)."""
    return Command(
        update={"summaries": [], "status": "active", "ending": False, **_new_question(state, 0, runtime.context.bank)},
        goto="ask",
    )


def ask(state: InterviewState, runtime: Runtime[InterviewContext]) -> Command[Literal["ask", "retrieve", "close"]]:
    """Wait for the candidate. The reply lands in `turns` (and so in the checkpoint) before anything
    else happens with it."""
    pending = _pending(state)
    prompt = Prompted(
        kind=pending.kind,
        question=pending.question,
        text=pending.text,
        number=state["position"] + 1,
        of=len(state["plan"]),
        turn=len(state["turns"]),
        follow_ups=progress_of(state).follow_ups,
        target=pending.target,
        base=pending.base,
        answering=pending.answering,
    )
    reply: Reply = interrupt(asdict(prompt))  # checkpoints keep plain dicts: what a front end reads back
    # A reply saved by an earlier release holds the action's value, a str: read both the same way.
    action = CandidateAction(reply.get("action", CandidateAction.answer))
    text = str(reply.get("text", ""))
    if action is CandidateAction.repeat:
        turns = state.get("turns") or []
        if turns and turns[-1].heard in (Heard.wait, Heard.clarify):
            # The line on screen answered a pause or a question back: say the question again instead.
            again = pending.model_copy(update={"text": pending.asking, "base": None, "answering": None})
            return Command(update={"pending": again}, goto="ask")
        return Command(goto="ask")
    if action is CandidateAction.end:
        return Command(update={"ending": True}, goto="close")
    action, heard = read_reply(action, text, runtime.context.bank[pending.question])
    if heard is Heard.terse and pending.answering == Heard.terse.value:
        heard = None  # asked why once already: this bare yes or no is the answer, judged as it stands
    turn = Turn(
        question=pending.question,
        kind=pending.kind,
        asked=pending.text,
        target=pending.target,
        action=action,
        answer=text,
        heard=heard,
    )
    if heard in ANSWERED_IN_PLACE:
        spoken = state.get("spoken", 0)
        line = respond(
            heard.value, runtime.context.bank[pending.question], state.get("lang", "en"), spoken, pending.asking, text
        )
        replying = heard.value if heard is not Heard.repeat else None  # a repeat asks again
        again = pending.model_copy(update={"text": line, "base": pending.asking, "answering": replying})
        return Command(update={"turns": turn, "pending": again, "spoken": spoken + 1}, goto="ask")
    return Command(update={"turns": turn}, goto="retrieve")


def retrieve(state: InterviewState, runtime: Runtime[InterviewContext]) -> Command[Literal["assess"]]:
    """Reference material for the question, and the chunks closest to what the candidate said."""
    qid = _pending(state).question
    said = judged_text(state["turns"][-1])  # the judge's own sentences: their vectors serve both
    progress = progress_of(state)
    base = progress.references or runtime.context.retriever.references(qid)
    near = runtime.context.retriever.references(qid, said, k=2) if said.strip() else []
    merged: dict[tuple[str, str], Reference] = {(r.source, r.text): r for r in [*near, *base]}
    return Command(
        update={"progress": progress.model_copy(update={"references": tuple(merged.values())})}, goto="assess"
    )


async def assess(state: InterviewState, runtime: Runtime[InterviewContext]) -> Command[Literal["decide"]]:
    turn = state["turns"][-1]
    question = runtime.context.bank[turn.question]
    progress = progress_of(state)
    prior = progress.assessment
    brain = runtime.context.brain
    remembered = {}
    if has_content(turn):
        brain.recall(state.get("brain_memory"))
    on_question = [t for t in state["turns"] if t.question == turn.question]
    assessment = await judge_reply(brain, question, turn, prior, on_question[:-1])
    if has_content(turn):
        remembered = {"brain_memory": brain.remember()}
    assessment = mark_hinted(assessment, turn, progress.hints)
    stalls = stalls_after(progress, assessment, first_reply=turn.kind == "ask")
    _emit(
        runtime,
        Assessed(
            question=question.id,
            depth=_drill_depth(state, question, assessment, on_question[:-1]),
            covered=tuple(e.key_point for e in assessment.covered),
            missed=tuple(assessment.missed),
            flags=tuple(f.value for f in assessment.flags),
            brain=assessment.brain,
            fallback_reason=assessment.fallback_reason,
        ),
    )
    return Command(
        update={
            "turns": Amended(turn=turn.model_copy(update={"assessment": assessment})),
            "progress": progress.model_copy(update={"assessment": assessment, "stalls": stalls}),
            **remembered,
        },
        goto="decide",
    )


def decide_next(state: InterviewState, runtime: Runtime[InterviewContext]) -> Command[Literal["follow_up", "close"]]:
    turn = state["turns"][-1]
    question = runtime.context.bank[turn.question]
    on_question = [t for t in state["turns"] if t.question == turn.question]
    limits = Limits(follow_ups=state["max_follow_ups"], hints=runtime.context.max_hints)
    decision = next_decision(question, _with_earlier_drills(state, question), on_question, limits)
    return Command(
        update={"turns": Amended(turn=turn.model_copy(update={"decision": decision}))},
        goto="close" if decision.action == "move_on" else "follow_up",
    )


def next_decision(question: Question, progress: QuestionProgress, on_question: list[Turn], limits: Limits) -> Decision:
    """The next move after the last of `on_question` (the question's turns so far, assessed): what
    the candidate has partly said and asked for is read from the turns, then `policy.decide`."""
    turn = on_question[-1]
    assessment = progress.assessment
    assert assessment is not None  # `assess` always runs before `decide`
    partly = partly_said(question, assessment, on_question)
    decision = decide(question, progress, turn.action, limits, heard=turn.heard, partly=tuple(partly))
    if turn.heard is Heard.already_said:
        evidence = _credited(question, assessment, turn.target)
        if evidence is None:
            return decision.model_copy(update={"said": None})
        point = question.key_point(evidence.key_point)
        # Found only in the protest itself: counted, but not as something said before (a trial was
        # told "你确实讲过：…" over a sentence it had just written).
        earlier = " ".join(" ".join(t.answer.split()) for t in on_question[:-1])
        quote = " ".join(evidence.quote.split())
        now = quote in " ".join(turn.answer.split()) and quote not in earlier
        said = claim_quote(evidence.quote, point.cues.all(), claim_of(point))
        return decision.model_copy(update={"said": said, "said_now": now})
    if decision.target in partly:
        return decision.model_copy(update={"said": partly[decision.target]})
    return decision


async def follow_up(state: InterviewState, runtime: Runtime[InterviewContext]) -> Command[Literal["ask"]]:
    turn = state["turns"][-1]
    decision = turn.decision
    progress = progress_of(state)
    assessment = progress.assessment
    assert decision is not None and assessment is not None  # `follow_up` comes only from `decide`, after `assess`
    question = runtime.context.bank[turn.question]
    brain = runtime.context.brain
    brain.recall(state.get("brain_memory"))
    spoken = state.get("spoken", 0)
    on_question = [t for t in state["turns"] if t.question == turn.question]
    request = WriteRequest(
        question,
        decision,
        assessment,
        tuple(progress.references),
        state.get("lang", "en"),
        spoken,
        progress.probed,
        partly_said(question, assessment, on_question),
    )
    text = await brain.write(request, on_token=lambda token: _emit(runtime, Token(token)))
    kind: PromptKind = "hint" if decision.action == "hint" else "follow_up"
    return Command(
        update={
            "pending": Pending(
                question=question.id,
                kind=kind,
                text=text,
                target=decision.target,
                base=_asking(question, decision, text, state.get("lang", "en")),
            ),
            "progress": progress.model_copy(
                update={
                    # A hint's challenged claim counts as asked: it is not challenged again.
                    "probed": tuple(
                        dict.fromkeys([*progress.probed, *filter(None, [decision.challenge]), decision.target])
                    ),
                    # a hint asked for once the follow-ups are spent is the candidate's, not one more of ours
                    "follow_ups": min(progress.follow_ups + 1, state["max_follow_ups"]),
                    "hints": (*progress.hints, decision.target) if kind == "hint" else progress.hints,
                }
            ),
            "spoken": spoken + 1,
            "brain_memory": brain.remember(),
        },
        goto="ask",
    )


def _with_earlier_drills(state: InterviewState, question: Question) -> QuestionProgress:
    """The question's progress as a drill decides on it: what earlier drills showed counts as shown,
    so it is neither asked again nor its part called unanswered (a drill asked "a part you haven't
    answered yet" about one the previous session had credited)."""
    progress = progress_of(state)
    before = set(_shown_before(state, question))
    assessment = progress.assessment
    if not before or assessment is None:
        return progress
    earlier = [
        Evidence(key_point=kp, level=question.key_point(kp).level, quote="", how="recalled")
        for kp in assessment.missed
        if kp in before
    ]
    missed = [kp for kp in assessment.missed if kp not in before]
    known = assessment.model_copy(update={"covered": [*assessment.covered, *earlier], "missed": missed})
    return progress.model_copy(update={"assessment": known})


def _drill_depth(state: InterviewState, question: Question, assessment: Assessment, turns: Sequence[Turn]) -> int:
    """The depth a drilled question reports: once the point it opened on is shown, with no wrong
    claim stated on it, what everything shown on it so far supports, as the profile rates it; else
    its own. An interview question's is its own."""
    request = state.get("request")
    opener = request.openers.get(question.id) if request else None
    shown = [e.key_point for e in assessment.covered]
    wrong = any(t.assessment and t.assessment.misconceptions for t in turns) or assessment.misconceptions
    if request is None or opener not in shown or wrong:
        return assessment.depth
    return depth_with_earlier(question, assessment.depth, shown, request.shown_before(question))


def _shown_before(state: InterviewState, question: Question) -> list[str]:
    request = state.get("request")
    return request.shown_before(question) if request else []


def _unshown_part(state: InterviewState, question: Question, covered: list[Evidence]) -> Part | None:
    """The first part of an answered question nothing was shown on. None for a question that opened
    on one key point's probe (a drill's), which asked for no more than that point."""
    request = state.get("request")
    if not covered or (request and question.id in request.openers):
        return None
    shown = {e.key_point for e in covered}
    return next((p for p in question.parts if not any(kp.id in shown for kp in question.points_of(p.id))), None)


def close(state: InterviewState, runtime: Runtime[InterviewContext]) -> Command[Literal["ask", "report"]]:
    """Sum up the question; then the next one, or the report."""
    bank = runtime.context.bank
    qid = _pending(state).question
    turns = [t for t in state["turns"] if t.question == qid]
    summaries = state["summaries"]
    progress = progress_of(state)
    if turns:
        assessment = progress.assessment or unchanged(bank[qid], None, CandidateAction.skip)
        # Each wrong claim as first said: a later turn's reading of it is a repeat, or a misreading of the retraction.
        all_misconceptions: dict[str, MisconceptionHit] = {}
        for t in turns:
            for m in t.assessment.misconceptions if t.assessment else []:
                all_misconceptions.setdefault(m.misconception, m)
        depth = _drill_depth(state, bank[qid], assessment, turns)
        summary = QuestionSummary(
            question=qid,
            depth=depth,
            reason=reason_in(bank[qid], assessment, state.get("lang", "en"), _shown_before(state, bank[qid]), depth),
            covered=assessment.covered,
            missed=assessment.missed if assessment.covered else [kp.id for kp in bank[qid].key_points],
            misconceptions=put_right_later(turns, list(all_misconceptions.values()), bank[qid]),
            model_answer=bank[qid].model_answer,
            references=list(progress.references) or runtime.context.retriever.references(qid),
            skipped=all(t.action is CandidateAction.skip for t in turns),
        )
        summaries = [*summaries, summary]
        lang = state.get("lang", "en")
        coverage = coverage_with_earlier(bank[qid], summary.covered, _shown_before(state, bank[qid]))
        _emit(
            runtime,
            QuestionDone(
                question=qid,
                depth=summary.depth,
                parts=tuple(PartShown.of_coverage(c, lang) for c in coverage),
                hinted=tuple(e.key_point for e in summary.covered if e.hinted),
                said=closing_reply(
                    bank[qid],
                    turns[-1].decision,
                    lang,
                    state.get("spoken", 0),
                    _unchallenged(turns, progress.probed, bank[qid]),
                    last=turns[-1].action,
                    unshown=_unshown_part(state, bank[qid], summary.covered),
                    admitted=turns[-1].action is CandidateAction.answer and admits_a_gap(turns[-1].answer),
                ),
                wrong=_wrong_shown(summary.misconceptions),
                capped_by=summary.capped_by,
            ),
        )
    position = state["position"] + 1
    if state.get("ending") or position >= len(state["plan"]):
        return Command(update={"summaries": summaries}, goto="report")
    return Command(update={"summaries": summaries, **_new_question(state, position, bank)}, goto="ask")


def _wrong_shown(hits: list[MisconceptionHit]) -> tuple[WrongShown, ...]:
    """Each wrong sentence once (one swapping two owners is one wrong claim to the candidate), put
    right if any of its claims was."""
    put_right: dict[str, str | None] = {}
    for hit in hits:
        put_right[hit.quote] = put_right.get(hit.quote) or hit.put_right
    return tuple(WrongShown(quote, right) for quote, right in put_right.items())


def put_right_later(turns: list[Turn], hits: list[MisconceptionHit], question: Question) -> list[MisconceptionHit]:
    """Each wrong claim with the later sentence on the question that put it right: a term given back
    to its owner (a trial's candidate corrected a swap and still read it as standing), or the key
    point a misconception of the bank gets wrong, shown in a later answer (blind trial 40's candidate
    derived E[∇log π · b] = 0 after the challenge, and the report still listed the claim as held)."""
    out = []
    for hit in hits:
        said = next(i for i, t in enumerate(turns) if t.assessment and hit in t.assessment.misconceptions)
        later = [s for t in turns[said + 1 :] for s in sentences(t.answer)]
        right = next(
            (s for s in later if puts_right(hit.misconception, hit.quote, s) or states_right(hit.misconception, s)),
            None,
        )
        right = right or _shows_what_it_gets_wrong(question, hit, turns[said + 1 :])
        out.append(hit.model_copy(update={"put_right": right}) if right else hit)
    return out


def _shows_what_it_gets_wrong(question: Question, hit: MisconceptionHit, later: list[Turn]) -> str | None:
    """The evidence, quoted from a later answer, of the key point the bank's misconception gets wrong."""
    try:
        behind = point_behind(question, question.misconception(hit.misconception)).id
    except KeyError:
        return None  # a term given to the wrong owner, not one of the bank's misconceptions
    for turn in later:
        for e in turn.assessment.covered if turn.assessment else []:
            if e.key_point == behind and e.quote and e.quote in turn.answer:
                return e.quote
    return None


def _unchallenged(turns: list[Turn], probed: Sequence[str], question: Question) -> tuple[Assessment, str] | None:
    """The latest wrong claim on the question that no follow-up or hint challenged, with the
    assessment that holds it: the candidate must not leave the question believing it. A sentence
    challenged for one of its wrong claims was challenged: one that swaps two owners is one
    confusion (a trial's candidate, challenged on it and corrected, heard it "reminded" at the close)."""
    assessed = [t.assessment for t in reversed(turns) if t.assessment is not None]
    challenged = {hit.quote for a in assessed for hit in a.misconceptions if hit.misconception in probed}
    for assessment in assessed:
        hits = put_right_later(turns, assessment.misconceptions, question)
        for hit in hits:
            if hit.misconception not in probed and hit.quote not in challenged and not hit.put_right:
                return assessment, hit.misconception
    return None


def _credited(question: Question, assessment: Assessment, target: str | None) -> Evidence | None:
    """After a protest, the evidence to acknowledge: what shows the key point it was about, or, for a
    protest at a question or probe that is not one key point, the best of what the reply itself
    added; None when nothing is found. Another point the reply showed is not what was protested:
    "You're right, you did: ... I'll count that" over it told a user that the target was counted."""
    shown = {e.key_point: e for e in assessment.covered}
    if target is not None and target in {kp.id for kp in question.key_points}:
        return shown.get(target)
    fresh = [shown[kp] for kp in assessment.new if kp in shown]
    return max(fresh, key=lambda e: e.level, default=None)


def _asking(question: Question, decision: Decision, text: str, lang: str) -> str | None:
    """The question inside a follow-up line (the probe or the hint, without the acknowledgement in
    front), for a repeat or a clarification to ask again; None when the line is all question."""
    assert decision.target is not None  # `policy.decide` names one for every probe and hint
    if decision.action == "hint":
        point = question.key_point(decision.target)
        asked = point.hints[decision.rung].get(lang) if decision.rung < len(point.hints) else None
    else:
        asked = probe_text(question, decision.target, lang)
    return asked if asked and asked in text and asked != text else None


def report(state: InterviewState, runtime: Runtime[InterviewContext]) -> Command[Literal["__end__"]]:
    status = "ended" if state.get("ending") else "finished"
    _emit(runtime, SessionDone(state["session_id"], status))
    return Command(update={"status": status, "pending": None}, goto=cast(Literal["__end__"], END))


builder = StateGraph(InterviewState, input_schema=InterviewInput, context_schema=InterviewContext)
builder.add_node("plan", plan)
builder.add_node("ask", ask)
builder.add_node("retrieve", retrieve)
builder.add_node("assess", assess)
builder.add_node("decide", decide_next)
builder.add_node("follow_up", follow_up)
builder.add_node("close", close)
builder.add_node("report", report)
builder.add_edge(START, "plan")
