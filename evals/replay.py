"""Teacher-forced replay of gold transcripts through a brain, and the figures that compare it.

For each gold turn the brain sees the gold history of that question up to the turn (the
candidate's earlier answers verbatim), judges the answer, decides the next move and writes the
follow-up. Nothing the brain did at one turn changes the candidate's words at the next, so the
replay never drifts.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from agent.brains.brain import Brain
from agent.brains.listening import partly_said
from agent.brains.request import WriteRequest
from agent.brains.wording import respond
from agent.interview.graph import next_decision
from agent.interview.policy import Limits, stalls_after
from agent.interview.replies import ANSWERED_IN_PLACE, judge_reply, judged_text, read_reply
from agent.interview.retrieval import Retriever
from agent.state import CandidateAction, Decision, QuestionProgress, Turn
from agent.text import CJK_CHAR, WORD
from evals.gold import Action, GoldTranscript, GoldTurn
from evals.metrics import confusion, depth_metrics, percentile
from knowledge.bank import Bank
from knowledge.embeddings import HashEmbedding
from knowledge.models import Question


@dataclass
class TurnResult:
    transcript: str
    index: int
    question: str
    split: str
    language: str
    section: str
    trap: str | None
    gold_depth: int
    depth: int
    gold_next: list[Action] | None
    next: str
    follow_up: str | None
    probe_any: list[str] | None
    latency_ms: float
    flags: list[str] = field(default_factory=list)
    baseline_depth: int = 0
    brain: str = "offline"
    fallback_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    category: str | None = None
    """The kind of blind-written answer (plain-words, fluent-bluff, ...), for the over/under rates."""
    evidence: list[dict[str, Any]] = field(default_factory=list)
    near_misses: list[dict[str, Any]] = field(default_factory=list)
    misconceptions: list[str] = field(default_factory=list)
    target: str | None = None
    """What the follow-up or hint went after: a key point, a misconception or an expert probe."""

    @property
    def probe_hit(self) -> bool | None:
        if not self.probe_any or self.next == "move_on":
            return None if not self.probe_any else False
        text = (self.follow_up or "").lower()
        return any(p.lower() in text for p in self.probe_any)

    @property
    def trap_passed(self) -> bool | None:
        """Traps must not be over-scored: at or one below gold (never above), exactly 0 when gold is
        0; a correct answer in unusual words must land within one of gold either way."""
        if not self.trap:
            return None
        diff = self.depth - self.gold_depth
        if self.gold_depth == 0:
            return self.depth == 0
        if self.trap == "unusual-words":
            return abs(diff) <= 1
        return -1 <= diff <= 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "transcript": self.transcript,
            "index": self.index,
            "question": self.question,
            "split": self.split,
            "language": self.language,
            "trap": self.trap,
            "gold_depth": self.gold_depth,
            "depth": self.depth,
            "baseline_depth": self.baseline_depth,
            "gold_next": self.gold_next,
            "next": self.next,
            "follow_up": self.follow_up,
            "target": self.target,
            "probe_hit": self.probe_hit,
            "flags": self.flags,
            "latency_ms": round(self.latency_ms, 2),
            "brain": self.brain,
            "fallback_reason": self.fallback_reason,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
            "evidence": self.evidence,
            "near_misses": self.near_misses,
            "misconceptions": self.misconceptions,
        }


def language_of(text: str) -> str:
    cjk = len(CJK_CHAR.findall(text))
    if not cjk:
        return "en"
    return "zh" if len(WORD.findall(text)) <= cjk / 4 else "mixed"


def interviewer_language(transcript: GoldTranscript) -> str:
    """The language the replayed interviewer speaks: the transcript's own, or for a mixed one the
    language most of its interviewer's lines are in (a Chinese interviewer uses English terms, so a
    mixed line counts as Chinese), and without interviewer lines, most of its answers'."""
    if transcript.language in ("en", "zh"):
        return transcript.language
    lines = [t.asked for t in transcript.turns if t.asked] or [t.answer for t in transcript.turns]
    chinese = sum(language_of(line) != "en" for line in lines)
    return "zh" if chinese * 2 > len(lines) else "en"


