"""The interview's typed state and the models that cross boundaries (brain, front ends, reports)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict  # pydantic reads typing's TypedDict only from Python 3.12

from agent.planning import PlanRequest
from common.settings import Lang


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


PromptKind = Literal["ask", "follow_up", "hint"]
"""What the interviewer says at a turn: the question itself, a follow-up on it, or a hint toward a
key point."""


class Flag(StrEnum):
    empty = "empty"
    dont_know = "dont_know"
    off_topic = "off_topic"
    other_concept = "other_concept"
    """The answer explains a neighbouring concept (tensor parallelism for expert parallelism)."""
    gibberish = "gibberish"
    keyword_list = "keyword_list"
    grader_instruction = "grader_instruction"
    too_long = "too_long"
    misconception = "misconception"


class CandidateAction(StrEnum):
    """What the candidate did at an interviewer turn."""

    answer = "answer"
    hint = "hint"
    skip = "skip"
    idk = "idk"
    repeat = "repeat"
    end = "end"
    """End the session now, with a report (leaving it is the front end's business: it stays resumable)."""


class Heard(StrEnum):
    """What a reply in words asks of the interviewer, besides (or instead of) answering."""

    already_said = "already_said"
    """"I already said that": re-read the earlier answers, credit what is there, go on."""
    clarify = "clarify"
    """A question back about the question ("token-level or sequence-level?"): answer it, re-ask."""
    repeat = "repeat"
    """"Can you repeat?": say it again."""
    wait = "wait"
    """"Let me think", "one moment": wait for the answer."""
    move_on = "move_on"
    """"Can we move on?": close the question."""
    terse = "terse"
    """A bare yes or no ("No.", "对。"): ask for the reasoning; the question stands. (A second one in a
    row is judged as an answer.)"""


class Evidence(_Model):
    """A key point the candidate showed, with the sentence of theirs that shows it."""

    key_point: str
    level: int
    quote: str
    how: Literal["cue", "meaning", "llm", "recalled"] = "cue"
    """Which signal credited it: a cue phrase, the judge by meaning, or a model's verified claim;
    `recalled`: the candidate said they had said it, and their earlier words bear it out."""
    strength: float | None = None
    """The judge's probability that the sentence makes the point (None for a cue match)."""
    nearest: str | None = None
    """The exemplar of the point the sentence is closest to: what it was read as saying."""
    hinted: bool = False
    """Shown after a hint toward it (or in answer to a hint): it counts for depth, the review marks
    it "with a hint", and the profile rates the question Hard at best."""


class MisconceptionHit(_Model):
    misconception: str
    quote: str
    correction: str
    put_right: str | None = None
    """The candidate's later sentence on the question that put it right (a term given back to its
    owner: "不好意思我说反了。PagedAttention 是 vLLM 提出的"), if any."""


def by_quote(hits: list[MisconceptionHit]) -> list[list[MisconceptionHit]]:
    """The wrong claims grouped by the sentence that stated them, in order: one sentence that swaps
    two owners ("SGLang 用 PagedAttention，vLLM 是 RadixAttention") is one confusion, listed once
    with each correction (a trial's report listed it twice)."""
    groups: dict[str, list[MisconceptionHit]] = {}
    for hit in hits:
        groups.setdefault(hit.quote, []).append(hit)
    return list(groups.values())


class Assessment(_Model):
    """The judgement of one answer, and the cumulative depth on the question after it."""

    question: str
    depth: int = Field(ge=0, le=4)
    """Cumulative depth 0-4 on the question after this answer."""
    answer_depth: int = Field(ge=0, le=4)
    """What this answer alone supports."""
    covered: list[Evidence] = Field(default_factory=list)
    """Key points shown so far on this question (cumulative), each with its evidence."""
    new: list[str] = Field(default_factory=list)
    """Key points this answer added."""
    missed: list[str] = Field(default_factory=list)
    near_misses: list[Evidence] = Field(default_factory=list)
    """Missed key points a sentence came close to, with how close (why they were not credited)."""
    misconceptions: list[MisconceptionHit] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    reason: str = ""
    brain: str = "offline"
    fallback_reason: str | None = None
    note: str | None = None
    tokens_in: int | None = None
    """Model tokens read for this turn (the follow-up that was answered and the assessment); None offline."""
    tokens_out: int | None = None
    cost_usd: float | None = None
    """None when no model was called or its price is unknown (local models)."""
    latency_ms: float | None = None


class ModelUse(_Model):
    """Tokens, cost and latency of model calls (None where unknown)."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None


class BrainMemory(_Model):
    """What a model brain remembers of one session between turns. It is saved with the session, so a
    resumed session goes on where it stopped: the budget counts on from what was spent, the cost of
    the follow-up being answered is still reported with the next assessment."""

    spent_usd: float = 0.0
    """What the session's model calls have cost so far, failed ones included."""
    carried: ModelUse = ModelUse()
    """The call that wrote the line now being answered: reported with the next assessment."""
    calls: int = 0
    """Model calls made for the current candidate turn."""
    last: Assessment | None = None
    """The assessment of the current turn, until its follow-up is written."""
    question: str | None = None
    exchange: list[tuple[str, str]] = Field(default_factory=list)
    """The current question's conversation, (interviewer|candidate, text), for the follow-up writer."""


class KeyPointVerdict(_Model):
    """A model's judgement of one rubric key point, with the words it claims show it."""

    id: str
    status: Literal["covered", "partial", "missing"]
    quote: str = ""


class MisconceptionVerdict(_Model):
    id: str
    quote: str


class LLMVerdict(_Model):
    """The structured reply of a model judging one answer, before we verify it against the answer."""

    key_points: list[KeyPointVerdict] = Field(default_factory=list)
    misconceptions: list[MisconceptionVerdict] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    depth: int = Field(ge=0, le=4)
    """The depth on the question so far, counting the key points shown on earlier turns."""
    rationale: str = ""


class Decision(_Model):
    action: Literal["follow_up", "hint", "move_on"]
    target: str | None = None
    """Key point id, misconception id, or `expert:N` for an expert probe."""
    why: str = ""
    heard: Heard | None = None
    """What the candidate asked of the interviewer in the reply this decision answers."""
    said: str | None = None
    """The candidate's own words on the target (a protest's earlier answer, or a partial one): the
    follow-up names them and asks only for the rest."""
    said_now: bool = False
    """For a protest: `said` is in the protest itself, not in an earlier answer."""
    rung: int = 0
    """For a hint: how many hints toward the same key point came before (0: the gentlest)."""
    challenge: str | None = None
    """For a hint that redirects an answer standing on a wrong claim: the misconception it names first."""


class Reference(_Model):
    source: str
    heading: str
    text: str
    question_id: str | None = None


class Turn(_Model):
    """One exchange: what the interviewer asked and what the candidate did."""

    question: str
    kind: PromptKind
    asked: str
    target: str | None = None
    action: CandidateAction = CandidateAction.answer
    answer: str = ""
    heard: Heard | None = None
    """What the reply asked of the interviewer besides an answer (None: an answer, or a key action)."""
    assessment: Assessment | None = None
    decision: Decision | None = None


HINTED_AT_BEST = 2
"""The highest depth progress counts for a question on which something was shown only after a hint
(rated Hard): the hint did part of the work. So is one on which a wrong claim was stated, put right
later or not: it was believed until the challenge."""


class QuestionSummary(_Model):
    question: str
    depth: int
    reason: str
    covered: list[Evidence]
    missed: list[str]
    misconceptions: list[MisconceptionHit]
    model_answer: str
    references: list[Reference]
    skipped: bool = False

    @property
    def capped_by(self) -> str | None:
        """Why progress counts this question lower than its depth, as the label that says so: part
        of it came after a hint, or a wrong claim was stated on it; None when progress counts the
        depth."""
        if self.depth <= HINTED_AT_BEST:
            return None
        if any(e.hinted for e in self.covered):
            return "hint_capped"
        if not self.misconceptions:
            return None
        # said next to a 4/4 and a "you put it right later", the cap names the correction too (blind trial 41)
        return "wrong_claim_put_right_capped" if all(m.put_right for m in self.misconceptions) else "wrong_claim_capped"


class Pending(_Model):
    """The interviewer's message waiting for the candidate's reply."""

    question: str
    kind: PromptKind
    text: str
    target: str | None = None
    base: str | None = None
    """What is being asked, without a reply in front of it (to a clarifying question, a request to
    repeat, a pause); None when `text` is just that."""
    answering: str | None = None
    """The request this line answers ("clarify" or "wait"): the interviewer's own reply, shown as such,
    not as another follow-up or hint. None for the line that asks."""

    @property
    def asking(self) -> str:
        return self.base or self.text


class QuestionProgress(_Model):
    """Where the current question stands: kept in the state, advanced by the nodes, read by the policy.
    A new question starts from `QuestionProgress()` (or, in a drill, with its opener already probed)."""

    assessment: Assessment | None = None
    """The latest assessment on the question (cumulative); None before the first answer."""
    probed: tuple[str, ...] = ()
    """Targets already asked about, in order, so no probe is repeated."""
    follow_ups: int = Field(default=0, ge=0)
    """Follow-ups used (hints included)."""
    stalls: int = Field(default=0, ge=0)
    """Consecutive follow-ups that raised nothing."""
    hints: tuple[str, ...] = ()
    """The key point of each hint given, in order (one per rung climbed)."""
    references: tuple[Reference, ...] = ()
    """Reference material gathered for the question (its notes and the chunks nearest the answers)."""


class Amended(_Model):
    """An update of `turns` that replaces the last turn (now assessed, or decided on), not a new turn."""

    turn: Turn


def record_turns(turns: list[Turn], update: Turn | Amended | list[Turn]) -> list[Turn]:
    """The reducer of `InterviewState.turns`: a turn is appended, or the last one amended. A whole
    list replaces them all: that is what releases before 2026-12-03 wrote, and a checkpoint of theirs
    may hold such a write that the next resume applies."""
    if isinstance(update, Turn):
        return [*turns, update]
    if isinstance(update, Amended):
        return [*turns[:-1], update.turn]
    return list(update)


class InterviewInput(TypedDict):
    """What starts a session: the graph's input schema, written once by whoever starts it (the
    runner, an eval) and never changed by the nodes."""

    session_id: str
    """Also the checkpoint thread id."""
    request: PlanRequest
    """What the candidate asked for (the wording of each question chosen)."""
    plan: list[str]
    """Question ids in the order they are asked: `planning.make_plan(bank, request)`, made once by
    whoever starts the session."""
    lang: Lang
    """The language the interviewer asks, follows up and hints in."""
    max_follow_ups: int
    """Follow-ups (hints included) the interviewer may use on one question before moving on."""


class _Legacy(TypedDict, total=False):
    """Fields kept only for checkpoints of releases before 2026-12-03, which held the current
    question's progress here, loose; nothing writes them now. Only `progress_of` reads them, as the
    `QuestionProgress` fields of the same names, so a session saved by such a release resumes where
    it stopped."""

    assessment: Assessment | None
    probed: list[str]
    follow_ups: int
    stalls: int
    hinted: bool
    """Older still than `hints`: a hint was given, toward the last key point probed."""
    hints: list[str]
    references: list[Reference]


class _Started(InterviewInput, _Legacy):
    """Set by `plan` when the session starts, and present from then on."""

    position: int
    """Index in `plan` of the current question; advanced by `close`."""
    pending: Pending | None
    """What the candidate is being asked now: set by `plan`, `ask` (an answered clarification),
    `follow_up` and `close` (the next question); None once `report` ends the session."""
    turns: Annotated[list[Turn], record_turns]
    """Every exchange in order; a candidate's answer is here (written by `ask`) before it is
    assessed, and `assess` and `decide` amend it."""
    progress: QuestionProgress
    """Where the current question stands: started afresh by `plan` and `close` for each question,
    advanced by `retrieve`, `assess` and `follow_up`."""
    summaries: list[QuestionSummary]
    """One per closed question, in the order asked: written by `close` (empty from `plan`)."""
    ending: bool
    """The candidate asked to end (set by `ask`; False from `plan`): close the current question,
    then report."""
    status: Literal["active", "finished", "ended"]
    """`active` from `plan`; `report` sets `finished`, or `ended` when the candidate ended early."""


class InterviewState(_Started, total=False):
    """The graph's state, as checkpointed after every node."""

    spoken: int
    """Follow-ups, hints and replies the interviewer has written in the session (counted by `ask`
    and `follow_up`): picks the phrasing, so no two in a row open the same way."""
    brain_memory: BrainMemory | None
    """What the brain remembers of this session (a model brain's budget and conversation), written
    by `assess` and `follow_up`; None for the offline brain."""


def progress_of(state: InterviewState) -> QuestionProgress:
    """The current question's progress, also from a checkpoint written before it had one model."""
    kept = state.get("progress")
    if kept is not None:
        return kept
    probed = state.get("probed") or []
    hints = state.get("hints") or (probed[-1:] if state.get("hinted") else [])
    return QuestionProgress(
        assessment=state.get("assessment"),
        probed=tuple(probed),
        follow_ups=state.get("follow_ups", 0),
        stalls=state.get("stalls", 0),
        hints=tuple(hints),
        references=tuple(state.get("references") or []),
    )


SERIALIZED_MODELS = [
    (__name__, cls.__name__)
    for cls in (
        Flag,
        CandidateAction,
        Heard,
        Evidence,
        MisconceptionHit,
        Assessment,
        Decision,
        Reference,
        Turn,
        QuestionSummary,
        Pending,
        QuestionProgress,
        Amended,
        ModelUse,
        BrainMemory,
    )
] + [("agent.planning", "PlanRequest")]
