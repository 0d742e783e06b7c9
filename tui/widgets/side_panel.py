"""Where the candidate stands: question n of N, section and topics, follow-ups, time, depth."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from knowledge.models import DEPTH_NAMES


class SidePanel(Static):
    DEFAULT_CSS = """
    SidePanel { width: 28; padding: 1; border-left: solid $primary; }
    """

    number: reactive[int] = reactive(0, layout=True)
    of: reactive[int] = reactive(0, layout=True)
    question: reactive[str] = reactive("", layout=True)
    section: reactive[str] = reactive("", layout=True)
    topics: reactive[str] = reactive("", layout=True)
    follow_ups: reactive[int] = reactive(0, layout=True)
    max_follow_ups: reactive[int] = reactive(3, layout=True)
    elapsed: reactive[int] = reactive(0, layout=True)
    depth: reactive[int | None] = reactive(None, layout=True)
    working: reactive[bool] = reactive(False, layout=True)
    scored_offline: reactive[str | None] = reactive(None, layout=True)
    """Why the last answer was scored offline although a model is configured (None: it was not)."""

    def render(self) -> Text:
        minutes, seconds = divmod(self.elapsed, 60)
        depth = "-" if self.depth is None else f"{self.depth}/4 {DEPTH_NAMES[self.depth]}"
        return Text.assemble(
            (f"Question {self.number} of {self.of}\n", "bold"),
            f"{self.question}\n\n",
            ("Section\n", "bold"),
            f"{self.section}\n\n",
            ("Topics\n", "bold"),
            f"{self.topics}\n\n",
            ("Follow-ups ", "bold"),
            f"{self.follow_ups}/{self.max_follow_ups}\n",
            ("Time ", "bold"),
            f"{minutes:02d}:{seconds:02d}\n",
            ("Depth ", "bold"),
            f"{depth}\n\n",
            *(
                (("Scored offline\n", "bold yellow"), f"the model failed: {self.scored_offline}\n\n")
                if self.scored_offline
                else ()
            ),
            ("interviewer is thinking…" if self.working else "", "italic"),
        )
