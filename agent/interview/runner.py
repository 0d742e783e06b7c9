"""Driving one interview session from a front end: start or resume it, submit the candidate's
replies, and receive what the interviewer does as events.

Every reply is written to the session index's inbox before the graph sees it; on resume, a reply
the graph never received is submitted again, so a kill at any point loses nothing.

The end of a session is recorded in one order: the graph's final checkpoint, then the index's
status, then the exported report, and only then is `session_done` passed on. A kill anywhere in
between leaves a state that the next resume (or the next start, `Services.settle`) completes.
"""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.types import Command

from agent.interview.events import Event, Prompted, QuestionDone, Recovered, Reply, SessionDone
from agent.interview.graph import InterviewContext
from agent.interview.report import average_depth, build_report, export_report
from agent.interview.sessions import ENDED, SessionBusy, SessionDBError, SessionIndex, cut_to_nothing
from agent.planning import PlanRequest, choose_wordings, make_plan
from agent.state import CandidateAction, InterviewInput, InterviewState
from common.file_lock import file_lock
from common.settings import Lang, Settings

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

PROCESS_OWNER = uuid.uuid4().hex
"""Who holds the sessions this process drives (their leases in sessions.sqlite): one process, one
driver, however many Interview objects it makes for a session (the TUI makes one per screen)."""


class Interview:
    def __init__(self, graph: Any, context: InterviewContext, index: SessionIndex, session_id: str, reports: Path):
        self.graph = graph
        self.shared_context = context
        self.context = context
        """The context of this session: the shared one, with the bank as this session words it."""
        self.wordings: dict[str, int] = {}
        self.index = index
        self.session_id = session_id
        self.reports = reports
        """The folder the report is exported to when the session ends."""
        self.config = {"configurable": {"thread_id": session_id}}
        self.waiting: Prompted | None = None
        """The interviewer turn waiting for a reply, as last emitted."""
        self.on_question_done: list[Callable[[Interview, str], Awaitable[None]]] = []
        """Called with each closed question's id once its summary is in the saved state (before
        the next interviewer turn or the end of the session is passed on)."""

    @classmethod
    def new_id(cls) -> str:
        return uuid.uuid4().hex[:12]

    async def state(self) -> InterviewState:
        snapshot = await self.graph.aget_state(self.config)
        return snapshot.values

    def _word(self, request: PlanRequest | None) -> None:
        """Ask this session's questions in the wordings its request chose."""
        self.wordings = dict(request.wordings) if request else {}
        self.context = replace(self.shared_context, bank=self.shared_context.bank.worded(self.wordings))

    async def start(self, request: PlanRequest, lang: Lang, max_follow_ups: int) -> AsyncIterator[Event]:
        plan = make_plan(self.shared_context.bank, request)
        if not request.verbatim and not request.wordings:
            seed = self.session_id if request.seed is None else request.seed
            request = request.model_copy(
                update={"wordings": choose_wordings(self.shared_context.bank, plan, seed, self.index.last_wordings())}
            )
        self._word(request)
        payload = InterviewInput(
            session_id=self.session_id, request=request, plan=plan, lang=lang, max_follow_ups=max_follow_ups
        )
        listed = False
        self.index.take(self.session_id, PROCESS_OWNER)
        async for event in self._run(payload):
            if not listed:  # only once the first checkpoint exists, so a listed session can always resume
                self.index.create(self.session_id, plan, lang, self.context.brain.name, request.kind)
                listed = True
            yield event

    async def resume(self, take_over: bool = False) -> AsyncIterator[Event]:
        """Continue exactly where the session stopped, re-submitting a saved but unprocessed reply.
        Refused (SessionBusy) while another live process drives the session, unless `take_over`."""
        snapshot = await self.graph.aget_state(self.config)
        if not snapshot.values:
            raise SessionDBError(f"session {self.session_id} has no saved state")
        self.index.take(self.session_id, PROCESS_OWNER, take_over)
        self._word(snapshot.values.get("request"))
        if snapshot.interrupts:
            self.waiting = Prompted.of_payload(snapshot.interrupts[0].value)
            saved = self.index.saved_answer(self.session_id, self.waiting.turn)
            if saved:
                yield Recovered(self.waiting, saved[0], saved[1])
                reply = Reply(action=CandidateAction(saved[0]), text=saved[1])
                async for event in self._run(Command(resume=reply)):
                    yield event
                return
            yield self.waiting
            return
        if snapshot.next or snapshot.tasks:  # tasks whose writes were saved before a crash count too
            async for event in self._run(None):
                yield event
            return
        async for event in self._ended():  # the graph had ended, but a kill may have come before the rest knew
            yield event

    async def submit(self, action: CandidateAction, text: str = "") -> AsyncIterator[Event]:
        if self.waiting is None:
            raise RuntimeError("the interviewer is not waiting for a reply")
        if not self.index.holds(self.session_id, PROCESS_OWNER):
            # Taken over elsewhere: saving this reply (or a draft) could overwrite the other driver's turn.
            self.waiting = None
            raise SessionBusy(
                f"session {self.session_id} was taken over by another process, so this answer "
                f"was not sent; resume it there, or here with --take-over, and send it again:\n{text}",
                unsent=text,
            )
        self.index.save_answer(self.session_id, self.waiting.turn, action.value, text)
        self.index.clear_draft(self.session_id)  # only once the answer itself is on disk
        async for event in self._run(Command(resume=Reply(action=action, text=text))):
            yield event

    def release(self) -> None:
        """This process stops driving the session (left, paused, ended): another may resume it at
        once. Left with nothing of the candidate's in it, it is closed as empty."""
        self.waiting = None
        self.index.release(self.session_id, PROCESS_OWNER)
        self.index.close_if_empty(self.session_id)

    def kept_anything(self) -> bool:
        """Is anything of the candidate's in the session: a reply or a key sent, or a draft?"""
        return self.index.kept_anything(self.session_id)

    def save_draft(self, text: str) -> None:
        """Keep the answer being written for the waiting turn (a front end calls this as it is typed)."""
        if self.waiting is not None:
            self.index.save_draft(self.session_id, self.waiting.turn, text)

    def save_time(self, seconds: int) -> None:
        """Keep the time the candidate has spent in the session (a front end's clock goes on from it on resume)."""
        self.index.save_time(self.session_id, seconds)

    def time_spent(self) -> int:
        return self.index.time_spent(self.session_id)

    def draft(self) -> str | None:
        """The unsent answer kept for the waiting turn, if any (shown again on resume)."""
        return None if self.waiting is None else self.index.draft(self.session_id, self.waiting.turn)

    async def _run(self, payload: Any) -> AsyncIterator[Event]:
        self.waiting = None
        closed: list[str] = []
        stream = self.graph.astream(
            payload, self.config, context=self.context, stream_mode=["custom", "updates"], durability="sync"
        )
        async for mode, chunk in stream:
            if mode == "custom":
                match chunk:
                    case SessionDone():
                        continue  # the report node emits it before its writes are saved: told below instead
                    case QuestionDone(question=question):
                        closed.append(question)
                yield chunk
            elif "__interrupt__" in chunk:
                await self._question_done(closed)
                self.waiting = Prompted.of_payload(chunk["__interrupt__"][0].value)
                if self.waiting.opens_question and not self.waiting.target:  # the question itself, not a drill's probe
                    question = self.waiting.question
                    self.index.asked_wording(self.session_id, question, self.wordings.get(question, 0))
                yield self.waiting
        if self.waiting is None:  # the graph ended, and its final checkpoint is saved
            async for event in self._ended():
                yield event

    async def _question_done(self, closed: list[str]) -> None:
        """The close node emits `question_done` before its summary is checkpointed; by the next
        interviewer turn (or the report) it is, so the index's average depth is kept and observers
        are told then."""
        if closed:
            self._keep_average(await self.state())
        while closed:
            question = closed.pop(0)
            for observer in self.on_question_done:
                await observer(self, question)

    def _keep_average(self, state: InterviewState) -> None:
        """The mean depth of the questions closed so far, for the session list (`sessions`, History)."""
        self.index.set_average_depth(self.session_id, average_depth(state.get("summaries") or []))

    async def _ended(self) -> AsyncIterator[Event]:
        """`session_done`, once the end of the session is recorded everywhere."""
        status = await self.settle()
        if status is not None:
            yield SessionDone(self.session_id, status)

    async def settle(self) -> str | None:
        """For a session whose graph has ended, record the end where it is not yet (a kill may have
        come first): the profile hears of the last question, the index gets the status, the report
        is exported. Doing any of it again is harmless. The status; None for a session not over."""
        state = await self.state()
        status = state.get("status") if state else None
        if status not in ENDED:
            if state:  # a session an earlier release left listed without its running average
                self._keep_average(state)
            return None
        self._word(state.get("request"))
        await self._question_done([s.question for s in (state.get("summaries") or [])[-1:]])
        row = self.index.get(self.session_id)
        if row is None or row.status != status:
            self.index.finish(self.session_id, status, average_depth(state.get("summaries") or []))
        export_report(build_report(state, self.context.bank, self.context.retriever), self.context.bank, self.reports)
        return status


