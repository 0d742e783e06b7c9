"""The interviewer's checks on one simulated session, each a figure: the share of its opportunities
the interviewer got right (`CHECKS`: the session ends, nothing is asked twice or after it was shown,
misconceptions are challenged at once, parts come before depth, protests, clarifying questions,
pauses and requests are heard, hints climb a ladder without giving the answer away, quotes are the
candidate's own words, no two lines in a row open alike)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agent.brains.listening import (
    BARE_YES_NO,
    CLARIFY,
    META_LEAD,
    MOVE_ON,
    PROTEST,
    REPEAT,
    WAIT,
    partly_said,
    stems,
)
from agent.brains.parts import untouched_parts
from agent.brains.wording import carries_content, opening
from agent.interview.replies import ANSWERED_IN_PLACE
from agent.learner.profile import rated_depth
from agent.learner.recording import attempts_in
from agent.prompts import load_yaml
from agent.state import Heard, InterviewState, Turn
from agent.text import CJK_CHAR
from knowledge.bank import Bank
from knowledge.models import Question

LEAK_SHARE = 0.6
"""A hint sharing this much of its key point's statement's words gives the answer away."""


CHECKS = (
    "session ends",
    "every answer kept",
    "report matches the transcript",
    "follow-ups within the budget",
    "no target asked twice",
    "no target asked after it was shown",
    "misconceptions challenged within one turn",
    "wrong claims left open are corrected at the close",
    "every part touched before depth",
    "first follow-up on an untouched part",
    "protests recognised",
    "protests answered and moved on",
    "clarifying questions answered",
    "clarified question asked again",
    "repeats said again",
    "pauses waited for",
    "a bare yes or no asked why",
    "move-on requests honoured",
    "hints never give the statement away",
    "hints climb the ladder",
    "hints within max_hints",
    "what is shown after a hint is marked",
    "hinted questions rated Hard at best",
    "quotes are the candidate's words",
    "quotes carry content",
    "no two lines in a row open alike",
    "lines in the session's language",
)


@dataclass
class SessionRun:
    persona: str
    seed: int
    average_depth: float
    depths: list[int]
    violations: list[str] = field(default_factory=list)
    checks: dict[str, list[int]] = field(default_factory=dict)
    """Check -> [passed, opportunities]."""

    def check(self, name: str, ok: bool, detail: str = "") -> None:
        tally = self.checks.setdefault(name, [0, 0])
        tally[0] += bool(ok)
        tally[1] += 1
        if not ok:
            self.violations.append(f"{name}: {detail}" if detail else name)


def inspect(
    run: SessionRun,
    state: InterviewState,
    waited: list[dict],
    sent: list[str],
    bank: Bank,
    max_follow_ups: int,
    max_hints: int,
    lang: str,
    closes: dict[str, str | None] | None = None,
) -> None:
    """Every check on one session: `waited[i]` is what the interviewer said before reply `sent[i]`,
    which is `turns[i]` (the personas use no key action that leaves no turn); `closes`, what was
    said as each question closed."""
    turns: list[Turn] = state["turns"]
    run.check("every answer kept", [t.answer for t in turns] == sent, "an answer sent is not in the transcript")
    phrases = load_yaml("offline_wording.yaml")[lang]
    protest_openings = {
        opening(v) for kind in ("protest_found", "protest_added", "protest_not_found") for v in phrases[kind]
    }
    lines = [w["text"] for i, w in enumerate(waited) if w["kind"] != "ask" or (i and turns[i - 1].heard is not None)]
    for before, after in itertools.pairwise(lines):
        run.check(
            "no two lines in a row open alike", opening(before) != opening(after), f"{before[:50]!r} / {after[:50]!r}"
        )
    if lang == "zh":
        for line in lines:
            run.check("lines in the session's language", bool(CJK_CHAR.search(line)), line[:60])
    for qid in state["plan"]:
        steps = [
            Step(
                t,
                waited[i],
                waited[i + 1] if i + 1 < len(waited) else None,
                i > 0 and turns[i - 1].heard in ANSWERED_IN_PLACE,
            )
            for i, t in enumerate(turns)
            if t.question == qid
        ]
        _inspect_question(run, bank[qid], steps, max_follow_ups, max_hints, protest_openings)
        if closes is not None and qid in closes:
            _inspect_close(run, bank[qid], steps, closes[qid], lang)
    for attempt in attempts_in(state, lambda _: AT):
        if attempt.hinted:
            run.check(
                "hinted questions rated Hard at best",
                rated_depth(bank[attempt.question], attempt, set()) <= 2,
                attempt.question,
            )


AT = datetime(2026, 12, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Step:
    """One candidate turn, with what the interviewer said before and after it."""

    turn: Turn
    before: dict[str, Any]
    after: dict[str, Any] | None
    reply: bool
    """The turn answers the interviewer's reply to a request (a clarification, a repeat, a pause)."""


