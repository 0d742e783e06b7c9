"""What the candidate is told when a worker fails, by worker group: one table for the whole app."""

from __future__ import annotations

FAILURE_NOTICES = {
    "load": "{kind}: {error}",
    "agent": "The interviewer hit an error: {error}. Your answers are saved; resume from Home.",
    "report": "The report could not be built: {kind}: {error}",
    "library-search": "The search failed: {kind}: {error}",
}
"""`load` is told on Home, after "could not load the interviewer:"; the others as a notification."""

UNNAMED_FAILURE = "Something failed: {kind}: {error}"
"""For a worker of a group the table does not name yet: its error is still told."""


def failure_notice(group: str, error: BaseException) -> str:
    return FAILURE_NOTICES.get(group, UNNAMED_FAILURE).format(kind=type(error).__name__, error=error)
