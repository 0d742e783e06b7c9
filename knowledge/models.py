"""Pydantic models of the question bank: questions, rubric key points, misconceptions, probes.

The depth scale (used by the bank, the scorer and the evals):
0 nothing correct; 1 recall; 2 mechanism; 3 reasoning (why, trade-offs, every part);
4 expert (quantitative detail, derivations, recent variants, practice figures).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

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

OUR_QUESTION_ID = re.compile(r"^(algo-(0[1-9]|1[0-9])|infra-(0[1-9]|1[0-6]))$")
USER_QUESTION_ID = re.compile(r"^my-[a-z0-9]+(-[a-z0-9]+)*$")
"""The id space of the user's own questions (`bank_paths`): my-<slug>, never one of ours."""
QUESTION_ID = re.compile(f"{OUR_QUESTION_ID.pattern}|{USER_QUESTION_ID.pattern}")
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
ARXIV_REF = re.compile(r"^arXiv:\d{4}\.\d{4,5}(v\d+)?$")
URL_REF = re.compile(r"^https?://[^\s/]+\.[^\s]+$")
CODE_REF = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+:[^\s@:]+@[0-9a-f]{7,40}$")
"""owner/repo:path@commit, e.g. THUDM/slime:slime/backends/megatron_utils/loss.py@624b824a8."""

NonEmpty = Annotated[str, Field(min_length=1)]


DEPTH_NAMES = ("nothing correct", "recall", "mechanism", "reasoning", "expert")
"""The depth scale's words, 0-4: the one copy every room shows."""


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


class Source(_Strict):
    """Where a fact can be checked, and which fact it is."""

    ref: str
    """An arXiv id (arXiv:2402.03300), a URL, or code pinned to a commit (owner/repo:path@commit)."""
    supports: NonEmpty
    """What the source shows, in our words: the claim or figure a reader can check there."""
    secondary: bool = False
    """True when the source only reports the fact (a blog, a summary), not where it was established."""

    @field_validator("ref")
    @classmethod
    def _known_form(cls, ref: str) -> str:
        if not (ARXIV_REF.match(ref) or URL_REF.match(ref) or CODE_REF.match(ref)):
            raise ValueError(
                f"{ref!r} is not an arXiv id (arXiv:2402.03300), a URL (https://...) or code pinned to a "
                "commit (owner/repo:path@commit)"
            )
        return ref

    @property
    def kind(self) -> str:
        return "arxiv" if ARXIV_REF.match(self.ref) else "url" if URL_REF.match(self.ref) else "code"


Sources = Annotated[list[Source], Field(default_factory=list)]


def in_language(english: str, chinese: str | None, lang: str) -> str:
    """A text of the bank in the session's language: the Chinese where written, else the English."""
    return chinese.strip() if lang == "zh" and chinese and chinese.strip() else english


class KeyPoint(_Strict):
    """One thing a candidate must say or explain, at one depth level."""

    id: str = Field(pattern=SLUG.pattern)
    level: int = Field(ge=1, le=4)
    statement: NonEmpty
    cues: Cues
    probe: Bilingual
    """The follow-up to ask when this point is missing."""
    part: str | None = None
    """The id of the part of the question (`Question.parts`) this point answers."""
    hints: list[Bilingual] = Field(default_factory=list, max_length=3)
    """Up to three hints, from a gentle nudge to an almost-answer; none states the statement outright."""
    sources: Sources
    """Where the statement's facts can be checked (`rl-interview bank audit` lists points without)."""
    statement_zh: str | None = None
    """The statement in Chinese, shown in a Chinese session's review and report (the judge reads the
    English one)."""
    figures: bool = False
    """The point is its figures (numbers, a formula): a sentence that gives none does not show it,
    whatever it names ("Thinking Machines wrote a blog post about it")."""

    def statement_in(self, lang: str) -> str:
        return in_language(self.statement, self.statement_zh, lang)


