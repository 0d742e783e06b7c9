"""Pydantic models of the question bank: questions, rubric key points, misconceptions, probes.

The depth scale (used by the bank, the scorer and the evals):
0 nothing correct; 1 recall; 2 mechanism; 3 reasoning (why, trade-offs, every part);
4 expert (quantitative detail, derivations, recent variants, practice figures).
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

TOPICS: frozenset[str] = frozenset(
    {
        "actor-critic",
        "advantage",
        "async-rl",
        "capability",
        "determinism",
        "distillation",
        "dpo",
        "exploration",
        "frameworks",
        "grpo-variants",
        "hyperparameters",
        "inference-serving",
        "information-theory",
        "kl",
        "memory",
        "moe",
        "off-policy",
        "parallelism",
        "ppo",
        "precision",
        "reasoning",
        "reward",
        "rollout",
        "sampling",
        "trust-region",
    }
)

QUESTION_ID = re.compile(r"^(algo-(0[1-9]|1[0-9])|infra-(0[1-9]|1[0-6]))$")
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

NonEmpty = Annotated[str, Field(min_length=1)]


class Section(StrEnum):
    algorithm = "algorithm"
    infrastructure = "infrastructure"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Bilingual(_Strict):
    """A text in English and Chinese."""

    en: NonEmpty
    zh: NonEmpty

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


class Cues(_Strict):
    """Phrases that signal a point in a candidate's answer, per language (matched case-insensitively)."""

    en: list[NonEmpty] = Field(min_length=1)
    zh: list[NonEmpty] = Field(min_length=1)

    def all(self) -> list[str]:
        return [*self.en, *self.zh]


class KeyPoint(_Strict):
    """One thing a candidate must say or explain, at one depth level."""

    id: str = Field(pattern=SLUG.pattern)
    level: int = Field(ge=1, le=4)
    statement: NonEmpty
    cues: Cues
    probe: Bilingual
    """The follow-up to ask when this point is missing."""


class Misconception(_Strict):
    """A wrong claim candidates commonly make, with how to recognise and correct it."""

    id: str = Field(pattern=SLUG.pattern)
    statement: NonEmpty
    cues: Cues
    correction: NonEmpty


class Question(_Strict):
    id: str = Field(pattern=QUESTION_ID.pattern)
    section: Section
    topics: list[str] = Field(min_length=1)
    difficulty: int = Field(ge=1, le=3)
    prompt: Bilingual
    key_points: list[KeyPoint] = Field(min_length=5)
    misconceptions: list[Misconception] = Field(min_length=1)
    expert_probes: list[Bilingual] = Field(min_length=1)
    """Asked once levels 1-3 are covered, to find out whether the candidate reaches level 4."""
    model_answer: NonEmpty
    notes: list[str] = Field(min_length=1)
    """Ids of the reference notes the model answer draws on."""

    @field_validator("topics")
    @classmethod
    def _known_topics(cls, topics: list[str]) -> list[str]:
        unknown = sorted(set(topics) - TOPICS)
        if unknown:
            raise ValueError(f"unknown topic(s) {unknown}; allowed: {sorted(TOPICS)}")
        return topics

    @model_validator(mode="after")
    def _rubric_shape(self) -> Question:
        levels = {kp.level for kp in self.key_points}
        missing = sorted({1, 2, 3, 4} - levels)
        if missing:
            raise ValueError(f"key_points must span levels 1-4; no key point at level(s) {missing}")
        ids = [kp.id for kp in self.key_points] + [m.id for m in self.misconceptions]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicated key point / misconception id(s) {dupes}")
        expected = "algorithm" if self.id.startswith("algo-") else "infrastructure"
        if self.section != expected:
            raise ValueError(f"section must be {expected!r} for id {self.id!r}")
        return self

    def key_point(self, point_id: str) -> KeyPoint:
        return next(kp for kp in self.key_points if kp.id == point_id)
