"""Provider faults: sessions on the LLM brain against a scripted local provider that times out, answers
429/500, sends invalid JSON, cuts its stream or goes down; every turn must be answered (by the model
or the offline fallback, visibly) and every answer kept."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from evals.selftest.adversarial import adversarial_answers
from evals.selftest.suite import Suite
from knowledge.bank import Bank

if TYPE_CHECKING:  # langchain_core comes with langgraph; only its types are used here
    from langchain_core.runnables import RunnableConfig

    from common.settings import LLMSettings
    from evals.scripted_provider import LLMServer


def _llm_settings(url: str) -> LLMSettings:
    from pydantic import SecretStr

    from common.settings import LLMSettings

    return LLMSettings(
        model="openai/selftest", api_base=url, api_key=SecretStr("sk-selftest"), timeout_s=2.0, retries=0
    )


async def _session_with_fault(bank: Bank, provider: LLMServer, fault: str) -> str | None:
    """One question, two answers, on the LLM brain; the first answer's assessment meets the fault.
    Returns a problem, or None when every turn was answered and kept."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from agent.brains.llm.brain import LLMBrain
    from agent.interview.events import Reply
    from agent.interview.graph import InterviewContext, builder
    from agent.interview.retrieval import NotesRetriever
    from agent.interview.runner import checkpoint_serde
    from agent.planning import PlanRequest, make_plan
    from agent.state import CandidateAction, InterviewInput
    from evals import scripted_provider as sp

    script = {
        "timeout": ([sp.Reply(content=json.dumps(sp.DEFAULT_VERDICT), delay_s=4.0)], []),
        "429": ([sp.failure(429)], []),
        "500": ([sp.failure(500)], []),
        "invalid JSON": ([sp.text("this is not JSON"), sp.text("{still not json")], []),
        "cut stream": (
            [sp.verdict(depth=0)],
            [sp.text("Tell me more about the ratio and the clipping range", cut_after=2)],
        ),
        "provider down": ([], []),
    }[fault]
    provider.script(assess=script[0], follow_up=script[1])
    if fault == "provider down":
        provider.stop()
    graph = builder.compile(checkpointer=InMemorySaver(serde=checkpoint_serde()))
    context = InterviewContext(bank=bank, brain=LLMBrain(_llm_settings(provider.url)), retriever=NotesRetriever())
    config: RunnableConfig = {"configurable": {"thread_id": f"selftest-{fault}"}}
    answers = [
        "PPO clips the probability ratio so that one update cannot move the policy too far.",
        "It takes the minimum of the clipped and unclipped terms, which makes the objective pessimistic.",
    ]
    request = PlanRequest(ids=["algo-07"])
    payload: InterviewInput | Command[Any] = InterviewInput(
        session_id=f"selftest-{fault}", request=request, plan=make_plan(bank, request), lang="en", max_follow_ups=3
    )
    for answer in [*answers, None]:
        await graph.ainvoke(payload, config, context=context)
        if not (await graph.aget_state(config)).interrupts:
            break
        reply = (
            Reply(action=CandidateAction.skip, text="")
            if answer is None
            else Reply(action=CandidateAction.answer, text=answer)
        )
        payload = Command(resume=reply)
    turns = (await graph.aget_state(config)).values["turns"]
    kept = [t.answer for t in turns if t.action.value == "answer"]
    if kept != answers:
        return f"answers kept {len(kept)} of {len(answers)}"
    if any(t.assessment is None for t in turns):
        return "a turn was not assessed"
    first = turns[0].assessment
    if fault not in ("cut stream",) and (first.brain != "offline" or not first.fallback_reason):
        return "the fallback to the offline brain is not visible"
    return None


async def _obeying_model(bank: Bank, provider: LLMServer) -> Suite:
    """The model is talked into "depth 4" by every injection; our verification must not be."""
    from agent.brains.llm.brain import LLMBrain
    from evals import scripted_provider as sp

    suite = Suite("adversarial (model obeys injection)", failure_label="mis-scored")
    brain = LLMBrain(_llm_settings(provider.url))
    for item in adversarial_answers():
        question = bank[item["question"]]
        quote = item["answer"].strip().splitlines()[0][:120]
        provider.assess_replies.clear()  # a reply an earlier answer did not use must not leak into this one
        provider.script(
            assess=[
                sp.verdict(
                    depth=4,
                    key_points=[{"id": kp.id, "status": "covered", "quote": quote} for kp in question.key_points],
                )
            ]
        )
        suite.tried += 1
        assessment = await brain.assess(question, item["answer"], None)
        if assessment.depth > item["max_depth"]:
            suite.failures += 1
            suite.notes.append(f"{item['id']}: depth {assessment.depth} > {item['max_depth']}")
        else:
            suite.survived += 1
    return suite


HUNG_DEADLINE_S = 3.0
HUNG_TIMEOUT_S = 60.0


async def _hung_provider_turn(bank: Bank) -> float:
    """Seconds one judged answer takes against a provider that accepts the connection and never
    answers: the turn's deadline and an offline turn, not the provider's timeout and retries (the
    figure issue 15 asks for, printed here rather than bounded by a timed test)."""
    import time

    from pydantic import SecretStr

    from agent.brains.llm.brain import LLMBrain
    from common.settings import LLMSettings
    from evals.scripted_provider import Hanging

    hung = Hanging()
    settings = LLMSettings(
        model="openai/selftest",
        api_base=hung.url,
        api_key=SecretStr("sk-selftest"),
        timeout_s=HUNG_TIMEOUT_S,
        retries=2,
        turn_deadline_s=HUNG_DEADLINE_S,
    )
    try:
        question = bank["algo-07"]
        brain = LLMBrain(settings)
        started = time.monotonic()
        await brain.assess(
            question, "PPO clips the probability ratio to [1-eps, 1+eps] so each update stays small.", None
        )
        return time.monotonic() - started
    finally:
        hung.close()


def provider_suites(bank: Bank) -> list[Suite]:
    from agent.brains.llm.client import litellm_installed

    faults = Suite("provider faults", failure_label="turns lost")
    if not litellm_installed():
        faults.notes.append("litellm is not installed: pip install 'rl-interview[llm]'")
        return [faults]
    from evals.scripted_provider import LLMServer

    async def run() -> list[Suite]:
        for fault in ("timeout", "429", "500", "invalid JSON", "cut stream", "provider down"):
            provider = LLMServer()
            try:
                faults.tried += 1
                problem = await _session_with_fault(bank, provider, fault)
            finally:
                provider.stop()
            if problem:
                faults.failures += 1
                faults.notes.append(f"{fault}: {problem}")
            else:
                faults.survived += 1
        hung = await _hung_provider_turn(bank)
        faults.tried += 1
        if hung >= HUNG_TIMEOUT_S:
            faults.failures += 1
            faults.notes.append(f"hung provider: the turn waited {hung:.1f} s, for the provider's own timeout")
        else:
            faults.survived += 1
            faults.notes.append(
                f"hung provider: the turn took {hung:.1f} s against its deadline of {HUNG_DEADLINE_S:g} s"
            )
        provider = LLMServer()
        try:
            obeying = await _obeying_model(bank, provider)
        finally:
            provider.stop()
        return [faults, obeying]

    return asyncio.run(run())