def _inspect_question(
    run: SessionRun,
    question: Question,
    steps: list[Step],
    max_follow_ups: int,
    max_hints: int,
    protest_openings: set[str],
) -> None:
    _inspect_budget(run, question, steps, max_follow_ups, max_hints)
    said: list[str] = []
    first_follow_up = True
    for i, step in enumerate(steps):
        turn, after = step.turn, step.after
        same = after is not None and after["question"] == question.id
        said.append(turn.answer)
        _inspect_heard(run, question, step, same, protest_openings)
        if turn.kind == "hint" and turn.assessment:
            for e in turn.assessment.covered:
                if e.key_point in turn.assessment.new:
                    run.check("what is shown after a hint is marked", e.hinted, f"{question.id}/{e.key_point}")
        decision = turn.decision
        if turn.assessment is None or decision is None:
            continue
        _inspect_target(run, question, steps, i, first_follow_up)
        first_follow_up = first_follow_up and decision.action != "follow_up"
        if same and after is not None and after["kind"] in ("follow_up", "hint"):
            inspect_quotes(run, question, after["text"], " ".join(said))
        if decision.action == "hint" and same and after is not None:
            assert decision.target is not None  # a hint always names its key point (policy.next_decision)
            point = question.key_point(decision.target)
            run.check(
                "hints never give the statement away",
                hint_gives_nothing_away(after["text"], point.statement),
                f"{question.id}/{point.id}: {after['text'][:80]}",
            )


def _inspect_close(run: SessionRun, question: Question, steps: list[Step], said: str | None, lang: str) -> None:
    """A wrong claim no follow-up or hint got to challenge is corrected as the question closes."""
    probed = {s.turn.target for s in steps} | {
        target for s in steps if s.turn.decision for target in (s.turn.decision.target, s.turn.decision.challenge)
    }
    open_wrong = [
        m.misconception
        for s in steps
        if s.turn.assessment
        for m in s.turn.assessment.misconceptions
        if m.misconception not in probed
    ]
    if open_wrong:
        corrections = [question.misconception(w).correction_in(lang) for w in open_wrong]
        run.check(
            "wrong claims left open are corrected at the close",
            any(c in (said or "") for c in corrections),
            f"{question.id}: {open_wrong}",
        )


def _inspect_budget(
    run: SessionRun, question: Question, steps: list[Step], max_follow_ups: int, max_hints: int
) -> None:
    """Follow-ups and hints within their limits, no probe twice, every hint a rung higher."""
    asked = [s.turn for s in steps if s.turn.kind != "ask" and not s.reply]
    run.check("follow-ups within the budget", len(asked) <= max_follow_ups, f"{question.id}: {len(asked)} follow-ups")
    targets = [t.target for t in asked if t.kind == "follow_up"]
    run.check("no target asked twice", len(targets) == len(set(targets)), f"{question.id}: {targets}")
    hints = [t for t in asked if t.kind == "hint"]
    run.check("hints within max_hints", len(hints) <= max_hints, f"{question.id}: {len(hints)} hints")
    for a, b in itertools.pairwise(hints):
        if a.target == b.target:
            run.check("hints climb the ladder", a.asked != b.asked, f"{question.id}: the same hint twice")


