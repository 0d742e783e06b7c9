"""The LLM brain: any model litellm supports, behind the same protocol as the offline brain.

Per candidate turn, at most two calls: one judges the answer (structured JSON, one repair call if
the reply is unusable, in which case the follow-up is phrased offline), one streams the follow-up.
Whatever goes wrong (timeout, 429 or 5xx after litellm's retries, invalid JSON after the repair, a
cut stream, a provider that is down, the session's budget spent, the turn's deadline passed), that
turn is judged by the offline brain and marked with the reason; the next turn asks the model again.
A turn has one deadline (`llm.turn_deadline_s`) for all its calls and their retries together: the
time it may spend waiting on the model (not on litellm's one-time import, nor on a free call slot).

What the brain remembers of a session (the budget spent, the follow-up's cost not yet reported, the
conversation) is handed to the graph after each call and taken back from it before the next
(`remember`/`recall`), so it is saved with the session and survives a resume.

Figures per turn (tokens, cost, latency) land on the Assessment: those of the call that wrote the
line the candidate answered plus those of the call that judged the answer.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pydantic import ValidationError

from agent.brains.brain import OfflineBrain, TokenSink
from agent.brains.llm.client import LLMFailure, ModelClient, Reply, Usage
from agent.brains.llm.prompts import assess_messages, follow_up_messages, repair_messages, verdict_schema
from agent.brains.llm.verify import verified_assessment
from agent.brains.request import WriteRequest
from agent.judge.meaning import MeaningJudge
from agent.state import Assessment, BrainMemory, LLMVerdict, ModelUse
from common.settings import LLMSettings
from common.terminal import clean_for_display
from knowledge.models import Question

CALLS_PER_TURN = 2
CONCURRENT_CALLS = 4
"""Calls in flight at once (the eval replays many transcripts together)."""
BUDGET_SPENT = "budget spent"
FOLLOW_UP_CHARS = 600
FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


@dataclass
class _Session:
    """What the brain remembers about one interview session (or one replayed transcript); the
    fields are those of BrainMemory, but the turn's time left, which is this process's own."""

    spent_usd: float = 0.0
    carried: Usage = field(default_factory=Usage)
    calls: int = 0
    last: Assessment | None = None
    question: str | None = None
    exchange: list[tuple[str, str]] = field(default_factory=list)
    time_left: float | None = None
    """Seconds the current candidate turn may still wait on the model (None: the whole deadline)."""


def session_key() -> str:
    """The interview's thread id inside the graph; elsewhere (the eval replay) the asyncio task."""
    try:
        from langgraph.config import get_config

        return str(get_config()["configurable"]["thread_id"])
    except (RuntimeError, KeyError):
        return f"task-{id(asyncio.current_task())}"


