"""Simulated candidates: whole sessions played by personas, and automatic checks of the interviewer
that a fixed gold set cannot make (the session ends, nothing is asked twice or after it was shown,
misconceptions are challenged at once, parts come before depth, protests, clarifying questions,
pauses and requests are heard, hints climb a ladder without giving the answer away, quotes are the
candidate's own words, no two lines in a row open alike, stronger candidates score higher).

Personas answer from the bank (key point statements, misconceptions, clarifications) and, for
paraphrase, from the judge's test sentences (`evals/keypoints/test_*.yaml`), never its exemplars.
Each check is a figure: the share of its opportunities the interviewer got right.
"""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING, Any, cast

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agent.brains.brain import Brain
from agent.interview.events import QuestionDone, Reply
from agent.interview.graph import InterviewContext, builder
from agent.interview.report import build_report
from agent.interview.retrieval import Retriever
from agent.interview.runner import checkpoint_serde
from agent.planning import PlanRequest, make_plan
from agent.state import CandidateAction, InterviewInput, InterviewState
from knowledge.bank import Bank

if TYPE_CHECKING:  # langchain_core comes with langgraph; only its types are used here
    from langchain_core.runnables import RunnableConfig
from evals.personas import PERSONAS, SESSION_LANG
from evals.session_checks import CHECKS, SessionRun, inspect

MAX_STEPS = 200
"""Replies a session may take before it is counted as one that does not end."""


async def play(
    persona: str,
    seed: int,
    bank: Bank,
    brain: Brain,
    retriever: Retriever,
    questions: int = 4,
    max_follow_ups: int = 3,
    max_hints: int = 2,
) -> SessionRun:
    graph = builder.compile(checkpointer=InMemorySaver(serde=checkpoint_serde()))
    context = InterviewContext(bank=bank, brain=brain, retriever=retriever, max_hints=max_hints)
    config: RunnableConfig = {"configurable": {"thread_id": f"{persona}-{seed}"}}
    lang = SESSION_LANG.get(persona, "en")
    rng = random.Random(seed)
    answer_for = PERSONAS[persona]
    request = PlanRequest(questions=questions, seed=seed)
    payload: InterviewInput | Command[Any] = InterviewInput(
        session_id=f"{persona}-{seed}",
        request=request,
        plan=make_plan(bank, request),
        lang=lang,
        max_follow_ups=max_follow_ups,
    )
    waited: list[dict[str, Any]] = []
    sent: list[str] = []
    closes: dict[str, str | None] = {}
    """What the interviewer said as each question closed (`QuestionDone.said`)."""
    ended = False
    for _ in range(MAX_STEPS):
        async for event in graph.astream(payload, config, context=context, stream_mode="custom"):
            if isinstance(event, QuestionDone):
                closes[event.question] = event.said
        snapshot = await graph.aget_state(config)
        if not snapshot.interrupts:
            ended = True
            break
        turn = dict(snapshot.interrupts[0].value)
        seen = sum(1 for w in waited if w["question"] == turn["question"])
        reply = answer_for(bank[turn["question"]], turn, rng, seen)
        waited.append(turn)
        sent.append(reply["text"])
        payload = Command(resume=Reply(action=CandidateAction(reply["action"]), text=reply["text"]))
    state = cast(InterviewState, (await graph.aget_state(config)).values)  # the graph's state schema
    report = build_report(state, bank, context.retriever)
    depths = [q.depth for q in report.questions]
    run = SessionRun(persona, seed, sum(depths) / len(depths) if depths else 0.0, depths)
    run.check("session ends", ended, "the session did not end")
    inspect(run, state, waited, sent, bank, max_follow_ups, max_hints, lang, closes)
    last_depth = {t.question: t.assessment.depth for t in state["turns"] if t.assessment}
    run.check(
        "report matches the transcript",
        [q.question for q in report.questions] == state["plan"]
        and all(q.depth == last_depth.get(q.question, 0) for q in report.questions),
    )
    return run


def simulate(n: int, bank: Bank, brain: Brain, retriever: Retriever) -> dict[str, Any]:
    async def run_all() -> list[SessionRun]:
        return await asyncio.gather(*(play(p, seed, bank, brain, retriever) for seed in range(n) for p in PERSONAS))

    runs = asyncio.run(run_all())
    by = {(r.persona, r.seed): r for r in runs}
    ordered = [
        by[("strong", s)].average_depth > by[("average", s)].average_depth > by[("weak", s)].average_depth
        for s in range(n)
    ]
    totals: dict[str, list[int]] = {name: [0, 0] for name in CHECKS}
    for r in runs:
        for name, (passed, of) in r.checks.items():
            totals[name][0] += passed
            totals[name][1] += of
    return {
        "sessions": len(runs),
        "violations": [f"{r.persona} seed {r.seed}: {v}" for r in runs for v in r.violations],
        "checks": {
            name: {"passed": p, "of": o, "rate": round(p / o, 3) if o else None} for name, (p, o) in totals.items()
        },
        "ordering_rate": round(sum(ordered) / len(ordered), 3) if ordered else None,
        "average_depth": {p: round(sum(r.average_depth for r in runs if r.persona == p) / n, 2) for p in PERSONAS},
    }


def render(result: dict[str, Any]) -> str:
    """The figures as text: one line per interviewer check, then the violations and the personas."""
    lines = [f"{result['sessions']} simulated sessions ({len(PERSONAS)} personas); interviewer checks:"]
    for name, figure in result["checks"].items():
        rate = "-" if figure["rate"] is None else f"{figure['rate']:.1%}"
        lines.append(f"  {rate:>6}  {name} ({figure['passed']}/{figure['of']})")
    lines.append(f"violations: {len(result['violations'])}")
    lines += [f"  {v}" for v in result["violations"][:20]]
    lines.append(f"strong > average > weak in {result['ordering_rate']:.0%} of paired runs")
    lines.append("average depth by persona: " + ", ".join(f"{p} {d}" for p, d in result["average_depth"].items()))
    return "\n".join(lines)
