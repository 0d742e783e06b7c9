"""A small progress chart: mastery bars per topic (weakest first), cards due, and the trend as a
one-line sparkline."""

from __future__ import annotations

from textual.widgets import Static

from agent.learner.profile import weakest_first
from agent.learner.progress import TrendPoint
from tui.progress_view import bar

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float]) -> str:
    return "".join(SPARKS[min(len(SPARKS) - 1, int(v * len(SPARKS)))] for v in values)


class MasteryChart(Static):
    DEFAULT_CSS = """
    MasteryChart { height: auto; padding: 0 1; border: round $primary; }
    """

    def show(
        self, mastery: dict[str, float], trend: list[TrendPoint], due_today: int, due_week: int, rows: int = 8
    ) -> None:
        if not mastery:
            self.update("No answers yet: your mastery per topic and its trend will show here.")
            return
        weakest = weakest_first(mastery)[:rows]
        lines = [f"[b]Mastery[/b], weakest first  ·  due today {due_today}, within 7 days {due_week}"]
        lines += [f"{topic:<18} {bar(value)} {value * 100:>3.0f}%" for topic, value in weakest]
        lines.append(f"[b]Trend[/b] {trend_line(trend)}")
        self.update("\n".join(lines))


def trend_line(trend: list[TrendPoint]) -> str:
    """The sparkline between the first and the last day; a single day is named once."""
    if not trend:
        return "-"
    spark = sparkline([p.mastery for p in trend])
    return f"{trend[0].day} {spark}" if len(trend) == 1 else f"{trend[0].day} {spark} {trend[-1].day}"
