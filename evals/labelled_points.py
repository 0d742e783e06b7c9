"""Key points credited on real gold answers, against the blind quote labels (`evals/labels/quotes/`):
over each visit to a question, the points the interviewer credited and the points two blind
labellers saw. Unlike `eval --keypoints` (single test sentences), this is the judge at work on whole
answers, the same answers the depth figures come from. `quoted` is how often the sentence the judge
quotes for a point both credited and labelled on a turn is the one the labellers quoted for it: the
evidence a candidate reads beside the score.
"""

from __future__ import annotations

from collections import defaultdict
from difflib import SequenceMatcher
from typing import Any

from evals.correct_model import Shown
from evals.gold import GoldTranscript


def labelled_points(
    per_turn: list[dict[str, Any]], transcripts: list[GoldTranscript], shown: Shown
) -> dict[str, Any] | None:
    """Precision and recall of the credited points, overall and per split; None without labels."""
    credited = {(r["transcript"], r["index"]): {e["key_point"] for e in r["evidence"]} for r in per_turn}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # true pos, false pos, false neg
    quotes: dict[str, list[bool]] = defaultdict(list)
    for r in per_turn:
        labelled = dict(shown.get(f"{r['transcript']}#{r['index']}", []))
        for e in r["evidence"]:
            if e["key_point"] in labelled and e.get("quote") is not None:
                quotes[r.get("split") or ""].append(same_words(e["quote"], labelled[e["key_point"]]))
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
    quotes["all"] = [q for split in list(quotes) for q in quotes[split]]
    return {group: _figures(tp, fp, fn, quotes.get(group, [])) for group, (tp, fp, fn) in counts.items()}


def same_words(ours: str, theirs: str) -> bool:
    """Do two quotes of an answer hold the same words: one inside the other, or a common run of
    at least 60% of the shorter (a labeller may quote a clause, we quote its sentence)?"""
    a, b = " ".join(ours.split()), " ".join(theirs.split())
    if not a or not b:
        return False
    run = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size
    return run >= 0.6 * min(len(a), len(b))


def _figures(tp: int, fp: int, fn: int, quoted: list[bool]) -> dict[str, Any]:
    return {
        "labelled": tp + fn,
        "credited": tp + fp,
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "quoted": round(sum(quoted) / len(quoted), 3) if quoted else None,
    }
