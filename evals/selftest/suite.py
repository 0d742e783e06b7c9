"""One suite's tally: what was tried, what survived, and what must stay 0."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Suite:
    name: str
    tried: int = 0
    survived: int = 0
    failures: int = 0
    """Must be 0: turns lost, crashes or mis-scored answers."""
    failure_label: str = "failures"
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "suite": self.name,
            "tried": self.tried,
            "survived": self.survived,
            self.failure_label: self.failures,
            "notes": self.notes,
        }
