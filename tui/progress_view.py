"""`rl-interview progress` as text: mastery bars, cards due, the trend as a plotext chart, and
what to work on next, all within a given width (80 columns by default)."""

from __future__ import annotations

import textwrap
from datetime import date

from rich.cells import cell_len

from agent.learner.progress import ProgressReport, TrendPoint

WIDTH = 80
CHART_HEIGHT = 12
MAX_TICKS = 6


def trend_chart(points: list[TrendPoint], width: int = WIDTH, height: int = CHART_HEIGHT) -> str:
    """Mastery (%) per day with answers; the x axis is in days, labelled MM-DD."""
    import plotext

    if not points:
        return "No answers yet: the trend starts with your first session."
    first = date.fromisoformat(points[0].day)
    xs = [(date.fromisoformat(p.day) - first).days for p in points]
    ys = [round(p.mastery * 100, 1) for p in points]
    figure = plotext.figure
    figure.clear()
    figure.plot_size(width, height)
    if len(xs) > 1:
        line = figure.signal(xs, ys, marker="braille")
        line.lines()
        figure.draw(line)
    else:
        figure.ruler("x").lim(xs[0] - 1, xs[0] + 1)
    figure.draw(figure.signal(xs, ys, marker="●"))
    figure.ruler("y").lim(0, 100)
    step = max(1, -(-len(xs) // MAX_TICKS))
    ticks = sorted(set(range(0, len(xs), step)) | {len(xs) - 1})
    figure.ruler("x").ticks([xs[i] for i in ticks], [points[i].day[5:] for i in ticks])
    figure.title("mastery % over time (UTC days)")
    return plotext.uncolorize(str(figure.build())).rstrip()


def padded(text: str, width: int) -> str:
    """`text` padded with spaces to `width` terminal cells (a Chinese character takes two)."""
    return text + " " * (width - cell_len(text))


def bar(value: float, width: int = 20) -> str:
    filled = round(value * width)
    return "█" * filled + "░" * (width - filled)


def progress_text(report: ProgressReport, width: int = WIDTH) -> str:
    if not report.attempts:
        return "No answers in your profile yet: run `rl-interview interview` or `rl-interview drill`.\n"
    lines = [
        f"Progress at {report.now[:16].replace('T', ' ')} UTC: {len(report.sessions)} session(s), "
        f"{report.attempts} question(s) answered",
        f"Cards due today: {report.due_today} · within 7 days: {report.due_this_week}",
        "",
        "Mastery by topic (weakest first)",
    ]
    for topic in report.topics:
        lines.append(
            f"  {topic.topic:<18} {bar(topic.mastery)} {topic.mastery * 100:>3.0f}%  "
            f"({topic.questions} question{'s' if topic.questions != 1 else ''})"
        )
    lines += ["", trend_chart(report.trend, width), ""]
    if report.next:
        lines.append("Work on next")
        for i, point in enumerate(report.next, 1):
            head = f"{i}. {point.question} / {point.key_point} (level {point.level}): {point.statement}"
            lines += textwrap.wrap(head, width, initial_indent="  ", subsequent_indent="     ")
            lines += textwrap.wrap(
                "read: " + ("; ".join(point.read) or "the model answer"),
                width,
                initial_indent="     ",
                subsequent_indent="       ",
            )
    return "\n".join(lines) + "\n"
