"""Exemplars for the judge by meaning: sentences that make (or only seem to make) each rubric claim.

One YAML file per question (`knowledge/exemplars/<id>.yaml`), written blind to the rubric's cue
lists: for every key point, paraphrases and plain-words versions of its claim and hard negatives
(the same terms, another claim); for every misconception, assertions and denials; and correct
explanations of neighbouring concepts that do not answer the question.

Their embeddings are computed once (`rl-interview judge embed`) and shipped in `vectors.npz`, keyed
by a hash of each text, so the interviewer never embeds an exemplar at start-up; a text without a
stored vector (an edited or added exemplar) is left out until the next `judge embed`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from common.yaml_lines import LineLoader, line_of
from knowledge.bank import Bank, BankProblem

EXEMPLAR_DIR = Path(__file__).parent / "exemplars"
VECTORS_FILE = "vectors.npz"

NonEmpty = Field(min_length=1)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KeyPointExemplars(_Strict):
    paraphrases: list[str] = Field(default_factory=list)
    plain: list[str] = Field(default_factory=list)
    hard_negatives: list[str] = Field(default_factory=list)

    @property
    def positives(self) -> list[str]:
        return [*self.paraphrases, *self.plain]


class MisconceptionExemplars(_Strict):
    assertions: list[str] = Field(default_factory=list)
    denials: list[str] = Field(default_factory=list)


class QuestionExemplars(_Strict):
    question: str
    key_points: dict[str, KeyPointExemplars] = Field(default_factory=dict)
    misconceptions: dict[str, MisconceptionExemplars] = Field(default_factory=dict)
    other_concepts: list[str] = Field(default_factory=list)


Role = Literal["positive", "hard_negative", "assertion", "denial", "other_concept"]


@dataclass(frozen=True)
class Row:
    """One exemplar sentence: whose it is (a key point or misconception id; '' for other concepts)."""

    question: str
    target: str
    role: Role
    text: str
    plain: bool = False


def text_key(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


def rows_of(exemplars: QuestionExemplars) -> list[Row]:
    q = exemplars.question
    rows: list[Row] = []
    for point, ex in exemplars.key_points.items():
        rows += [Row(q, point, "positive", t) for t in ex.paraphrases]
        rows += [Row(q, point, "positive", t, plain=True) for t in ex.plain]
        rows += [Row(q, point, "hard_negative", t) for t in ex.hard_negatives]
    for wrong, mis in exemplars.misconceptions.items():
        rows += [Row(q, wrong, "assertion", t) for t in mis.assertions]
        rows += [Row(q, wrong, "denial", t) for t in mis.denials]
    rows += [Row(q, "", "other_concept", t) for t in exemplars.other_concepts]
    return [r for r in rows if r.text.strip()]


def _parse(path: Path, bank: Bank | None) -> tuple[QuestionExemplars | None, list[BankProblem]]:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=LineLoader)  # LineLoader is a SafeLoader subclass
    except UnicodeDecodeError as exc:
        return None, [BankProblem(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, [
            BankProblem(
                path,
                f"YAML syntax error: {getattr(exc, 'problem', None) or exc}",
                mark.line + 1 if mark is not None else None,
            )
        ]
    if not isinstance(data, dict):
        return None, [BankProblem(path, "expected a mapping with question, key_points, misconceptions", 1)]
    try:
        exemplars = QuestionExemplars.model_validate(data)
    except ValidationError as exc:
        return None, [
            BankProblem(
                path, f"field {'.'.join(str(p) for p in e['loc']) or '(entry)'}: {e['msg']}", line_of(data, e["loc"])
            )
            for e in exc.errors()
        ]
    problems = []
    if bank is not None:
        question = bank.get(exemplars.question)
        if question is None:
            return None, [
                BankProblem(
                    path, f"field question: unknown question id {exemplars.question!r}", line_of(data, ["question"])
                )
            ]
        known = {kp.id for kp in question.key_points}
        wrong = {m.id for m in question.misconceptions}
        for field, ids, valid in (
            ("key_points", exemplars.key_points, known),
            ("misconceptions", exemplars.misconceptions, wrong),
        ):
            for unknown in sorted(set(ids) - valid):
                problems.append(
                    BankProblem(
                        path,
                        f"field {field}.{unknown}: not an id of {question.id}'s {field}",
                        line_of(data, [field, unknown]),
                    )
                )
    return exemplars, problems


def load_exemplars(
    folders: list[Path] | None = None, bank: Bank | None = None
) -> tuple[dict[str, QuestionExemplars], list[BankProblem]]:
    """Every exemplar file in `folders` (default: ours), by question id, and the problems found.

    A file with problems is reported and left out: its question is then judged on its cues alone."""
    out: dict[str, QuestionExemplars] = {}
    problems: list[BankProblem] = []
    for folder in folders or [EXEMPLAR_DIR]:
        for path in sorted(folder.glob("*.yaml")):
            exemplars, found = _parse(path, bank)
            problems += found
            if exemplars is not None and not found:
                out[exemplars.question] = exemplars
    return out, problems


def all_rows(exemplars: dict[str, QuestionExemplars]) -> list[Row]:
    return [row for qid in sorted(exemplars) for row in rows_of(exemplars[qid])]


@dataclass(frozen=True)
class VectorStore:
    """Exemplar embeddings by text key, for one embedding backend."""

    spec: str
    keys: dict[str, int]
    matrix: np.ndarray

    def lookup(self, texts: list[str]) -> tuple[np.ndarray, list[bool]]:
        """Vectors for the texts (zero rows where a text has none) and which ones were found."""
        found = [text_key(t) in self.keys for t in texts]
        out = np.zeros((len(texts), self.matrix.shape[1] if self.matrix.size else 0), dtype=np.float32)
        for i, text in enumerate(texts):
            if found[i]:
                out[i] = self.matrix[self.keys[text_key(text)]]
        return out, found


def load_vectors(path: Path) -> VectorStore | None:
    if not path.exists():
        return None
    with np.load(path, allow_pickle=False) as data:
        keys = [str(k) for k in data["keys"]]
        return VectorStore(str(data["spec"]), {k: i for i, k in enumerate(keys)}, data["vectors"].astype(np.float32))


def save_vectors(path: Path, spec: str, texts: list[str], vectors: np.ndarray) -> None:
    """Stored as float16 (4.6 MB rather than 9 for the bank): cosine scores move by under 1e-3."""
    keys = np.array([text_key(t) for t in texts])
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, spec=np.array(spec), keys=keys, vectors=vectors.astype(np.float16))
    tmp.replace(path)