class Misconception(_Strict):
    """A wrong claim candidates commonly make, with how to recognise and correct it."""

    id: str = Field(pattern=SLUG.pattern)
    statement: NonEmpty
    cues: Cues
    correction: NonEmpty
    sources: Sources
    """Where the correction can be checked."""
    statement_zh: str | None = None
    correction_zh: str | None = None
    challenge: Bilingual | None = None
    """What the interviewer asks right after the claim is stated: a question that makes the candidate
    test the claim, without giving the correction away (without one, the probe of the key point the
    claim touches is asked)."""
    needs: list[NonEmpty] = Field(default_factory=list)
    """Words (any language, matched like cue phrases) one of which a sentence read by meaning must
    use to be charged with the claim: its wrong part ("hack" for "DPO has no reward model, so it
    cannot be hacked", whose first half is right). Empty: none needed."""
    gets_wrong: str | None = Field(default=None, pattern=SLUG.pattern)
    """The key point the claim gets wrong, where the words it shares with the statements would pick
    another ("OPD minimises forward KL ... like classic knowledge distillation" shares most with the
    point on SFT, but gets the reverse-KL objective wrong): what its challenge revisits, and what a
    later answer must show to put it right."""

    def statement_in(self, lang: str) -> str:
        return in_language(self.statement, self.statement_zh, lang)

    def correction_in(self, lang: str) -> str:
        return in_language(self.correction, self.correction_zh, lang)


class Part(Bilingual):
    """One sub-question of the seed question, in the order the prompt asks them."""

    id: str = Field(pattern=SLUG.pattern)


class Clarification(_Strict):
    """A question a candidate may ask back about the prompt, and the interviewer's answer."""

    asks: Bilingual
    answer: Bilingual


class Figure(_Strict):
    """A figure the model answer states (quoted exactly), with where it comes from."""

    figure: NonEmpty
    sources: list[Source] = Field(min_length=1)


