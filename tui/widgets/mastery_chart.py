"""A small progress chart: mastery bars per topic (weakest first), cards due, and the trend as a
one-line sparkline."""

from __future__ import annotations

from textual.widgets import Static

from agent.labels import Labels
from agent.learner.profile import weakest_first
from agent.learner.progress import TrendPoint
from tui.progress_view import bar, padded

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float]) -> str:
    return "".join(SPARKS[min(len(SPARKS) - 1, int(v * len(SPARKS)))] for v in values)


class MasteryChart(Static):
    DEFAULT_CSS = """
    MasteryChart { height: auto; padding: 0 1; border: round $primary; }
    """

    def show(
        self,
        say: Labels,
        mastery: dict[str, float],
        trend: list[TrendPoint],
        due_today: int,
        due_week: int,
        rows: int = 8,
    ) -> None:
        """In `say`'s language (the topics' names too)."""
        if not mastery:
            self.update(say("chart_empty"))
            return
        weakest = weakest_first(mastery)[:rows]
        lines = [say("chart_heading", today=due_today, week=due_week)]
        lines += [f"{padded(say.topic(topic), 18)} {bar(value)} {value * 100:>3.0f}%" for topic, value in weakest]
        lines.append(f"[b]{say('chart_trend')}[/b] {trend_line(trend)}")
        self.update("\n".join(lines))


def trend_line(trend: list[TrendPoint]) -> str:
    """The sparkline between the first and the last day; a single day is named once."""
    if not trend:
        return "-"
    spark = sparkline([p.mastery for p in trend])
    return f"{trend[0].day} {spark}" if len(trend) == 1 else f"{trend[0].day} {spark} {trend[-1].day}"
