"""`rl-interview bank audit`: what in the question bank a reader cannot check, and cues the scorer
would apply wrongly.

The checks (each finding names its file and line):
- a key point, misconception or model-answer figure without a source;
- a level-4 key point whose statement has no figure, or no source;
- a key point cue that also matches one of the point's own hard negatives (knowledge/exemplars)
  or a key point statement of another question;
- a misconception cue that our own text asserts: a sentence of the question's model answer, its
  reference notes, its key point statements or its corrections. Our text is correct, so a cue that
  fires on it would flag a correct candidate;
- an entry not reviewed since a given date (or never).
Cues are matched exactly as the offline scorer matches them (`agent.text`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

from knowledge.bank import NOTES_DIR, BankEntry, bank_entries

CHECKS: dict[str, str] = {
    "unsourced-key-point": "key points without a source",
    "unsourced-misconception": "misconceptions without a source",
    "unsourced-figure": "figures in a model answer without a source",
    "level-4-without-figure": "level-4 key points without a figure and a source",
    "cue-matches-hard-negative": "key point cues that match one of the point's own hard negatives",
    "cue-matches-other-question": "key point cues that match another question's key point statement",
    "misconception-cue-in-our-text": "misconception cues that a sentence of our own text asserts",
    "not-reviewed": "entries not reviewed since the date given (or never)",
}

FIGURE = re.compile(
    r"(?<![\w.\-/^@])(?:[$~]?\d{1,3}(?:,\d{3})+|[$~]?\d+\.\d+(?:e-?\d+)?|[$~]?\d+e-?\d+|[$~]?\d{2,}"
    r"|\d(?=%|x\b|\s?(?:k\b|K\b|M\b|B\b|weeks?\b|days?\b|hours?\b|epochs?\b|nodes?\b|GPUs?\b|times\b|bits?\b)))"
    r"(?:\s?%|[kKMBx×](?![\w]))?(?![\w])"
)
"""A number a reader could want checked: decimals, numbers of two or more digits, or one digit with a
unit; not digits inside names (H800, Qwen2.5-32B, V3.2), metric names (pass@128) or formulas (1-eps, lambda=1)."""
YEAR = re.compile(r"^(19[89]\d|20[0-3]\d)$")


@dataclass(frozen=True)
class Finding:
    check: str
    question: str
    target: str
    """The key point, misconception or figure concerned ('' for the entry)."""
    message: str
    path: str
    line: int | None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        target = f"{self.question}/{self.target}" if self.target else self.question
        return f"{where}: {target}: {self.message}"


@dataclass
class AuditReport:
    findings: list[Finding] = field(default_factory=list)
    not_run: dict[str, str] = field(default_factory=dict)
    """Checks that could not run, with why."""

    def counts(self) -> dict[str, int]:
        found = Counter(f.check for f in self.findings)
        return {check: found.get(check, 0) for check in CHECKS if check not in self.not_run}

    def as_dict(self) -> dict:
        return {"counts": self.counts(), "not_run": self.not_run, "findings": [asdict(f) for f in self.findings]}


def figures_in(text: str) -> list[re.Match[str]]:
    """The figures of a text (years such as 2024 are references, not figures)."""
    return [m for m in FIGURE.finditer(text) if not YEAR.match(m.group())]


def _excerpt(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _our_sentences(entry: BankEntry, notes_dir: Path) -> list[tuple[str, str]]:
    """(where, sentence) for every sentence of the question's own correct text."""
    from agent.text import sentences

    q = entry.question
    texts = [("model_answer", q.model_answer), ("model_answer_zh", q.model_answer_zh or "")]
    texts += [(f"key point {kp.id}", kp.statement) for kp in q.key_points]
    texts += [(f"key point {kp.id} (zh)", kp.statement_zh or "") for kp in q.key_points]
    texts += [(f"correction of {m.id}", m.correction) for m in q.misconceptions]
    texts += [(f"correction of {m.id} (zh)", m.correction_zh or "") for m in q.misconceptions]
    for note in q.notes:
        path = notes_dir / f"{note}.md"
        if path.exists():
            texts.append((f"notes/{note}.md", path.read_text(encoding="utf-8").replace("**", "")))
    return [(where, s) for where, text in texts for s in sentences(text)]


def _sources_checks(entry: BankEntry, path: str) -> list[Finding]:
    q = entry.question
    found = []
    for kp in q.key_points:
        line = entry.line_of_point(kp.id)
        if not kp.sources:
            found.append(
                Finding("unsourced-key-point", q.id, kp.id, f"level-{kp.level} key point has no source", path, line)
            )
        if kp.level == 4 and (not figures_in(kp.statement) or not kp.sources):
            missing = " and ".join(
                w for w, gap in (("a figure", not figures_in(kp.statement)), ("a source", not kp.sources)) if gap
            )
            found.append(
                Finding("level-4-without-figure", q.id, kp.id, f"level-4 key point without {missing}", path, line)
            )
    for m in q.misconceptions:
        if not m.sources:
            found.append(
                Finding(
                    "unsourced-misconception",
                    q.id,
                    m.id,
                    "misconception has no source",
                    path,
                    entry.line_of_point(m.id),
                )
            )
    spans = [(i, i + len(f.figure)) for f in q.figures for i in _occurrences(q.model_answer, f.figure)]
    for match in figures_in(q.model_answer):
        if not any(a <= match.start() and match.end() <= b for a, b in spans):
            context = q.model_answer[max(0, match.start() - 40) : match.end() + 30]
            found.append(
                Finding(
                    "unsourced-figure",
                    q.id,
                    match.group(),
                    f"model answer figure without a source: …{_excerpt(context)}…",
                    path,
                    entry.line("model_answer"),
                )
            )
    return found


