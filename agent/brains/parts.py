"""The parts of a question (its sub-questions, in order) and how far an answer has got on each."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from agent.labels import Labels
from agent.state import Evidence
from knowledge.models import Part, Question


def untouched_parts(question: Question, covered: Collection[str], attended: Collection[str] = ()) -> list[Part]:
    """Parts not answered yet, in the prompt's order: nothing said toward them (`attended`: key
    points the candidate partly said), and nothing shown beyond naming a concept (a level-1 point)
    when the part asks for more."""
    out = []
    for part in question.parts:
        points = question.points_of(part.id)
        floor = min(2, max(kp.level for kp in points))
        if not any((kp.id in attended or kp.id in covered) and kp.level >= floor for kp in points):
            out.append(part)
    return out


def coverage_mark(shown: int, of: int) -> str:
    """✓ every key point of a part shown, ◐ some, ✗ none."""
    return "✓" if shown == of else "◐" if shown else "✗"


@dataclass(frozen=True)
class PartCoverage:
    part: Part
    shown: int
    of: int
    hinted: bool
    """Some of what was shown on it came after a hint."""

    @property
    def mark(self) -> str:
        return coverage_mark(self.shown, self.of)


def coverage_with_earlier(
    question: Question, covered: Iterable[Evidence], earlier: Collection[str] = ()
) -> list[PartCoverage]:
    """Per part, counting also a drill's key points shown in earlier drills (they add up, as in
    the profile): a trial's drill report marked "✗ vLLM 和 SGLang 有什么区别" over two points shown before."""
    covered = list(covered)
    shown = {e.key_point for e in covered}
    before = [Evidence(key_point=kp, level=question.key_point(kp).level, quote="") for kp in earlier if kp not in shown]
    return part_coverage(question, [*covered, *before])


def part_coverage(question: Question, covered: Iterable[Evidence]) -> list[PartCoverage]:
    """Per part, how many of its key points were shown (empty for a question without parts)."""
    shown = {e.key_point: e for e in covered}
    out = []
    for part in question.parts:
        points = question.points_of(part.id)
        mine = [shown[kp.id] for kp in points if kp.id in shown]
        out.append(PartCoverage(part, len(mine), len(points), any(e.hinted for e in mine)))
    return out


def gap_lines(question: Question, still: Collection[str], say: Labels, lang: str) -> list[str]:
    """What a drill says is still missing from last time: each part (its sub-question) with how many
    of its key points, never their statements. The drill's follow-up asks for one of them, and a
    trial's candidate read its answer printed just before ("上次没答到的：- tradeoffs: 每种修复都有代价…")."""
    lines = []
    for part in question.parts:
        count = sum(1 for kp in question.points_of(part.id) if kp.id in still)
        if count:
            lines.append(say("gap_part", part=part.get(lang), count=count, plural="s" * (count != 1)))
    # A question of the candidate's own may have no parts: its points' probes are questions, not answers.
    in_parts = {kp.id for part in question.parts for kp in question.points_of(part.id)}
    return lines + [question.key_point(kp).probe.get(lang) for kp in still if kp not in in_parts]
