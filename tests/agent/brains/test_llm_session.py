"""The LLM brain over whole sessions, against the scripted OpenAI-compatible server on 127.0.0.1
(evals/scripted_provider.py), litellm running for real: what the brain remembers of a session (its
budget, the cost of the follow-up being answered) survives a SIGKILL and a resume, and a turn has one
deadline for all its calls, past which the offline brain answers it.

litellm's import alone takes 6-8 s: hence `slow`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time

import pytest
from agent_helpers import INTERVIEWER_EVENTS, cli_env, reply_bytes, rl_interview, run_cli

from agent.interview.events import Assessed
from agent.planning import PlanRequest
from agent.state import CandidateAction
from evals.scripted_provider import Hanging, LLMServer, Reply, verdict

pytestmark = pytest.mark.slow

KEY = "sk-test-SECRET-123"
PRICED = "openai/gpt-4o-mini"
"""In litellm's local price list, so every scripted call (120 tokens in, 30 out) has the same cost."""
ANSWER = "I would look at how the update changes the policy step by step, answer {n}."


def cost_per_call() -> float:
    """What litellm charges for one scripted call to PRICED."""
    from agent.brains.llm.client import _import_litellm

    prompt, completion = _import_litellm().cost_per_token(model=PRICED, prompt_tokens=120, completion_tokens=30)
    return prompt + completion


class Session:
    """A plain --jsonl session process with the model configured, answering every interviewer turn."""

    def __init__(self, home, server: LLMServer, args: list[str], budget: float):
        env = cli_env(
            home,
            RL_INTERVIEW_LLM__API_KEY=KEY,
            RL_INTERVIEW_LLM__RETRIES="0",
            RL_INTERVIEW_LLM__TIMEOUT_S="60",
            RL_INTERVIEW_LLM__TURN_DEADLINE_S="120",
        )
        command = [
            *rl_interview(),
            "interview",
            "--plain",
            "--jsonl",
            *args,
            "--model",
            PRICED,
            "--api-base",
            server.url,
            "--max-cost",
            repr(budget),
        ]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.watchdog = threading.Timer(240, self.process.kill)
        self.watchdog.start()
        self.events: list[dict] = []

    def answer_until(self, stop) -> None:
        """Answer each interviewer turn until `stop(events)` holds or the session ends."""
        for line in self.process.stdout:
            event = json.loads(line)
            self.events.append(event)
            if stop(self.events) or event["type"] == "session_done":
                return
            if event["type"] in INTERVIEWER_EVENTS:
                self.process.stdin.write(reply_bytes(ANSWER.format(n=len(self.events))))
                self.process.stdin.flush()

    def close(self) -> None:
        self.watchdog.cancel()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)


def test_killed_after_two_model_turns_and_resumed_the_budget_and_the_costs_carry_on(server, tmp_path):
    """Every call costs c and the budget is 6.5 c, so the session may make 7 calls in all. The first
    process makes 4 (two turns: judge, follow-up, judge, follow-up) and is killed while the candidate
    reads the second follow-up; the resumed one may make only 3 more, and the report holds the cost
    of every call, the killed process's last follow-up included."""
    c = cost_per_call()
    home = tmp_path / "home"
    first = Session(home, server, ["--question", "algo-07", "--question", "infra-10"], budget=6.5 * c)
    try:
        first.answer_until(
            lambda events: (
                sum(e["type"] == "assessment" for e in events) == 2 and events[-1]["type"] in INTERVIEWER_EVENTS
            )
        )
        assert [e["type"] for e in first.events] == ["ask", "assessment", "follow_up", "assessment", "follow_up"]
        assert len(server.requests) == 4
        os.kill(first.process.pid, signal.SIGKILL)
    finally:
        first.close()
    [row] = json.loads(run_cli(home, "sessions", "--json").stdout)

    resumed = Session(home, server, ["--resume", row["id"]], budget=6.5 * c)
    try:
        resumed.answer_until(lambda events: False)
        assert resumed.events[-1]["type"] == "session_done", resumed.process.stderr.read().decode()
    finally:
        resumed.close()

    assert len(server.requests) == 7, "the resumed session's budget started again from nothing"
    report = json.loads(run_cli(home, "report", row["id"], "--format", "json").stdout)
    turns = report["transcript"]
    costs = [turn["cost_usd"] or 0.0 for turn in turns]
    assert costs[:3] == pytest.approx(
        [c, 2 * c, 2 * c]
    )  # turn 3: the follow-up written before the kill, and its judging
    assert sum(costs) == pytest.approx(7 * c), "a call's cost is missing from the report"
    spent = [turn for turn in turns if turn["fallback_reason"] == "budget spent"]
    assert spent and spent[-1] is turns[-1], "once the budget is spent, every later turn is offline"
    markdown = run_cli(home, "report", row["id"]).stdout.decode()
    assert f"Total model cost: ${7 * c:.6f}" in markdown


