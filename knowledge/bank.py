"""Loading and validating the question bank (one YAML file per question)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from knowledge.models import Question
from knowledge.yaml_lines import LineDict, LineLoader, line_of

BANK_DIR = Path(__file__).parent / "bank"
NOTES_DIR = Path(__file__).parent / "notes"


@dataclass(frozen=True)
class BankProblem:
    """One problem in one bank file, located as precisely as we can."""

    path: Path
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}"


class BankError(Exception):
    def __init__(self, problems: list[BankProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class Bank(Mapping[str, Question]):
    """The questions by id, in bank order (algo-01..algo-19, then infra-01..infra-16)."""

    def __init__(self, questions: list[Question]):
        self._by_id = {q.id: q for q in sorted(questions, key=_order)}

    def __getitem__(self, question_id: str) -> Question:
        return self._by_id[question_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def questions(self) -> list[Question]:
        return list(self._by_id.values())


def _order(question: Question) -> tuple[int, str]:
    return (0 if question.section == "algorithm" else 1, question.id)


@dataclass(frozen=True)
class BankEntry:
    """A valid bank file: its question and the loaded YAML, which knows the line of every key."""

    path: Path
    question: Question
    data: LineDict

    def line(self, *loc: str | int) -> int | None:
        return line_of(self.data, loc)

    def line_of_point(self, point_id: str) -> int | None:
        """The line of a key point's or misconception's `id:`."""
        for field in ("key_points", "misconceptions"):
            for i, item in enumerate(self.data.get(field) or []):
                if isinstance(item, dict) and item.get("id") == point_id:
                    return self.line(field, i, "id")
        return None


def _parse_file(path: Path) -> tuple[BankEntry | None, list[BankProblem]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return None, [BankProblem(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})")]
    try:
        data = yaml.load(text, Loader=LineLoader)  # noqa: S506 - LineLoader is a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [BankProblem(path, f"YAML syntax error: {problem}", line)]
    if not isinstance(data, dict):
        return None, [BankProblem(path, "expected a mapping with the question's fields", 1)]
    try:
        return BankEntry(path, Question.model_validate(data), data), []
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "(entry)"
            problems.append(BankProblem(path, f"field {field}: {err['msg']}", line_of(data, err["loc"])))
        return None, problems


def load_bank(path: Path | None = None, *, strict: bool = True) -> Bank:
    """Load every `*.yaml` under `path` (default: the bank shipped with the package).

    With strict=True any problem raises BankError listing all of them; otherwise bad files are
    left out (use `validate_bank` to see why).
    """
    bank, problems = validate_bank(path)
    if problems and strict:
        raise BankError(problems)
    return bank


def validate_bank(path: Path | None = None) -> tuple[Bank, list[BankProblem]]:
    entries, problems = bank_entries(path)
    return Bank([e.question for e in entries]), problems


def bank_entries(path: Path | None = None) -> tuple[list[BankEntry], list[BankProblem]]:
    """The valid entries under `path` (default: the shipped bank) with their files, and the problems."""
    root = path or BANK_DIR
    files = [root] if root.is_file() else sorted(root.glob("*.yaml"))
    problems: list[BankProblem] = []
    seen: dict[str, Path] = {}
    entries: list[BankEntry] = []
    if not files:
        problems.append(BankProblem(root, "no bank files (*.yaml) found"))
    for file in files:
        entry, file_problems = _parse_file(file)
        problems.extend(file_problems)
        if entry is None:
            continue
        if entry.question.id in seen:
            problems.append(BankProblem(file, f"duplicated id {entry.question.id!r} (also in {seen[entry.question.id]})"))
            continue
        seen[entry.question.id] = file
        entries.append(entry)
    return entries, problems