def checkpoint_serde() -> JsonPlusSerializer:
    """The checkpoint serializer, told which of our models it may deserialize."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from agent.state import SERIALIZED_MODELS

    return JsonPlusSerializer(allowed_msgpack_modules=SERIALIZED_MODELS)


@contextlib.asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[AsyncSqliteSaver]:
    """AsyncSqliteSaver under RL_INTERVIEW_HOME."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = settings.home / "checkpoints.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    serde = checkpoint_serde()
    try:
        async with contextlib.AsyncExitStack() as stack:
            # Switching a new file to WAL and creating the tables can fail at once with "database is
            # locked" (SQLite skips the busy wait there) when two sessions start together on a fresh
            # home: one process at a time does it. It takes milliseconds, so blocking here is fine.
            # The 0-byte check and the connect (which creates the file) are under the same lock: a
            # file another process has just created is 0 bytes for a moment, not damaged.
            with file_lock(path.with_name(path.name + ".lock")):
                if cut_to_nothing(path, lambda: bool(SessionIndex(settings.sessions_db).list())):
                    raise sqlite3.DatabaseError("0 bytes, although the session index lists sessions")
                conn = await stack.enter_async_context(aiosqlite.connect(str(path), timeout=30))
                await conn.execute("PRAGMA journal_mode=WAL")
                saver = AsyncSqliteSaver(conn, serde=serde)
                await saver.setup()
            yield saver
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise _damaged(path, exc) from None
        raise SessionDBError(
            f"the session checkpoints {path} are held by another rl-interview process ({exc}); "
            "try again when it has finished"
        ) from None
    except sqlite3.DatabaseError as exc:
        raise _damaged(path, exc) from None


def _damaged(path: Path, exc: sqlite3.DatabaseError) -> SessionDBError:
    return SessionDBError(
        f"the session checkpoints {path} are damaged ({exc}); move the file aside to start afresh "
        "(your session list and saved answers are in sessions.sqlite, which is separate)"
    )
