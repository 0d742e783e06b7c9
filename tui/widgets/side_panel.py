"""Where the candidate stands: question n of N, section and topics, follow-ups, time, depth."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from agent.labels import labels


class SidePanel(Static):
    DEFAULT_CSS = """
    SidePanel { width: 28; padding: 1; border-left: solid $primary; }
    """

    lang: reactive[str] = reactive("en", layout=True)
    """The session's language: the panel's own words are in it."""
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
        say = labels(self.lang)
        minutes, seconds = divmod(self.elapsed, 60)
        depth = "-" if self.depth is None else f"{self.depth}/4 {say.depth_name(self.depth)}"
        return Text.assemble(
            (f"{say('panel_question', number=self.number, of=self.of)}\n", "bold"),
            f"{self.question}\n\n",
            (f"{say('panel_section')}\n", "bold"),
            f"{say.name('sections', self.section)}\n\n",
            (f"{say('panel_topics')}\n", "bold"),
            f"{self.topics}\n\n",
            (f"{say('panel_follow_ups')} ", "bold"),
            f"{self.follow_ups}/{self.max_follow_ups}\n",
            (f"{say('panel_time')} ", "bold"),
            f"{minutes:02d}:{seconds:02d}\n",
            (f"{say('panel_depth')} ", "bold"),
            f"{depth}\n\n",
            *(
                (
                    (f"{say('panel_scored_offline')}\n", "bold yellow"),
                    f"{say('panel_model_failed', reason=self.scored_offline)}\n\n",
                )
                if self.scored_offline
                else ()
            ),
            (say("panel_thinking") if self.working else "", "italic"),
        )
