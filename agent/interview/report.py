"""The session report: per question, per topic, what to study next; as Markdown or JSON."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from agent.brains.parts import coverage_with_earlier
from agent.brains.wording import excerpt, shown_words
from agent.interview.retrieval import Retriever, sections_to_read
from agent.labels import Labels, labels
from agent.state import HINTED_AT_BEST, InterviewState, QuestionSummary, Reference, by_quote
from common.terminal import clean_for_display
from common.whole_files import write_whole
from knowledge.bank import Bank
from knowledge.chunking import reference_label
from knowledge.models import in_language

MODEL_USE_FIELDS = ("tokens_in", "tokens_out", "cost_usd", "latency_ms")


class StudyItem(BaseModel):
    question: str
    key_point: str
    statement: str
    read: list[str]
    """Reference sections to read, as "source › heading"."""


class SessionReport(BaseModel):
    session_id: str
    status: str
    lang: str = "en"
    drill: bool = False
    questions: list[QuestionSummary]
    topics: dict[str, float]
    """Average depth per topic, strongest first."""
    study_next: list[StudyItem]
    transcript: list[dict[str, Any]]
    shown_before: dict[str, list[str]] = {}
    """A drill's questions -> their key points shown in earlier drills: listed apart, counted toward the parts."""

    @property
    def average_depth(self) -> float | None:
        return average_depth(self.questions)


def average_depth(summaries: Sequence[QuestionSummary]) -> float | None:
    """The mean depth of the questions closed so far (None before the first)."""
    return sum(s.depth for s in summaries) / len(summaries) if summaries else None


def session_topics(scored: Iterable[tuple[str, int]], bank: Bank) -> dict[str, float]:
    """A session's topics, from its scored questions given as (question id, depth): each topic's
    mean depth, strongest first."""
    by_topic: dict[str, list[int]] = defaultdict(list)
    for question, depth in scored:
        for topic in bank[question].topics:
            by_topic[topic].append(depth)
    return dict(sorted(((t, sum(d) / len(d)) for t, d in by_topic.items()), key=lambda kv: -kv[1]))


def build_report(state: InterviewState, bank: Bank, retriever: Retriever) -> SessionReport:
    """`retriever`: where each key point to study finds its sections to read."""
    summaries = state.get("summaries") or []
    topics = session_topics(((s.question, s.depth) for s in summaries), bank)
    request = state.get("request")
    # a drill's points shown in earlier drills: listed apart, and not to study again
    earlier = {s.question: shown for s in summaries if request and (shown := request.shown_before(bank[s.question]))}
    study: list[StudyItem] = []
    for summary in sorted(summaries, key=lambda s: s.depth):
        question = bank[summary.question]
        for kp_id in [kp for kp in summary.missed if kp not in earlier.get(question.id, [])][:2]:
            kp = question.key_point(kp_id)
            study.append(
                StudyItem(
                    question=question.id,
                    key_point=kp.id,
                    statement=kp.statement,
                    read=sections_to_read(retriever, question.id, kp.statement),
                )
            )
    transcript = [
        {
            "question": t.question,
            "kind": t.kind,
            "asked": t.asked,
            "target": t.target,
            "action": t.action.value,
            "answer": t.answer,
            "depth": t.assessment.depth if t.assessment else None,
            "flags": [f.value for f in t.assessment.flags] if t.assessment else [],
            "brain": t.assessment.brain if t.assessment else None,
            "fallback_reason": t.assessment.fallback_reason if t.assessment else None,
            **{k: getattr(t.assessment, k) if t.assessment else None for k in MODEL_USE_FIELDS},
            "next": t.decision.action if t.decision else None,
        }
        for t in state.get("turns") or []
    ]
    return SessionReport(
        session_id=state["session_id"],
        status=state.get("status", "active"),
        lang=state.get("lang", "en"),
        drill=bool(request and request.drill),
        questions=summaries,
        topics=topics,
        study_next=study[:6],
        transcript=transcript,
        shown_before=earlier,
    )


def report_files(folder: Path, session_id: str) -> tuple[Path, Path]:
    """Where a session's exported report lives: (Markdown, JSON)."""
    return folder / f"{session_id}.md", folder / f"{session_id}.json"


def report_exported(folder: Path, session_id: str) -> bool:
    return all(path.exists() for path in report_files(folder, session_id))


def export_report(report: SessionReport, bank: Bank, folder: Path) -> Path:
    """Write the report as Markdown and JSON into `folder`, each file whole or not at all; the
    Markdown path."""
    export_as(report, bank, folder, "json")
    return export_as(report, bank, folder, "md")


def export_as(report: SessionReport, bank: Bank, folder: Path, fmt: Literal["md", "json"]) -> Path:
    """Write the report in one format into `folder`, whole or not at all; its path."""
    markdown, data = report_files(folder, report.session_id)
    folder.mkdir(parents=True, exist_ok=True)
    if fmt == "md":
        write_whole(markdown, to_markdown(report, bank))
        return markdown
    write_whole(data, report.model_dump_json(indent=2))
    return data


def _sections(references: list[Reference]) -> list[str]:
    return list(dict.fromkeys(reference_label(r.source, r.heading) for r in references))[:2]


def report_title(report: SessionReport, say: Labels) -> str:
    """ "Interview report <id>", or "Drill report <id>" for a drill."""
    return say("drill_report_title" if report.drill else "report_title", session_id=report.session_id)


