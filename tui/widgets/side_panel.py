"""Where the candidate stands: question n of N, section and topics, follow-ups, time, depth."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static

DEPTH_NAMES = ["nothing yet", "recall", "mechanism", "reasoning", "expert"]


class SidePanel(Static):
    DEFAULT_CSS = """
    SidePanel { width: 28; padding: 1; border-left: solid $primary; }
    """

    number: reactive[int] = reactive(0)
    of: reactive[int] = reactive(0)
    question: reactive[str] = reactive("")
    section: reactive[str] = reactive("")
    topics: reactive[str] = reactive("")
    follow_ups: reactive[int] = reactive(0)
    max_follow_ups: reactive[int] = reactive(3)
    elapsed: reactive[int] = reactive(0)
    depth: reactive[int | None] = reactive(None)
    working: reactive[bool] = reactive(False)

    def render(self) -> str:
        minutes, seconds = divmod(self.elapsed, 60)
        depth = "-" if self.depth is None else f"{self.depth}/4 {DEPTH_NAMES[self.depth]}"
        status = "[i]interviewer is thinking…[/i]" if self.working else ""
        return (
            f"[b]Question {self.number} of {self.of}[/b]\n{self.question}\n\n"
            f"[b]Section[/b]\n{self.section}\n\n[b]Topics[/b]\n{self.topics}\n\n"
            f"[b]Follow-ups[/b] {self.follow_ups}/{self.max_follow_ups}\n"
            f"[b]Time[/b] {minutes:02d}:{seconds:02d}\n[b]Depth[/b] {depth}\n\n{status}"
        )
