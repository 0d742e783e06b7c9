"""Key points credited on real gold answers, against the blind quote labels (`evals/labels/quotes/`):
over each visit to a question, the points the interviewer credited and the points two blind
labellers saw. Unlike `eval --keypoints` (single test sentences), this is the judge at work on whole
answers, the same answers the depth figures come from.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from evals.correct_model import Shown
from evals.gold import GoldTranscript


def labelled_points(
    per_turn: list[dict[str, Any]], transcripts: list[GoldTranscript], shown: Shown
) -> dict[str, Any] | None:
    """Precision and recall of the credited points, overall and per split; None without labels."""
    credited = {(r["transcript"], r["index"]): {e["key_point"] for e in r["evidence"]} for r in per_turn}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # true pos, false pos, false neg
    for transcript in transcripts:
        if not any(f"{transcript.id}#{i}" in shown for i in range(len(transcript.turns))):
            continue
        visits: list[tuple[set[str], set[str]]] = []
        question = None
        for index, turn in enumerate(transcript.turns):
            if turn.question != question or turn.asked is None:
                question = turn.question
                visits.append((set(), set()))
            got, seen = visits[-1]
            got |= credited.get((transcript.id, index), set())
            seen |= {kp for kp, _ in shown.get(f"{transcript.id}#{index}", [])}
        for got, seen in visits:
            for group in ("all", transcript.split):
                tally = counts[group]
                tally[0] += len(got & seen)
                tally[1] += len(got - seen)
                tally[2] += len(seen - got)
    if not counts:
        return None
    return {group: _figures(*tally) for group, tally in counts.items()}


def _figures(tp: int, fp: int, fn: int) -> dict[str, Any]:
    return {
        "labelled": tp + fn,
        "credited": tp + fp,
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
    }
