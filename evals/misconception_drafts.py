"""Drafted wrong claims, for the judge that comes next (`evals/exemplar_drafts/misconceptions/`).

Six more misconceptions per question, each in the bank's form (statement, cues, correction,
sources) with 8 assertions and 3 denials, written blind to the cues, the gold set and the judge.
Merged into the bank they made the judge by meaning worse on the gold dev split (README: "how the
judge works"), so they wait here, validated, for a reader that tells a claim from its reversal.
One a user trial showed the judge missing is promoted: its entry moves to the bank (the claim) and
the exemplars (its assertions and denials), and its id is listed under `promoted`.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.models import Misconception, NonEmpty

DRAFT_DIR = Path(__file__).parent / "exemplar_drafts" / "misconceptions"


class DraftMisconception(Misconception):
    assertions: list[NonEmpty] = Field(min_length=6)
    denials: list[NonEmpty] = Field(min_length=2)


class QuestionDrafts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    misconceptions: list[DraftMisconception]
    promoted: list[NonEmpty] = Field(default_factory=list)
    """Drafts moved into the bank and the exemplars, by id."""


def load_misconception_drafts(folder: Path = DRAFT_DIR) -> dict[str, QuestionDrafts]:
    """Every draft file by question id; a bad one raises ValueError naming the file and field."""
    out: dict[str, QuestionDrafts] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            drafts = QuestionDrafts.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        except (yaml.YAMLError, ValidationError) as exc:
            raise ValueError(f"{path}: {exc}") from exc
        out[drafts.question] = drafts
    return out
