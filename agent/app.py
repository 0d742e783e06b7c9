"""The one factory that assembles the interviewer: the CLI, the TUI and the tests all use it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from agent.brains.brain import Brain, OfflineBrain
from agent.interview.graph import InterviewContext, builder
from agent.interview.report import report_exported
from agent.interview.retrieval import Retriever, make_retriever
from agent.interview.runner import Interview, open_checkpointer
from agent.interview.sessions import SessionIndex
from agent.judge.meaning import shared_judge
from agent.learner.profile import Profile, profile_path
from agent.learner.recording import ProfileRecorder
from common.settings import Settings
from knowledge.bank import Bank, load_bank


@dataclass
class Services:
    settings: Settings
    bank: Bank
    index: SessionIndex
    graph: Any
    context: InterviewContext

    @cached_property
    def profile(self) -> Profile:
        return Profile(profile_path(self.settings))

    def interview(self, session_id: str | None = None) -> Interview:
        """A session whose closed questions feed the candidate's profile."""
        interview = Interview(
            self.graph, self.context, self.index, session_id or Interview.new_id(), self.settings.reports_dir
        )
        interview.on_question_done.append(ProfileRecorder(self.profile, self.bank))
        return interview

    async def settle(self) -> list[str]:
        """Complete the record of every session a kill left half-told: an ended graph whose index
        row is still active, a finished session without its report files, a session left with
        nothing in it (closed as empty); and the kind of a session an earlier release listed. The
        ids settled."""
        self.index.close_abandoned()
        settled = []
        for row in self.index.list():
            untold = row.status == "active" or (row.over and not report_exported(self.settings.reports_dir, row.id))
            if untold and await self.interview(row.id).settle() is not None:
                settled.append(row.id)
            if row.kind is None:
                await self._read_kind(row.id)
        return settled

    async def _read_kind(self, session_id: str) -> None:
        """Interview or drill, as the session's saved request says (a session without one stays unknown)."""
        request = (await self.interview(session_id).state() or {}).get("request")
        if request is not None:
            self.index.set_kind(session_id, request.kind)


def make_brain(settings: Settings) -> Brain:
    """The LLM brain when a model is configured (litellm is imported only then), else the offline one."""
    judge = shared_judge(settings.judge.embedding)
    if settings.llm.model:
        from agent.brains.llm.brain import LLMBrain

        return LLMBrain(settings.llm, settings.interview.answer_limit_chars, judge)
    return OfflineBrain(settings.interview.answer_limit_chars, judge)


@contextlib.asynccontextmanager
async def open_services(
    settings: Settings, *, brain: Brain | None = None, retriever: Retriever | None = None, bank: Bank | None = None
) -> AsyncIterator[Services]:
    """The interviewer and its stores; sessions a kill left half-recorded are settled first. `bank`:
    one already loaded (default: ours and the user's, from the settings)."""
    bank = bank or load_bank(extra=settings.bank_paths)
    index = SessionIndex(settings.sessions_db)
    context = InterviewContext(
        bank=bank,
        brain=brain or make_brain(settings),
        retriever=retriever or make_retriever(settings),
        max_hints=settings.interview.max_hints,
    )
    async with open_checkpointer(settings) as saver:
        services = Services(settings, bank, index, builder.compile(checkpointer=saver), context)
        await services.settle()
        yield services