def _inspect_target(run: SessionRun, question: Question, steps: list[Step], i: int, first_follow_up: bool) -> None:
    """What the decision after step `i` targets: nothing already shown, a stated misconception at
    once, and an untouched part of the question before depth within a part."""
    assessment, decision = steps[i].turn.assessment, steps[i].turn.decision
    assert assessment is not None and decision is not None
    point_ids = {kp.id for kp in question.key_points}
    if decision.action in ("follow_up", "hint") and decision.target in point_ids:
        run.check(
            "no target asked after it was shown",
            decision.target not in {e.key_point for e in assessment.covered},
            f"{question.id}: {decision.target}",
        )
    probed = {s.turn.target for s in steps[: i + 1] if s.turn.kind != "ask"} | {
        target for s in steps[:i] if s.turn.decision for target in (s.turn.decision.target, s.turn.decision.challenge)
    }
    open_wrong = [m.misconception for m in assessment.misconceptions if m.misconception not in probed]
    if (open_wrong and decision.action == "follow_up") or decision.challenge:
        # A hint that redirects an answer standing on a wrong claim names that claim first.
        challenged = {decision.target, decision.challenge}
        run.check(
            "misconceptions challenged within one turn",
            bool(challenged & set(open_wrong)),
            f"{question.id}: {open_wrong}",
        )
    if decision.action == "follow_up" and len(question.parts) > 1 and not open_wrong:
        covered = {e.key_point for e in assessment.covered}
        attended = set(partly_said(question, assessment, [s.turn for s in steps[: i + 1]]))
        # A part counts while it has a point left to ask at this depth: an expert (level-4) point is
        # no question below depth 3, so a part of only expert points waits for depth 3.
        untouched = [
            p.id
            for p in untouched_parts(question, covered, attended)
            if any(
                kp.id in assessment.missed and kp.id not in probed and (kp.level < 4 or assessment.depth >= 3)
                for kp in question.points_of(p.id)
            )
        ]
        part = question.key_point(decision.target).part if decision.target in point_ids else None
        ok = not untouched or part in untouched
        run.check("every part touched before depth", ok, f"{question.id}: {decision.target} before {untouched}")
        if first_follow_up:
            run.check("first follow-up on an untouched part", ok, f"{question.id}: {decision.target}")


def _inspect_heard(run: SessionRun, question: Question, step: Step, same: bool, protest_openings: set[str]) -> None:
    """A reply that asks something of the interviewer is heard, and the interviewer does it."""
    turn, after, text = step.turn, step.after, step.turn.answer
    if PROTEST.search(text[:60]):
        run.check("protests recognised", turn.heard is Heard.already_said, text[:60])
        if turn.heard is Heard.already_said and same and after is not None and after["kind"] != "ask":
            run.check(
                "protests answered and moved on",
                opening(after["text"]) in protest_openings and after.get("target") != turn.target,
                after["text"][:80],
            )
    short = len(text) < 60
    entry = next((c for c in question.clarifications if text in (c.asks.en, c.asks.zh)), None)
    if (
        turn.heard is Heard.clarify
        or entry is not None
        or (short and text.rstrip().endswith("?") and CLARIFY.search(text))
    ):
        answered = turn.heard is Heard.clarify and after is not None
        said_back = after["text"] if answered and after is not None else ""  # only read when answered
        if entry is not None:
            run.check(
                "clarifying questions answered",
                answered and (entry.answer.en in said_back or entry.answer.zh in said_back),
                text,
            )
        run.check(
            "clarified question asked again",
            (answered and step.before["text"] in said_back)
            or (answered and bool(step.before.get("base")) and step.before["base"] in said_back),
            text,
        )
    if short and REPEAT.search(text):
        run.check(
            "repeats said again",
            turn.heard is Heard.repeat
            and after is not None
            and (step.before.get("base") or step.before["text"]) in after["text"],
            text,
        )
    if short and WAIT.search(text) and not REPEAT.search(text):
        run.check(
            "pauses waited for",
            turn.heard is Heard.wait
            and turn.assessment is None
            and after is not None
            and after["follow_ups"] == step.before["follow_ups"],
            text,
        )
    if BARE_YES_NO.match(text) and not step.reply:
        run.check(
            "a bare yes or no asked why",
            turn.heard is Heard.terse
            and turn.assessment is None
            and after is not None
            and after.get("answering") == Heard.terse.value
            and (after["target"], after["follow_ups"]) == (step.before.get("target"), step.before["follow_ups"]),
            text,
        )
    if short and MOVE_ON.search(text):
        run.check("move-on requests honoured", after is None or after["question"] != question.id, text)


QUOTE = re.compile(r"“([^”]+)”")


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def inspect_quotes(run: SessionRun, question: Question, line: str, said: str) -> None:
    words = _squash(said)
    ours = [
        _squash(text.get(lang)) for kp in question.key_points for text in (*kp.hints, kp.probe) for lang in ("en", "zh")
    ]
    for quote in QUOTE.findall(line):
        body = _squash(quote.rstrip("…"))
        if any(body in text for text in ours):
            continue  # a hint or probe of the bank quoting a term ("薄胶水层"), not the candidate
        run.check("quotes are the candidate's words", body in words, f"{question.id}: {quote[:60]!r}")
        run.check(
            "quotes carry content",
            carries_content(body) and not PROTEST.search(body) and not META_LEAD.match(body),
            f"{question.id}: {quote[:60]!r}",
        )


def hint_gives_nothing_away(hint: str, statement: str) -> bool:
    """The hint neither contains the statement nor shares most of its words."""
    words = stems(statement)
    return statement.rstrip(".") not in hint and (not words or len(words & stems(hint)) / len(words) < LEAK_SHARE)