async def replay_transcript(
    transcript: GoldTranscript, bank: Bank, brain: Brain, retriever: Retriever, lang: str = "en"
) -> list[TurnResult]:
    """Each gold answer is heard, judged and answered as the interview graph does (the same
    `read_reply`, `judge_reply` and `next_decision`); a request the graph answers without judging
    (clarify, repeat, wait) gets its reply line and counts as a follow-up."""
    results: list[TurnResult] = []
    progress, on_question, block = QuestionProgress(), list[Turn](), None
    for index, turn in enumerate(transcript.turns):
        if turn.question != block or turn.asked is None:
            progress, on_question, block = QuestionProgress(), [], turn.question
        question = bank[turn.question]
        started = time.perf_counter()
        decision, text, progress = await _replay_turn(question, turn, progress, on_question, brain, retriever, lang)
        assessment = progress.assessment
        assert assessment is not None
        latency = (time.perf_counter() - started) * 1000
        results.append(
            TurnResult(
                transcript=transcript.id,
                index=index,
                question=question.id,
                split=transcript.split,
                language=language_of(turn.answer),
                section=question.section.value,
                trap=turn.trap,
                category=getattr(transcript, "category", None),
                gold_depth=turn.gold.depth,
                depth=assessment.depth,
                gold_next=turn.gold.next,
                next=decision.action,
                follow_up=text,
                probe_any=turn.gold.probe_any,
                latency_ms=latency,
                flags=[f.value for f in assessment.flags],
                brain=assessment.brain,
                fallback_reason=assessment.fallback_reason,
                tokens_in=assessment.tokens_in,
                tokens_out=assessment.tokens_out,
                cost_usd=assessment.cost_usd,
                evidence=[e.model_dump() for e in assessment.covered if e.key_point in assessment.new],
                near_misses=[e.model_dump() for e in assessment.near_misses],
                misconceptions=[f"{m.misconception}: {m.quote[:120]}" for m in assessment.misconceptions],
                target=decision.target if decision.action != "move_on" else None,
            )
        )
    return results


async def _replay_turn(
    question: Question,
    turn: GoldTurn,
    progress: QuestionProgress,
    on_question: list[Turn],
    brain: Brain,
    retriever: Retriever,
    lang: str,
) -> tuple[Decision, str | None, QuestionProgress]:
    """One gold reply as the graph handles it: a request to clarify, repeat or wait is answered
    without judging; an answer is judged (and appended, assessed, to `on_question`) and decided on.
    Returns the next move, the interviewer's line and the question's progress after the turn (every
    gold turn counts as a follow-up)."""
    action, heard = read_reply(CandidateAction.answer, turn.answer, question)
    reply = Turn(
        question=question.id,
        kind="follow_up" if on_question else "ask",
        asked=turn.asked or "",
        target=progress.probed[-1] if progress.probed else None,
        action=action,
        answer=turn.answer,
        heard=heard,
    )
    prior = progress.assessment
    if heard in ANSWERED_IN_PLACE:
        unjudged = reply.model_copy(update={"action": CandidateAction.skip})
        assessment = prior or await judge_reply(brain, question, unjudged, None, [])
        decision = Decision(
            action="follow_up", target=reply.target, why="answered the candidate's request", heard=heard
        )
        asked = turn.asked or question.prompt.get(lang)
        text = respond(heard.value, question, lang, progress.follow_ups, asked, turn.answer)
        return decision, text, _spent(progress, assessment=assessment)
    assessment = await judge_reply(brain, question, reply, prior, on_question)
    stalls = stalls_after(progress, assessment, first_reply=turn.asked is None)
    on_question.append(reply.model_copy(update={"assessment": assessment}))
    progress = progress.model_copy(update={"assessment": assessment, "stalls": stalls})
    decision = next_decision(question, progress, on_question, Limits(follow_ups=3))
    if decision.action == "move_on":
        return decision, None, _spent(progress)
    refs = retriever.references(question.id, judged_text(reply))
    partly = partly_said(question, assessment, on_question)
    request = WriteRequest(
        question, decision, assessment, tuple(refs), lang, progress.follow_ups, progress.probed, partly
    )
    text = await brain.write(request)
    target = decision.target or ""
    hints = (*progress.hints, target) if decision.action == "hint" else progress.hints
    return decision, text, _spent(progress, probed=(*progress.probed, target), hints=hints)


