"""Messages the workers send to the UI: the agent's events and the state of the background load."""

from __future__ import annotations

from textual.message import Message


class ServicesReady(Message, bubble=False):
    """The interviewer (graph, store, session index) finished loading in the background."""


class ServicesFailed(Message, bubble=False):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class AgentEvent(Message):
    """One event of the interview (ask, follow_up, hint, token, assessment, question_done, ...)."""

    def __init__(self, event) -> None:
        super().__init__()
        self.event = event
