"""Part hit rate: among gold turns labelled with `gold.part`, how often the interviewer's next line
goes to that part of the question (a move-on is a miss).

The line's target is read from its words: the bank probe or hint of a key point it contains. A
line in a model's own words names no probe and counts as a miss, so the figure is for the offline
brain (with a model configured, it is a floor).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from evals.gold import GoldTranscript
from knowledge.bank import Bank
from knowledge.models import Question


def target_part(question: Question, line: str | None) -> str | None:
    """The part of the key point whose probe or hint the line asks."""
    if not line:
        return None
    for kp in question.key_points:
        texts = [kp.probe.en, kp.probe.zh] + [h.get(lang) for h in kp.hints for lang in ("en", "zh")]
        if any(text in line for text in texts):
            return kp.part
    return None


def part_hits(per_turn: list[dict[str, Any]], transcripts: list[GoldTranscript], bank: Bank) -> dict[str, Any] | None:
    """The rate overall and per split, with the number of labelled turns; None when none is labelled."""
    labels = {(t.id, i): turn.gold.part for t in transcripts for i, turn in enumerate(t.turns) if turn.gold.part}
    if not labels:
        return None
    hits: dict[str, list[bool]] = defaultdict(list)
    for row in per_turn:
        wanted = labels.get((row["transcript"], row["index"]))
        if wanted is None:
            continue
        hit = row["next"] != "move_on" and target_part(bank[row["question"]], row["follow_up"]) == wanted
        for group in ("all", row["split"]):
            hits[group].append(hit)
    return {
        group: {"turns": len(values), "part_hit_rate": round(sum(values) / len(values), 3)}
        for group, values in hits.items()
    }