def _spent(progress: QuestionProgress, **changes: Any) -> QuestionProgress:
    """The progress after a replayed turn: every gold turn counts as a follow-up."""
    return progress.model_copy(update={"follow_ups": progress.follow_ups + 1, **changes})


def add_baseline(results: list[TurnResult], turns: list[GoldTurn], bank: Bank) -> None:
    """The naive baseline: char n-gram similarity of the answer to the model answer, bucketed to
    0-4 so that its distribution matches the gold labels of the same run."""
    similarity = baseline_similarity([t.answer or " " for t in turns], [bank[t.question].model_answer for t in turns])
    gold = sorted(r.gold_depth for r in results)
    order = np.argsort(similarity, kind="mergesort")
    for rank, i in enumerate(order):
        results[i].baseline_depth = gold[rank]


def baseline_similarity(answers: list[str], model_answers: list[str]) -> np.ndarray:
    """The naive scorer's whole judgement: cosine of hashed char n-grams, answer against model answer."""
    embed = HashEmbedding()
    return (np.asarray(embed(answers)) * np.asarray(embed(model_answers))).sum(axis=1)


def _summary(
    results: list[TurnResult],
    depth: Callable[[TurnResult], int],
    next_of: Callable[[TurnResult], str],
    probe_of: Callable[[TurnResult], bool | None],
) -> dict[str, Any]:
    gold = [r.gold_depth for r in results]
    pred = [depth(r) for r in results]
    labelled_next = [r for r in results if r.gold_next]
    probes = [probe_of(r) for r in results if r.probe_any]
    traps = [r for r in results if r.trap]
    trap_passes = [bool(_with_depth(r, depth(r)).trap_passed) for r in traps]  # never None: r.trap is set
    return {
        **depth_metrics(gold, pred),
        "next_action_accuracy": _share([next_of(r) in (r.gold_next or ()) for r in labelled_next]),
        "probe_hit_rate": _share([bool(p) for p in probes]),
        "trap_pass_rate": _share(trap_passes),
    }


def misjudged(results: list[TurnResult]) -> dict[str, float | None]:
    """How often the depth lands above gold (over-scored) and below it (under-scored)."""
    return {
        "over_scored": _share([r.depth > r.gold_depth for r in results]),
        "under_scored": _share([r.depth < r.gold_depth for r in results]),
    }


def _with_depth(result: TurnResult, depth: int) -> TurnResult:
    return TurnResult(**{**result.__dict__, "depth": depth})


def _share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def brain_summary(results: list[TurnResult]) -> dict[str, Any]:
    return _summary(results, lambda r: r.depth, lambda r: r.next, lambda r: r.probe_hit)


def baseline_summary(results: list[TurnResult], bank: Bank) -> dict[str, Any]:
    def first_probe_hit(r: TurnResult) -> bool:
        probe = bank[r.question].key_points[0].probe.en.lower()
        return any(p.lower() in probe for p in r.probe_any or [])

    return _summary(results, lambda r: r.baseline_depth, lambda r: "follow_up", first_probe_hit)


def grouped(results: list[TurnResult], key: Callable[[TurnResult], str | None]) -> dict[str, Any]:
    groups: dict[str, list[TurnResult]] = defaultdict(list)
    for r in results:
        value = key(r)
        if value:
            groups[value].append(r)
    return {name: brain_summary(rs) for name, rs in sorted(groups.items())}


