"""`rl-interview bench --model M`: the interviewer's own time on top of the model's, per turn.

Every call the LLM brain makes is timed at its client, so a turn (answer submitted to the next
interviewer turn ready) splits into the model's time and ours (graph, checkpoints, retrieval,
verification); the first streamed token of the follow-up is timed too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from agent.interview.events import Assessed, Token
from common.settings import LLMSettings, Settings
from evals.bench import NEXT_TURN, BenchError, bench_settings, summary

P = ParamSpec("P")
T = TypeVar("T")


class ModelClock:
    """Wraps the brain's model client: the time spent inside model calls since the last reset."""

    def __init__(self, client: Any) -> None:
        self.spent_s = 0.0
        self.calls = 0
        for name in ("complete", "stream"):
            setattr(client, name, self._timed(getattr(client, name)))

    def _timed(self, call: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        async def timed(*args: P.args, **kwargs: P.kwargs) -> T:
            started = time.perf_counter()
            self.calls += 1
            try:
                return await call(*args, **kwargs)
            finally:
                self.spent_s += time.perf_counter() - started

        return timed

    def reset(self) -> None:
        self.spent_s, self.calls = 0.0, 0


async def _model_turns(settings: Settings, answers: list[tuple[str, str]], warmup: int = 1) -> dict[str, Any]:
    from agent.app import open_services
    from agent.planning import PlanRequest
    from agent.state import CandidateAction

    turn_ms, model_ms, overhead_ms, first_token_ms, calls, fallbacks = [], [], [], [], [], 0
    async with open_services(settings) as services:
        brain = services.context.brain
        if not hasattr(brain, "client"):
            raise BenchError("--model did not give an LLM brain")
        clock = ModelClock(brain.client)
        for question_id, answer in answers:
            session = services.interview()
            other = next(q for q in services.bank if q != question_id)
            async for _ in session.start(PlanRequest(ids=[question_id, other]), "en", 3):
                pass
            clock.reset()
            started = time.perf_counter()
            elapsed = first_token = None
            async for event in session.submit(CandidateAction.answer, answer):
                now = (time.perf_counter() - started) * 1000
                if isinstance(event, Token) and first_token is None:
                    first_token = now
                if isinstance(event, Assessed) and event.brain != "llm":
                    fallbacks += 1
                if isinstance(event, NEXT_TURN) and elapsed is None:
                    elapsed = now
            if elapsed is None:
                raise BenchError(f"no interviewer turn followed an answer to {question_id}")
            if warmup:  # the first turn also pays for importing litellm
                warmup -= 1
                continue
            turn_ms.append(elapsed)
            model_ms.append(clock.spent_s * 1000)
            overhead_ms.append(max(elapsed - clock.spent_s * 1000, 0.0))
            calls.append(clock.calls)
            if first_token is not None:
                first_token_ms.append(first_token)
    return {
        "model": settings.llm.model,
        "turn_ms": summary(turn_ms, 1),
        "model_ms": summary(model_ms, 1),
        "overhead_ms": summary(overhead_ms, 1),
        "first_token_ms": summary(first_token_ms, 1) if first_token_ms else None,
        "calls_per_turn_max": max(calls),
        "turns_scored_offline": fallbacks,
    }


def run_llm_bench(llm: LLMSettings, home: Path, turns: int = 8) -> dict[str, Any]:
    from evals.bench import gold_answers, spread

    settings = bench_settings(home, "hash").model_copy(update={"llm": llm})
    answers = spread(gold_answers(), turns + 1)  # one more: the warm-up turn
    report = asyncio.run(_model_turns(settings, answers))
    report["note"] = "model_ms is time inside the model calls; overhead_ms is the rest of the turn (ours)"
    return report
