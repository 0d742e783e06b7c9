"""Gold transcripts: labelled interviews (see evals/README.md for the format)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from common.errors import InputError
from common.yaml_lines import LineLoader, line_of
from knowledge.models import Question

GOLD_DIR = Path(__file__).parent / "gold"
Action = Literal["follow_up", "hint", "move_on"]
TRAPS = (
    "keyword-list",
    "misconception",
    "injection",
    "off-topic",
    "gibberish",
    "verbose-shallow",
    "unusual-words",
    "empty",
    "dont-know",
)


class GoldError(InputError):
    """A gold file that cannot be used; the message names the file, the turn and the field."""


class _GoldRecord(BaseModel):
    """Frozen, and open to extra fields: a gold file may carry notes the evaluation does not read."""

    model_config = ConfigDict(extra="allow", frozen=True)


class GoldLabel(_GoldRecord):
    depth: int = Field(ge=0, le=4)
    next: list[Action] | None = None
    part: str | None = Field(default=None, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    """The part of the question (its id in the bank) the next follow-up should go to."""
    probe_any: list[str] | None = None
    reason: str | None = None

    @field_validator("next", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class GoldTurn(_GoldRecord):
    question: str
    asked: str | None = None
    answer: str = ""
    trap: str | None = None
    gold: GoldLabel

    @field_validator("answer", mode="before")
    @classmethod
    def _none_is_empty(cls, value: object) -> object:
        return "" if value is None else value


class GoldTranscript(_GoldRecord):
    id: str
    language: str | None = None
    split: str = "dev"
    note: str | None = None
    turns: list[GoldTurn] = Field(min_length=1)
    path: str = ""


def _at(path: Path, line: int | None) -> str:
    """`path:line`, or the path alone where the line is not known."""
    return f"{path}:{line}" if line else str(path)


def load_gold_file(path: Path, known_questions: set[str] | Mapping[str, Question]) -> GoldTranscript:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=LineLoader)  # LineLoader is a SafeLoader subclass
    except UnicodeDecodeError as exc:
        raise GoldError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise GoldError(f"{where}: YAML syntax error: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(data, dict):
        raise GoldError(f"{path}: expected a mapping with id and turns")
    try:
        transcript = GoldTranscript.model_validate({**data, "path": str(path)})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"]
        which_turn = f", turn {loc[1]}" if len(loc) > 1 and loc[0] == "turns" and isinstance(loc[1], int) else ""
        field = ".".join(str(p) for p in loc)
        raise GoldError(f"{_at(path, line_of(data, loc))}{which_turn}: field {field}: {err['msg']}") from None
    for i, turn in enumerate(transcript.turns):
        if turn.question not in known_questions:
            raise GoldError(f"{path}, turn {i}: unknown question id {turn.question!r}")
        parts = [p.id for p in known_questions[turn.question].parts] if isinstance(known_questions, Mapping) else None
        if turn.gold.part and parts is not None and turn.gold.part not in parts:
            raise GoldError(
                f"{_at(path, line_of(data, ('turns', i, 'gold', 'part')))}, turn {i}: field turns.{i}.gold.part: "
                f"{turn.gold.part!r} is not a part of {turn.question} ({', '.join(parts)})"
            )
    return transcript


def gold_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths or [GOLD_DIR]:
        files.extend(sorted(path.rglob("*.yaml")) + sorted(path.rglob("*.yml")) if path.is_dir() else [path])
    return files


def load_gold(
    paths: list[Path], known_questions: set[str] | Mapping[str, Question]
) -> tuple[list[GoldTranscript], list[str]]:
    """Every transcript that loads, and one message per file that does not (the others still run)."""
    transcripts, problems = [], []
    seen: dict[str, str] = {}
    for path in gold_files(paths):
        try:
            transcript = load_gold_file(path, known_questions)
        except GoldError as exc:
            problems.append(str(exc))
            continue
        except OSError as exc:
            problems.append(f"{path}: cannot read ({exc.strerror})")
            continue
        if transcript.id in seen:
            problems.append(f"{path}: duplicated transcript id {transcript.id!r} (also in {seen[transcript.id]})")
            continue
        seen[transcript.id] = str(path)
        transcripts.append(transcript)
    return transcripts, problems