def _occurrences(text: str, part: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(part), text)]


def _statement_sentences(entries: list[BankEntry]) -> list[tuple[str, str, str]]:
    """(question, key point, normalised sentence) for every sentence of every key point statement."""
    from agent.text import normalise, sentences

    return [
        (e.question.id, kp.id, normalise(s))
        for e in entries
        for kp in e.question.key_points
        for s in sentences(kp.statement)
    ]


def _cue_checks(
    entry: BankEntry, statements: list[tuple[str, str, str]], hard_negatives: dict[str, list[str]], path: str
) -> list[Finding]:
    from agent.text import cue_anchor, find_cue, normalise

    q = entry.question
    found = []
    other_statements = [row for row in statements if row[0] != q.id]
    everything = "\n".join(sentence for _, _, sentence in other_statements)
    for kp in q.key_points:
        line = entry.line_of_point(kp.id)
        cues = list(dict.fromkeys(kp.cues.all()))
        for negative in hard_negatives.get(kp.id, []):
            cue = find_cue(normalise(negative), cues)
            if cue:
                found.append(
                    Finding(
                        "cue-matches-hard-negative",
                        q.id,
                        kp.id,
                        f"cue {cue!r} matches the hard negative {_excerpt(negative)!r}",
                        path,
                        line,
                    )
                )
        for cue in cues:
            if not cue.strip() or cue_anchor(cue) not in everything:
                continue
            anchor = cue_anchor(cue)
            hits = list(
                dict.fromkeys(
                    (qid, pid)
                    for qid, pid, sentence in other_statements
                    if anchor in sentence and find_cue(sentence, [cue])
                )
            )
            if hits:
                named = ", ".join(f"{qid}/{pid}" for qid, pid in hits[:3]) + (
                    f" and {len(hits) - 3} more" if len(hits) > 3 else ""
                )
                found.append(
                    Finding(
                        "cue-matches-other-question",
                        q.id,
                        kp.id,
                        f"cue {cue!r} matches the statement of {named}",
                        path,
                        line,
                    )
                )
    return found


def _misconception_checks(entry: BankEntry, notes_dir: Path, path: str) -> list[Finding]:
    from agent.text import asserts

    q = entry.question
    ours = list(dict.fromkeys(_our_sentences(entry, notes_dir)))
    found = []
    for m in q.misconceptions:
        cues = list(dict.fromkeys(m.cues.all()))
        for where, sentence in ours:
            if not asserts(sentence, cues):
                continue
            for cue in cues:
                if asserts(sentence, [cue]):
                    found.append(
                        Finding(
                            "misconception-cue-in-our-text",
                            q.id,
                            m.id,
                            f"cue {cue!r} is asserted by our {where}: {_excerpt(sentence)!r}",
                            path,
                            entry.line_of_point(m.id),
                        )
                    )
    return found


def _hard_negatives() -> tuple[dict[tuple[str, str], list[str]], str | None]:
    """The exemplars' hard negatives by (question, key point), or why they could not be read."""
    try:
        from knowledge.exemplars import load_exemplars
    except ImportError:
        return {}, "knowledge/exemplars.py is not installed"
    exemplars, _problems = load_exemplars()
    if not exemplars:
        return {}, "no exemplar files"
    by_point = {(qid, kp): ex.hard_negatives for qid, qex in exemplars.items() for kp, ex in qex.key_points.items()}
    return by_point, None


def audit(
    bank_path: Path | None = None,
    notes_dir: Path = NOTES_DIR,
    since: date | None = None,
    hard_negatives: dict[tuple[str, str], list[str]] | None = None,
) -> tuple[AuditReport, list]:
    """Run every check on the bank at `bank_path` (default: the shipped one); also returns the bank's
    validation problems (a file that does not validate is not audited)."""
    entries, problems = bank_entries(bank_path)
    report = AuditReport()
    if hard_negatives is None:
        hard_negatives, why = _hard_negatives()
        if why:
            report.not_run["cue-matches-hard-negative"] = why
    statements = _statement_sentences(entries)
    for entry in entries:
        q = entry.question
        path = str(entry.path)
        report.findings += _sources_checks(entry, path)
        negatives = {kp: texts for (qid, kp), texts in hard_negatives.items() if qid == q.id}
        report.findings += _cue_checks(entry, statements, negatives, path)
        report.findings += _misconception_checks(entry, notes_dir, path)
        if q.reviewed is None or (since is not None and q.reviewed < since):
            when = (
                f"last reviewed {q.reviewed.isoformat()} (before {since.isoformat()})"
                if q.reviewed and since
                else "never reviewed"
            )
            report.findings.append(
                Finding("not-reviewed", q.id, "", when, path, entry.line("reviewed") if q.reviewed else 1)
            )
    return report, problems
