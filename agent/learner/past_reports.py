"""What past sessions' reports say about the candidate's topics, read straight from their JSON.

Home shows it in its first frame, so this module imports nothing heavy: the report's own module
(agent.interview.report) would bring the brains' imports into that frame."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path


def topic_averages(reports_dir: Path, unreported: Iterable[Mapping[str, float]] = ()) -> dict[str, float]:
    """Each topic's mean depth over the reports in `reports_dir` that name it, and over the
    `unreported` sessions' topics (a session under way has no report yet)."""
    depths: dict[str, list[float]] = defaultdict(list)
    for path in sorted(reports_dir.glob("*.json")):
        try:
            topics = json.loads(path.read_text(encoding="utf-8")).get("topics", {})
        except (OSError, ValueError, AttributeError):
            continue  # a damaged report must not hide the others
        for topic, depth in topics.items():
            depths[topic].append(float(depth))
    for topics in unreported:
        for topic, depth in topics.items():
            depths[topic].append(depth)
    return {topic: sum(values) / len(values) for topic, values in depths.items()}