def report_facts(report: SessionReport, say: Labels) -> list[str]:
    """What the report says under its title: the status, and the average depth once there is one."""
    facts = [say("status", status=say.status(report.status))]
    if report.average_depth is not None:
        facts.append(say("average_depth", average=f"{report.average_depth:.2f}"))
    return facts


def depth_bar(depth: float, width: int = 16) -> str:
    """An average depth (of 4) as a bar `width` cells long."""
    filled = round(depth / 4 * width)
    return "█" * filled + "░" * (width - filled)


def study_statement(item: StudyItem, bank: Bank, lang: str) -> str:
    """The key point to study, in `lang` where the bank has it."""
    return bank[item.question].statement_in(item.key_point, item.statement, lang)


def study_reading(item: StudyItem, say: Labels) -> str:
    """What to read for a key point: its sections, else the model answer."""
    return say("read", sections="; ".join(item.read) or say("read_the_model_answer"))


def to_markdown(report: SessionReport, bank: Bank, lang: str | None = None) -> str:
    say = labels(lang or report.lang)
    lang = lang or report.lang
    lines = [f"# {report_title(report, say)}", ""]
    for fact in report_facts(report, say):
        lines += [fact, ""]
    columns = say.columns("table_columns")
    lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for i, q in enumerate(report.questions, 1):
        lines.append(f"| {i} | {q.question} | {q.depth} | {_cell(q.reason)} |")
    if report.topics:
        lines += ["", f"## {say('topics')}", ""]
        lines += [
            f"- {say.topic(topic)}{say('colon')} {depth_bar(avg)} {avg:.1f}" for topic, avg in report.topics.items()
        ]
    for q in report.questions:
        question = bank[q.question]
        lines += [
            "",
            f"## {q.question}: {question.prompt.get(lang)}",
            "",
            say("depth_line", depth=q.depth, reason=q.reason),
            "",
        ]
        if q.capped_by:
            lines += [say(q.capped_by, depth=HINTED_AT_BEST), ""]
        before = report.shown_before.get(q.question, [])
        coverage = coverage_with_earlier(question, q.covered, before)
        if len(coverage) > 1:
            lines.append(say.listing("parts"))
            lines += [f"- {say.part_line(c.mark, c.part.get(lang), c.shown, c.of, c.hinted)}" for c in coverage]
        if q.covered:
            lines.append(say.listing("shown"))
            lines += [
                f"- {question.key_point(e.key_point).statement_in(lang)}{say.level(e.level, e.hinted)}: "
                f"“{shown_words(question, e)}”"
                for e in q.covered
            ]
        for heading, points in (
            ("not_shown", [kp for kp in q.missed if kp not in before]),
            ("shown_before_heading", [kp for kp in q.missed if kp in before]),
        ):
            if points:
                lines.append(say.listing(heading))
                lines += [
                    f"- {question.key_point(kp).statement_in(lang)}{say.level(question.key_point(kp).level)}"
                    for kp in points
                ]
        if q.misconceptions:
            lines.append(say.listing("misconceptions"))
            lines += [
                f"- “{excerpt(same[0].quote, 160)}” → "
                + " ".join(dict.fromkeys(question.correction_in(m.misconception, m.correction, lang) for m in same))
                + "".join(
                    f" {say('put_right_later', quote=excerpt(right, 160))}"
                    for right in dict.fromkeys(m.put_right for m in same if m.put_right)
                )
                for same in by_quote(q.misconceptions)
            ]
        model_answer = in_language(q.model_answer, question.model_answer_zh, lang)
        lines += ["", say.listing("model_answer"), "", model_answer.strip()]
        if q.references:
            lines += ["", say.listing("references")] + [f"- {r}" for r in _sections(q.references)]
    if report.study_next:
        lines += ["", f"## {say('study_next')}", ""]
        lines += [
            f"- {s.question}: {study_statement(s, bank, lang)}{say.aside(study_reading(s, say))}"
            for s in report.study_next
        ]
    lines += _model_use(report.transcript, say)
    return clean_for_display("\n".join(lines)) + "\n"


def _model_use(transcript: list[dict[str, Any]], say: Labels) -> list[str]:
    """With a model configured: its tokens, cost and latency per turn, and the turns scored offline, with why."""
    judged = [(i, row) for i, row in enumerate(transcript, 1) if row["brain"] == "llm" or row["fallback_reason"]]
    if not judged:
        return []
    lines = [
        "",
        f"## {say('model_use')}",
        "",
        "| turn | question | scored by | tokens in / out | cost | latency |",
        "|---|---|---|---|---|---|",
    ]
    for i, row in judged:
        scored = f"offline: {row['fallback_reason']}" if row["fallback_reason"] else "model"
        cost = "-" if row["cost_usd"] is None else f"${row['cost_usd']:.6f}"
        latency = "-" if row["latency_ms"] is None else f"{row['latency_ms']:.0f} ms"
        lines.append(
            f"| {i} | {row['question']} | {_cell(scored)} | {row['tokens_in'] or 0} / {row['tokens_out'] or 0} "
            f"| {cost} | {latency} |"
        )
    costs = [row["cost_usd"] for _, row in judged if row["cost_usd"] is not None]
    if costs:
        lines += ["", f"Total model cost: ${sum(costs):.6f}"]
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
