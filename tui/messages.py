"""Messages the agent's worker sends to the interview screen: one class per kind of event."""

from __future__ import annotations

from textual.message import Message

from agent.interview.events import Assessed, Event, Prompted, QuestionDone, Recovered, SessionDone, Token


class AgentMessage(Message):
    """One event of the interview, as a Textual message; each kind of event has its own subclass,
    so a screen handles each with its own `@on` handler."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class InterviewerSpoke(AgentMessage):
    event: Prompted


class TokenStreamed(AgentMessage):
    event: Token


class AnswerAssessed(AgentMessage):
    event: Assessed


class QuestionClosed(AgentMessage):
    event: QuestionDone


class SessionEnded(AgentMessage):
    event: SessionDone


class AnswerRecovered(AgentMessage):
    event: Recovered


MESSAGES: dict[type[Event], type[AgentMessage]] = {
    Prompted: InterviewerSpoke,
    Token: TokenStreamed,
    Assessed: AnswerAssessed,
    QuestionDone: QuestionClosed,
    SessionDone: SessionEnded,
    Recovered: AnswerRecovered,
}


def message_for(event: Event) -> AgentMessage:
    return MESSAGES[type(event)](event)
