"""The brain: the thinking parts of the interviewer, behind one small protocol.

The graph only ever talks to a Brain; the offline one is the default, an LLM one plugs in with
the same two calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from agent.brains.request import WriteRequest
from agent.brains.wording import phrase
from agent.judge.meaning import MeaningJudge
from agent.judge.scoring import RubricScorer
from agent.state import Assessment, BrainMemory
from knowledge.models import Question

TokenSink = Callable[[str], None]


class Brain(Protocol):
    name: str

    async def assess(self, question: Question, answer: str, prior: Assessment | None) -> Assessment:
        """Judge one answer against the rubric; depth is cumulative over `prior`."""
        ...

    async def write(
        self,
        request: WriteRequest,
        on_token: TokenSink | None = None,
    ) -> str:
        """The follow-up or hint for the request's decision; streamed through `on_token` if it can."""
        ...

    def remember(self) -> BrainMemory | None:
        """What the brain remembers of the current session now, to be saved with it."""
        ...

    def recall(self, memory: BrainMemory | None) -> None:
        """Take the current session up from what was saved with it (`None`: nothing was)."""
        ...

    @property
    def judge(self) -> MeaningJudge | None:
        """The offline judge by meaning (None without its data): the interviewer re-reads earlier
        answers with it when the candidate says a point was already made."""
        ...


class OfflineBrain:
    """Rubric scoring and the bank's probes, phrased from our templates. No model, no network."""

    name = "offline"

    def __init__(self, answer_limit_chars: int = 20_000, judge: MeaningJudge | None = None):
        self._scorer = RubricScorer(answer_limit_chars, judge)

    @property
    def judge(self) -> MeaningJudge | None:
        return self._scorer.judge

    async def assess(self, question: Question, answer: str, prior: Assessment | None) -> Assessment:
        return self._scorer.assess(question, answer, prior)

    async def write(
        self,
        request: WriteRequest,
        on_token: TokenSink | None = None,
    ) -> str:
        return phrase(request)

    def remember(self) -> None:
        return None

    def recall(self, memory: BrainMemory | None) -> None:
        """Nothing to take up: every offline turn stands on the graph's state alone."""