class Question(_Strict):
    id: str = Field(pattern=QUESTION_ID.pattern)
    section: Section
    topics: list[str] = Field(min_length=1)
    difficulty: int = Field(ge=1, le=3)
    prompt: Bilingual
    parts: list[Part] = Field(default_factory=list)
    """The sub-questions of the prompt, in order; every key point names one."""
    key_points: list[KeyPoint] = Field(min_length=5)
    misconceptions: list[Misconception] = Field(min_length=1)
    expert_probes: list[Bilingual] = Field(min_length=1)
    """Asked once levels 1-3 are covered, to find out whether the candidate reaches level 4."""
    clarifications: list[Clarification] = Field(default_factory=list)
    """Answers to the questions a candidate may ask back ("token-level or sequence-level?")."""
    wordings: list[Bilingual] = Field(default_factory=list)
    """Other wordings of `prompt` that keep all of its parts; a session asks one of them (or the
    prompt itself), so a candidate who meets the question again does not recite to a known text."""
    model_answer: NonEmpty
    model_answer_zh: str | None = None
    """The model answer in Chinese (the figures stated in `model_answer` hold for it too)."""
    figures: list[Figure] = Field(default_factory=list)
    """The model answer's figures and their sources."""
    notes: list[str] = Field(min_length=1)
    """Ids of the reference notes the model answer draws on."""
    reviewed: date | None = None
    """When the entry was last checked against its primary sources (knowledge/REVIEW.md says how)."""
    aliases: dict[str, str] = Field(default_factory=dict)
    """Former key point / misconception ids and the id each now has, so saved profiles and
    sessions that name an old id still resolve."""

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
        if OUR_QUESTION_ID.match(self.id) and self.section != expected:
            raise ValueError(f"section must be {expected!r} for id {self.id!r}")
        located: list[tuple[tuple[str | int, ...], str]] = []
        for old, new in self.aliases.items():
            if old in ids:
                located.append((("aliases", old), f"{old!r} is a current id, so it cannot also be a former one"))
            elif new not in ids:
                located.append(
                    (("aliases", old), f"{old!r} points to {new!r}, which is not a key point or misconception id")
                )
        located += self._part_problems()
        points = {kp.id for kp in self.key_points}
        for i, wrong in enumerate(self.misconceptions):
            if wrong.gets_wrong is not None and wrong.gets_wrong not in points:
                located.append(
                    (("misconceptions", i, "gets_wrong"), f"{wrong.gets_wrong!r} is not one of the key point ids")
                )
        for i, figure in enumerate(self.figures):
            if figure.figure not in self.model_answer:
                located.append(
                    (
                        ("figures", i, "figure"),
                        f"{figure.figure!r} does not occur in the model answer (quote it exactly)",
                    )
                )
        if located:
            raise _errors_at(located)
        return self

    @property
    def yours(self) -> bool:
        """A question of the user's own (from `bank_paths`), not one of ours."""
        return bool(USER_QUESTION_ID.match(self.id))

    def wording(self, index: int) -> Bilingual:
        """Wording `index`: 0 is the prompt (the seed wording), 1.. are `wordings`."""
        return self.prompt if index == 0 else self.wordings[index - 1]

    def _part_problems(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Parts, when given, are distinct, each answered by a key point, and name every key point's part."""
        part_ids = [p.id for p in self.parts]
        located: list[tuple[tuple[str | int, ...], str]] = []
        for i, part in enumerate(self.parts):
            if part_ids.count(part.id) > 1:
                located.append((("parts", i, "id"), f"duplicated part id {part.id!r}"))
            elif not any(kp.part == part.id for kp in self.key_points):
                located.append((("parts", i, "id"), f"no key point answers part {part.id!r}"))
        for i, kp in enumerate(self.key_points):
            if kp.part is None and self.parts:
                located.append((("key_points", i, "part"), f"{kp.id!r} names no part (one of {part_ids})"))
            elif kp.part is not None and kp.part not in part_ids:
                located.append((("key_points", i, "part"), f"{kp.part!r} is not a part of the question ({part_ids})"))
        return located

    def model_answer_in(self, lang: str) -> str:
        return in_language(self.model_answer, self.model_answer_zh, lang)

    def part(self, part_id: str) -> Part:
        return next(p for p in self.parts if p.id == part_id)

    def points_of(self, part_id: str) -> list[KeyPoint]:
        """The key points that answer a part, in rubric order."""
        return [kp for kp in self.key_points if kp.part == part_id]

    def current_id(self, point_id: str) -> str:
        """The id a key point or misconception has now (itself unless it is a former id)."""
        return self.aliases.get(point_id, point_id)

    def missed(self, shown: Collection[str] = ()) -> list[str]:
        """Ids of the key points not in `shown`, lowest level first (the bank's order within a
        level): the order a follow-up goes down the rubric."""
        return [kp.id for kp in sorted(self.key_points, key=lambda kp: kp.level) if kp.id not in shown]

    def key_point(self, point_id: str) -> KeyPoint:
        point_id = self.current_id(point_id)
        return next(kp for kp in self.key_points if kp.id == point_id)

    def misconception(self, misconception_id: str) -> Misconception:
        wrong = self._wrong(misconception_id)
        if wrong is None:
            raise KeyError(misconception_id)
        return wrong

    def _wrong(self, misconception_id: str) -> Misconception | None:
        """The bank's misconception, or a term given to the wrong owner (`knowledge/facts.yaml`), which
        any question can be charged with."""
        from knowledge.facts import misattributions  # facts builds on these models

        current = self.current_id(misconception_id)
        return next((m for m in self.misconceptions if m.id == current), None) or misattributions().get(current)

    def statement_in(self, point_id: str, said: str, lang: str) -> str:
        """A key point's statement as a session recorded it (`said`), in the session's language
        where the bank has it."""
        current = self.current_id(point_id)
        point = next((kp for kp in self.key_points if kp.id == current), None)
        return in_language(said, point.statement_zh if point else None, lang)

    def correction_in(self, misconception_id: str, said: str, lang: str) -> str:
        """The correction a session recorded (`said`), in the session's language where the bank has
        it (a misconception no longer in the bank keeps what was said)."""
        wrong = self._wrong(misconception_id)
        return in_language(said, wrong.correction_zh if wrong else None, lang)


def _errors_at(located: list[tuple[tuple[str | int, ...], str]]) -> ValidationError:
    """A validation error whose entries name the exact field, so the bank loader can give its line."""
    return ValidationError.from_exception_data(
        "Question",
        [
            InitErrorDetails(
                type=PydanticCustomError("bank_entry", "{message}", {"message": message}), loc=loc, input=None
            )
            for loc, message in located
        ],
    )
