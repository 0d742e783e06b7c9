"""Loading and validating the question bank (one YAML file per question): ours, shipped with the
package, and the user's own from the folders in `bank_paths` (`<id>.yaml` with its note `<id>.md`
beside it), merged into one bank."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import yaml
from pydantic import ValidationError

from common.errors import InputError
from common.yaml_lines import LineDict, LineLoader, line_of
from knowledge.models import USER_QUESTION_ID, Question

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


class BankError(InputError):
    def __init__(self, problems: list[BankProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class Bank(Mapping[str, Question]):
    """The questions by id, in bank order (algo-01..algo-19, then infra-01..infra-16, each section
    followed by the user's own questions in it)."""

    def __init__(
        self,
        questions: list[Question],
        *,
        notes: Mapping[str, list[Path]] | None = None,
        problems: Sequence[BankProblem] = (),
    ):
        self._by_id = {q.id: q for q in sorted(questions, key=_order)}
        self.notes = dict(notes or {})
        """The note files of the user's questions, by question id (ours are in NOTES_DIR)."""
        self.problems = list(problems)
        """Why some of the user's questions were left out (each with its file, line and field)."""

    def __getitem__(self, question_id: str) -> Question:
        return self._by_id[question_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def questions(self) -> list[Question]:
        return list(self._by_id.values())

    def worded(self, wordings: Mapping[str, int]) -> Bank:
        """The bank as a session asks it: each question's prompt is the wording chosen for it."""
        questions = [
            q.model_copy(update={"prompt": q.wording(wordings[q.id])}) if wordings.get(q.id) else q
            for q in self.questions()
        ]
        return Bank(questions, notes=self.notes, problems=self.problems)

    def note_text(self, question_id: str) -> str:
        """The reference note(s) of a question as Markdown, without the `Question:` line."""
        question = self[question_id]
        paths = self.notes.get(question_id) or [NOTES_DIR / f"{note}.md" for note in question.notes]
        texts = [QUESTION_LINE.sub("", path.read_text(encoding="utf-8")).strip() for path in paths if path.is_file()]
        return "\n\n".join(texts)


QUESTION_LINE = re.compile(r"^Question:\s*((?:algo|infra)-\d\d|my-[a-z0-9]+(?:-[a-z0-9]+)*)\s*$", re.MULTILINE)
"""The line of a reference note naming its question, e.g. `Question: algo-07`."""


def _order(question: Question) -> tuple[int, bool, str]:
    return (0 if question.section == "algorithm" else 1, question.yours, question.id)


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
        data = yaml.load(text, Loader=LineLoader)  # LineLoader is a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [BankProblem(path, f"YAML syntax error: {problem}", line)]
    if not isinstance(data, dict):
        return None, [BankProblem(path, "expected a mapping with the question's fields", 1)]
    try:
        # LineLoader builds every mapping as a LineDict
        return BankEntry(path, Question.model_validate(data), cast(LineDict, data)), []
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "(entry)"
            problems.append(BankProblem(path, f"field {field}: {err['msg']}", line_of(data, err["loc"])))
        return None, problems


def load_bank(path: Path | None = None, *, strict: bool = True, extra: Sequence[Path] = ()) -> Bank:
    """Load every `*.yaml` under `path` (default: the bank shipped with the package), and the user's
    questions from the folders in `extra` (settings.bank_paths).

    With strict=True any problem in `path` raises BankError listing all of them; otherwise bad files
    are left out (use `validate_bank` to see why). A bad question of the user's is always left out
    and named in `Bank.problems`, so one broken file never keeps the rest from working.
    """
    entries, problems = bank_entries(path)
    if problems and strict:
        raise BankError(problems)
    yours, your_problems = user_entries(extra, entries)
    return Bank([e.question for e in [*entries, *yours]], notes=_notes_of(yours), problems=your_problems)


def validate_bank(path: Path | None = None, extra: Sequence[Path] = ()) -> tuple[Bank, list[BankProblem]]:
    """The valid questions and every problem, ours and the user's, and every wording that drops a
    part of its question (the questions still load: `load_bank` does not check wordings)."""
    from knowledge.wording_check import dropped_parts

    entries, problems = bank_entries(path)
    yours, your_problems = user_entries(extra, entries)
    dropped = [
        BankProblem(
            entry.path,
            f"field wordings.{index - 1}.{lang}: does not ask part {part!r} ({entry.question.part(part).get(lang)})",
            entry.line("wordings", index - 1, lang),
        )
        for entry in [*entries, *yours]
        for index, lang, part in dropped_parts(entry.question)
    ]
    return Bank([e.question for e in [*entries, *yours]], notes=_notes_of(yours)), [*problems, *your_problems, *dropped]


def user_entries(folders: Iterable[Path], ours: Sequence[BankEntry] = ()) -> tuple[list[BankEntry], list[BankProblem]]:
    """The user's valid questions in `folders`, and the problems of the others: our problems of
    any bank file, an id outside the user's id space (my-...), an id another file already has
    (naming both files), a note that is missing or does not name its question."""
    taken = {entry.question.id: entry.path for entry in ours}
    entries: list[BankEntry] = []
    problems: list[BankProblem] = []
    for folder in folders:
        if not folder.is_dir():
            problems.append(BankProblem(folder, "bank_paths: no such folder"))
            continue
        found, found_problems = bank_entries(folder, empty_ok=True)
        problems.extend(found_problems)
        for entry in found:
            qid = entry.question.id
            if not USER_QUESTION_ID.match(qid):
                clash = f" (ours: {taken[qid]})" if qid in taken else ""
                problems.append(
                    BankProblem(
                        entry.path,
                        f"field id: {qid!r} is in our id space{clash}; the ids of "
                        "your questions are my-<name>, e.g. my-reward-hacking",
                        entry.line("id"),
                    )
                )
            elif qid in taken:
                problems.append(
                    BankProblem(entry.path, f"field id: duplicated id {qid!r} (also in {taken[qid]})", entry.line("id"))
                )
            elif note_problems := _note_problems(entry):
                problems.extend(note_problems)
            else:
                taken[qid] = entry.path
                entries.append(entry)
    return entries, problems


def user_note_files(folders: Iterable[Path]) -> list[Path]:
    """The notes beside the user's questions in their bank folders (for the store and the retriever)."""
    return [note for folder in folders for note in sorted(folder.glob("*.md"))]


def _note_files(entry: BankEntry) -> list[Path]:
    return [entry.path.with_name(f"{note}.md") for note in entry.question.notes]


def _note_problems(entry: BankEntry) -> list[BankProblem]:
    problems = []
    for i, path in enumerate(_note_files(entry)):
        line = entry.line("notes", i)
        if not path.is_file():
            problems.append(BankProblem(entry.path, f"field notes.{i}: no note {path.name} beside the question", line))
            continue
        named = QUESTION_LINE.search(path.read_text(encoding="utf-8", errors="replace"))
        if not named or named.group(1) != entry.question.id:
            problems.append(
                BankProblem(
                    entry.path,
                    f"field notes.{i}: {path.name} must name its question on a line `Question: {entry.question.id}`",
                    line,
                )
            )
    return problems


def _notes_of(entries: Iterable[BankEntry]) -> dict[str, list[Path]]:
    return {entry.question.id: _note_files(entry) for entry in entries}


def bank_entries(path: Path | None = None, *, empty_ok: bool = False) -> tuple[list[BankEntry], list[BankProblem]]:
    """The valid entries under `path` (default: the shipped bank) with their files, and the problems."""
    root = path or BANK_DIR
    files = [root] if root.is_file() else sorted(root.glob("*.yaml"))
    problems: list[BankProblem] = []
    seen: dict[str, Path] = {}
    entries: list[BankEntry] = []
    if not files and not empty_ok:
        problems.append(BankProblem(root, "no bank files (*.yaml) found"))
    for file in files:
        entry, file_problems = _parse_file(file)
        problems.extend(file_problems)
        if entry is None:
            continue
        if entry.question.id in seen:
            problems.append(
                BankProblem(file, f"duplicated id {entry.question.id!r} (also in {seen[entry.question.id]})")
            )
            continue
        seen[entry.question.id] = file
        entries.append(entry)
    return entries, problems