class LLMBrain:
    name = "llm"

    def __init__(self, settings: LLMSettings, answer_limit_chars: int = 20_000, judge: MeaningJudge | None = None):
        self.settings = settings
        self.answer_limit_chars = answer_limit_chars
        self.offline = OfflineBrain(answer_limit_chars, judge)
        self.client = ModelClient(settings)
        self._sessions: dict[str, _Session] = {}
        self._gates: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}

    def _session(self) -> _Session:
        return self._sessions.setdefault(session_key(), _Session())

    def remember(self) -> BrainMemory:
        session = self._session()
        return BrainMemory(
            spent_usd=session.spent_usd,
            carried=ModelUse(**session.carried.as_fields()),
            calls=session.calls,
            last=session.last,
            question=session.question,
            exchange=session.exchange,
        )

    @property
    def judge(self) -> MeaningJudge | None:
        return self.offline.judge

    def recall(self, memory: BrainMemory | None) -> None:
        session = self._session()
        saved = memory or BrainMemory()
        session.spent_usd, session.carried = saved.spent_usd, Usage(**saved.carried.model_dump())
        session.calls, session.last, session.question = saved.calls, saved.last, saved.question
        session.exchange = list(saved.exchange)

    def _budget_spent(self, session: _Session) -> bool:
        return self.settings.max_cost is not None and session.spent_usd >= self.settings.max_cost

    def _new_turn(self, session: _Session) -> None:
        session.calls, session.time_left = 0, None

    def _late(self, usage: Usage | None = None) -> LLMFailure:
        return LLMFailure(f"no reply within the turn's {self.settings.turn_deadline_s:g} s", usage, kind="timeout")

    async def _call(self, session: _Session, make_call: Callable[[], Awaitable[Reply]]) -> Reply:
        """One model call, counted for the turn and charged to the session's budget, failed or not,
        and cut off at the turn's deadline."""
        if self._budget_spent(session):
            raise LLMFailure(BUDGET_SPENT)
        await self.client.ready()
        loop = asyncio.get_running_loop()
        async with self._gates.setdefault(loop, asyncio.Semaphore(CONCURRENT_CALLS)):
            left = self.settings.turn_deadline_s if session.time_left is None else session.time_left
            if left <= 0:
                raise self._late()
            session.calls += 1
            started = loop.time()
            try:
                async with asyncio.timeout(left):
                    reply = await make_call()
            except TimeoutError:
                raise self._late(Usage(latency_ms=(loop.time() - started) * 1000)) from None
            except LLMFailure as failure:
                session.spent_usd += failure.usage.cost_usd or 0.0
                raise
            finally:
                session.time_left = left - (loop.time() - started)
        session.spent_usd += reply.usage.cost_usd or 0.0
        return reply

    async def assess(self, question: Question, answer: str, prior: Assessment | None) -> Assessment:
        session = self._session()
        if session.question != question.id:
            session.question, session.exchange = question.id, []
        session.exchange.append(("candidate", answer))
        self._new_turn(session)
        usage, session.carried = session.carried, Usage()
        try:
            verdict, spent = await self._verdict(session, question, answer, prior)
            # The offline judge's reading is the floor: a model that read the answer may go one level
            # below it, and further only by naming a wrong claim (agent/brains/llm/verify.py).
            offline = await self.offline.assess(question, answer, prior)
            assessment = verified_assessment(
                question, answer, verdict, prior, self.answer_limit_chars, offline=offline, judge=self.offline.judge
            )
            usage = usage + spent
        except LLMFailure as failure:
            usage = usage + failure.usage
            scored = await self.offline.assess(question, answer, prior)
            assessment = scored.model_copy(update={"fallback_reason": failure.reason})
        session.last = assessment.model_copy(update=usage.as_fields())
        return session.last

    async def _verdict(
        self, session: _Session, question: Question, answer: str, prior: Assessment | None
    ) -> tuple[LLMVerdict, Usage]:
        """The model's verdict, with one repair call if the first reply is not the JSON asked for."""
        messages = assess_messages(question, answer[: self.answer_limit_chars], prior)
        reply = await self._call(session, lambda: self.client.complete(messages, schema=verdict_schema()))
        try:
            return parse_verdict(reply.text), reply.usage
        except ValueError as problem:
            repair = repair_messages(messages, reply.text, str(problem))
            try:
                fixed = await self._call(session, lambda: self.client.complete(repair, schema=verdict_schema()))
            except LLMFailure as failure:
                raise LLMFailure(failure.reason, reply.usage + failure.usage) from None
            try:
                return parse_verdict(fixed.text), reply.usage + fixed.usage
            except ValueError:
                raise LLMFailure("invalid JSON from the model after one repair", reply.usage + fixed.usage) from None

    async def write(
        self,
        request: WriteRequest,
        on_token: TokenSink | None = None,
    ) -> str:
        session = self._session()
        assessment = request.assessment
        if assessment != session.last:
            self._new_turn(session)  # a turn with nothing to judge (a hint request, a skip): no call made yet
        offline_only = assessment == session.last and (assessment.brain != self.name or session.calls >= CALLS_PER_TURN)
        text = None
        if not offline_only:
            messages = follow_up_messages(request, session.exchange)
            try:
                reply = await self._call(session, lambda: self.client.stream(messages, on_token))
                session.carried += reply.usage  # a hint after a follow-up: both are reported with the next answer
                text = usable_line(reply.text)
            except LLMFailure as failure:
                session.carried += failure.usage
        if text is None:
            text = await self.offline.write(request)
        session.exchange.append(("interviewer", text))
        session.last = None
        return text


def parse_verdict(text: str) -> LLMVerdict:
    """The JSON object in a reply (code fences and prose around it tolerated), validated."""
    body = FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the reply")
    try:
        return LLMVerdict.model_validate_json(body[start : end + 1])
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in exc.errors()[:5])
        raise ValueError(problems) from None


def usable_line(text: str) -> str | None:
    """The follow-up as the candidate will read it, or None if the model wrote nothing usable."""
    line = clean_for_display(text).strip().strip('"“”')
    return line if line and len(line) <= FOLLOW_UP_CHARS else None