LABELS_DIR = Path(__file__).parent / "labels"


def rater_ceiling(transcripts: list[GoldTranscript]) -> dict[str, Any] | None:
    """Agreement of the two independent labelling passes on these transcripts: the ceiling a
    scorer can be expected to reach against one rater."""
    try:
        first = yaml.safe_load((LABELS_DIR / "first_pass.yaml").read_text(encoding="utf-8"))
        second = yaml.safe_load((LABELS_DIR / "second_pass.yaml").read_text(encoding="utf-8"))
    except OSError:
        return None
    a, b = [], []
    for t in transcripts:
        if t.id in first and t.id in second and len(first[t.id]) == len(second[t.id]) == len(t.turns):
            a.extend(first[t.id])
            b.extend(second[t.id])
    return depth_metrics(a, b) if a else None


def evaluate(transcripts: list[GoldTranscript], bank: Bank, brain: Brain, retriever: Retriever) -> dict[str, Any]:
    started = time.perf_counter()

    async def run_all() -> list[list[TurnResult]]:
        return await asyncio.gather(
            *(replay_transcript(t, bank, brain, retriever, interviewer_language(t)) for t in transcripts)
        )

    results = [r for batch in asyncio.run(run_all()) for r in batch]
    turns = [turn for t in transcripts for turn in t.turns]
    add_baseline(results, turns, bank)
    latencies = [r.latency_ms for r in results]
    report = {
        **brain_summary(results),
        "baseline": baseline_summary(results, bank),
        "ceiling": rater_ceiling(transcripts),
        "confusion": confusion([r.gold_depth for r in results], [r.depth for r in results]),
        "latency_ms": {"p50": _r(percentile(latencies, 0.5)), "p95": _r(percentile(latencies, 0.95))},
        "splits": {
            name: {
                **brain_summary(rs),
                "baseline": baseline_summary(rs, bank),
                "ceiling": rater_ceiling([t for t in transcripts if t.split == name]),
            }
            for name, rs in _by(results, lambda r: r.split).items()
        },
        "by_language": grouped(results, lambda r: r.language),
        "by_section": grouped(results, lambda r: r.section),
        "by_trap": grouped(results, lambda r: r.trap),
        "by_category": {
            name: {**summary, **misjudged(rs)}
            for name, rs in _by(results, lambda r: r.category or "").items()
            if name
            for summary in [brain_summary(rs)]
        },
        "transcripts": len(transcripts),
        "brain": brain.name,
        "model_use": model_use(results) if brain.name == "llm" else None,
        "seconds": round(time.perf_counter() - started, 2),
        "per_turn": [r.as_dict() for r in results],
    }
    return report


def model_use(results: list[TurnResult]) -> dict[str, Any]:
    """Tokens and cost per turn (a turn's figures include the call that wrote the line it answers),
    and the turns that were scored offline, with why."""
    turns = len(results) or 1
    costs = [r.cost_usd for r in results if r.cost_usd is not None]
    reasons: dict[str, int] = defaultdict(int)
    for r in results:
        if r.fallback_reason:
            reasons[r.fallback_reason] += 1
    return {
        "tokens_in_per_turn": round(sum(r.tokens_in or 0 for r in results) / turns, 1),
        "tokens_out_per_turn": round(sum(r.tokens_out or 0 for r in results) / turns, 1),
        "cost_usd_per_turn": round(sum(costs) / turns, 6) if costs else None,
        "cost_usd_total": round(sum(costs), 6) if costs else None,
        "scored_offline": sum(reasons.values()),
        "fallback_reasons": dict(reasons),
    }


def _by(results: list[TurnResult], key: Callable[[TurnResult], str]) -> dict[str, list[TurnResult]]:
    groups: dict[str, list[TurnResult]] = defaultdict(list)
    for r in results:
        groups[key(r)].append(r)
    return dict(sorted(groups.items()))


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
