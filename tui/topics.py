"""The one-glance summary of the candidate's topics, from the reports of past sessions.

Home draws it in its first frame, so it reads the reports' JSON itself: the report's own module
(agent.interview.report) would bring the brains' imports into that frame."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path


def topic_averages(reports_dir: Path) -> dict[str, float]:
    depths: dict[str, list[float]] = defaultdict(list)
    for path in sorted(reports_dir.glob("*.json")):
        try:
            topics = json.loads(path.read_text(encoding="utf-8")).get("topics", {})
        except (OSError, ValueError):
            continue  # a damaged report must not hide the others
        for topic, depth in topics.items():
            depths[topic].append(float(depth))
    return {topic: sum(values) / len(values) for topic, values in depths.items()}


def topic_summary(reports_dir: Path) -> str:
    averages = topic_averages(reports_dir)
    if not averages:
        return "No sessions yet: your strong and weak topics will show here."
    ranked = sorted(averages.items(), key=lambda kv: -kv[1])
    strong = ", ".join(f"{t} {d:.1f}" for t, d in ranked[:3] if d >= 2.5) or "none yet"
    weak = ", ".join(f"{t} {d:.1f}" for t, d in reversed(ranked[-3:]) if d < 2.5) or "none"
    return f"[b]Strong:[/b] {strong}\n[b]Weak:[/b] {weak}"