@pytest.fixture
def hanging():
    provider = Hanging()
    yield provider
    provider.close()


def model_settings(agent_home, api_base: str, **llm):
    from common.settings import load_settings

    return load_settings(llm={"model": "openai/test", "api_base": api_base, "api_key": KEY, **llm})


async def submit(interview, text: str) -> list:
    return [event async for event in interview.submit(CandidateAction.answer, text)]


async def test_a_provider_that_never_answers_holds_a_turn_no_longer_than_its_deadline(
    agent_home, hanging, notes_retriever
):
    """litellm alone would wait 60 s for each of three tries; the turn's deadline (2 s) ends it."""
    from agent.app import open_services
    from agent.brains.llm.client import litellm_module

    await litellm_module()  # the import is not the provider's delay
    settings = model_settings(agent_home, hanging.url, timeout_s=60, retries=2, turn_deadline_s=2)
    async with open_services(settings, retriever=notes_retriever) as services:
        interview = services.interview()
        [event async for event in interview.start(PlanRequest(ids=["algo-07"]), "en", 3)]
        started = time.monotonic()
        events = await submit(interview, ANSWER.format(n=1))
        took = time.monotonic() - started
    assessment = next(e for e in events if isinstance(e, Assessed))
    assert (assessment.brain, assessment.fallback_reason) == ("offline", "no reply within the turn's 2 s")
    assert events[-1].type in INTERVIEWER_EVENTS, "the turn did not end with the interviewer's next line"
    assert len(hanging.held) == 1, "the follow-up of a turn past its deadline must not ask the model"
    assert took < 2 + 2, f"the turn took {took:.1f} s"


async def test_after_a_turn_past_its_deadline_the_next_turn_asks_the_model_again(
    agent_home, server, notes_retriever, bank
):
    from agent.app import open_services
    from agent.brains.llm.client import litellm_module

    await litellm_module()
    question = bank["algo-07"]
    level_1 = min(question.key_points, key=lambda kp: kp.level)
    answer = f"The {level_1.cues.en[0]} matters because it keeps the update small."
    server.script(
        assess=[
            Reply(content="{}", delay_s=600),  # accepted, never answered in time
            verdict(key_points=[{"id": level_1.id, "status": "covered", "quote": level_1.cues.en[0]}], depth=1),
        ]
    )
    settings = model_settings(agent_home, server.url, timeout_s=60, retries=2, turn_deadline_s=2)
    async with open_services(settings, retriever=notes_retriever) as services:
        interview = services.interview()
        [event async for event in interview.start(PlanRequest(ids=["algo-07"]), "en", 3)]
        late = await submit(interview, answer)
        again = await submit(interview, answer)
    first, second = (next(e for e in events if isinstance(e, Assessed)) for events in (late, again))
    assert (first.brain, first.fallback_reason) == ("offline", "no reply within the turn's 2 s")
    assert (second.brain, second.fallback_reason) == ("llm", None)
    assert len([r for r in server.requests if not r.get("stream")]) == 2
