"""Who owns what (`facts.yaml`): named designs and the origins of systems and algorithms, each with
one owner among its rivals. The judge reads a sentence that gives one to a rival as a wrong claim;
each owned attribute becomes a misconception any question can be charged with ("gives
RadixAttention to another system"), challenged and corrected like the bank's own."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from common.errors import InputError
from knowledge.models import SLUG, Bilingual, Cues, Misconception, NonEmpty, Source, _Strict

FACTS_FILE = Path(__file__).parent / "facts.yaml"
REVERSED_WEIGHT = "reversed-importance-weight"
REVERSED_DPO_REWARD = "reversed-dpo-implicit-reward"
"""The reversed formulas read by their shape (`agent/judge/upside_down.py`)."""


class _Named(_Strict):
    name: NonEmpty
    name_zh: NonEmpty | None = None
    """How a Chinese line names it, where the English name reads as English ("the token-level ratio")."""

    def named(self, lang: str) -> str:
        return self.name_zh if lang == "zh" and self.name_zh else self.name


class _Term(_Named):
    id: str = Field(pattern=SLUG.pattern)
    names: list[NonEmpty] = Field(min_length=1)
    """How answers write it, lower case, in any language."""
    same_as: list[str] = Field(default_factory=list)
    """Bank misconceptions that state this very swap: a question that has one is charged with it,
    not with the swap besides (one wrong claim counted once)."""


class Attribute(_Term):
    source: Source


class Outsider(_Term):
    """A name of the attributes' kind that no owner of the group has (a lab that made none of these
    algorithms): bound to any of them, it is wrong. A trial's "ProRL, the prolonged-RL paper from
    Google DeepMind" gave NVIDIA's work to a lab the facts knew nothing of, and nothing objected."""


class Owner(_Named):
    names: list[NonEmpty] = Field(min_length=1)
    owns: list[Attribute] = Field(min_length=1)


class Group(_Strict):
    """Rivals (engines, frameworks, algorithms) and what each of them alone owns."""

    id: str = Field(pattern=SLUG.pattern)
    what: Bilingual
    ask: Bilingual
    """The follow-up that challenges a swap ({term}: the term given away)."""
    binds_by: Literal["design", "origin", "role"]
    """`role`: who plays which part ("PP across nodes", "routing recorded in the trainer"): a term is
    bound to the nearest rival in its clause, whatever the word between (`misattribution._bound_to`)."""
    owners: list[Owner] = Field(min_length=2)
    context: list[NonEmpty] = Field(default_factory=list)
    """Words one of which the sentence must hold for the group to be read there (clip-higher's
    bounds only where DAPO or clip-higher is named)..."""
    context_in_clause: bool = False
    """... or the very clause of the binding ("record" is R3's role only in a clause about routing:
    "并在整个训练过程中记录逐 token 的训推 KL", a bank model answer's, records no routing)."""
    ignore: list[NonEmpty] = Field(default_factory=list)
    """Names that hold an owner or a term without binding them ("rollout routing replay")."""
    acted_on: bool = False
    """The owners are what the role words act on ("raises ε_high"): a name right after the word is
    bound to it without a word of place."""
    outsiders: list[Outsider] = Field(default_factory=list)
    ask_outsider: Bilingual | None = None
    """The follow-up that challenges giving an owner to an outsider: it names no owner, since none is right."""

    @model_validator(mode="after")
    def _roles_have_two_sides(self) -> Group:
        if self.binds_by == "role" and len(self.owners) != 2:
            raise ValueError(f"role group {self.id} needs exactly two owners (a swap gives a term to the other)")
        return self

    @model_validator(mode="after")
    def _outsiders_are_challenged(self) -> Group:
        if self.outsiders and self.ask_outsider is None:
            raise ValueError(f"group {self.id} has outsiders: it needs ask_outsider")
        return self


class Quantity(_Strict):
    names: list[NonEmpty] = Field(min_length=1)
    """How answers name it, lower case, in any language ("β", "kl coefficient", "kl 系数")."""
    rises: list[NonEmpty] = Field(default_factory=list)
    """Its own words for more of it, beside the common ones next to a name ("staler", 越旧)."""
    falls: list[NonEmpty] = Field(default_factory=list)


class Measure(_Strict):
    """Something the quantity moves, said with a common direction word ("higher variance", 方差更小)."""

    names: list[NonEmpty] = Field(min_length=1)
    up_when: Literal["raised", "lowered"]
    """It goes up when the quantity is raised, or when it is lowered."""


class _StatedWrong(_Strict):
    """A wrong claim our facts state with its correction, challenge and sources (a trend turned
    round, a figure misstated), read as a misconception of every question."""

    id: str = Field(pattern=SLUG.pattern)
    statement: NonEmpty
    """The wrong claim a sentence is charged with."""
    statement_zh: NonEmpty
    correction: NonEmpty
    correction_zh: NonEmpty
    challenge: Bilingual
    sources: list[Source] = Field(min_length=1)

    def _misconception(self, misconception_id: str, cues: list[str]) -> Misconception:
        return Misconception(
            id=misconception_id,
            statement=self.statement,
            statement_zh=self.statement_zh,
            cues=Cues(en=cues, zh=cues),
            correction=self.correction,
            correction_zh=self.correction_zh,
            challenge=self.challenge,
            sources=self.sources,
        )


class Trend(_StatedWrong):
    """What raising a quantity does: "a larger β keeps the policy nearer the reference". A fluent
    wrong answer keeps every term and turns the direction round ("β 越大，KL 约束越弱"), which e5
    reads as the right claim; the reader (agent/judge/trends.py) pairs the way the quantity moves
    with the way its effect moves; its statement is the claim turned round."""

    quantity: Quantity
    raising: list[NonEmpty] = Field(min_length=1)
    """What raising it does, in any language, as answers word it."""
    lowering: list[NonEmpty] = Field(min_length=1)
    """What lowering it does."""
    measures: list[Measure] = Field(default_factory=list)

    def as_misconception(self) -> Misconception:
        return self._misconception(trend_id(self.id), self.quantity.names)


class Figure(_StatedWrong):
    """A figure of a named thing ("DeepSeek-V3 activates 8 routed experts per token"). A fluent answer
    that gives several right figures and one wrong ("每个 token 激活其中 16 个", blind trial 35) agrees
    with the point by meaning and by its other figures; the reader (agent/judge/known_figures.py) checks
    each figure the sentence gives of the thing against its own. Its statement is the figure
    misstated."""

    subject: list[NonEmpty] = Field(min_length=1)
    """How answers name the thing, lower case: the sentence must name it."""
    others: list[NonEmpty] = Field(default_factory=list)
    """Things with figures of their own (training's 6N beside inference's 2N): a sentence that names
    one of them is left alone."""
    context: list[NonEmpty] = Field(default_factory=list)
    """Words one of which the sentence must hold ("flops", "mfu"), where the figure's pattern is common."""
    says: list[NonEmpty] = Field(min_length=1)
    """Regular expressions for stating the figure, lower case, with `{n}` where the number goes."""
    right: list[float] = Field(min_length=1)
    at_least: float | None = None
    """A figure that is a floor ("post-training compute above 10% of pretraining"): any number from it
    up is right as well."""
    group: str | None = None
    """The group whose swap the wrong figure often belongs to: "E4M3 的最大可表示值是 57344" gives E4M3
    E5M2's maximum, one confusion with the layouts swapped, not two wrong claims."""

    @model_validator(mode="after")
    def _says_compile(self) -> Figure:
        for say in self.says:
            if "{n}" not in say:
                raise ValueError(f"figure {self.id}: {say!r} has no {{n}} for the number")
            try:
                re.compile(say.replace("{n}", "0"))
            except re.error as exc:
                raise ValueError(f"figure {self.id}: {say!r} is not a regular expression ({exc})") from None
        return self

    def as_misconception(self) -> Misconception:
        return self._misconception(figure_id(self.id), self.subject)


class Facts(_Strict):
    groups: list[Group]
    reversed_formulas: list[Misconception] = Field(default_factory=list)
    """Formulas written the other way round (the ratio upside down, a loss's sign flipped): e5 puts
    a formula and its reverse on top of each other, so these are read by their written forms (cues,
    in the formula form cue phrases are matched in), as wrong claims of every question."""
    trends: list[Trend] = Field(default_factory=list)
    figures: list[Figure] = Field(default_factory=list)

    @model_validator(mode="after")
    def _figures_name_known_groups(self) -> Facts:
        groups = {g.id for g in self.groups}
        for figure in self.figures:
            if figure.group is not None and figure.group not in groups:
                raise ValueError(f"figure {figure.id}: no group {figure.group!r}")
        return self


def trend_id(trend: str) -> str:
    """The wrong claim of a trend (by its id) stated the wrong way round."""
    return f"reversed-{trend}"


def figure_id(figure: str) -> str:
    """The wrong claim of a figure (by its id): another number given for it."""
    return f"misstated-{figure}"


def owned_by(thing: str, owner: str) -> str:
    """The thing given to its owner as a sentence opens: "PagedAttention is vLLM's", "… is the key/value
    blocks'"; a name that ends in a bracket takes no possessive ("is E5M2 (5 exponent bits, 2
    mantissa bits)'s", blind trial 41)."""
    if owner.endswith((")", "）")):
        said = f"{thing} belongs to {owner}"
    else:
        said = f"{thing} is {owner}'" if owner.endswith("s") else f"{thing} is {owner}'s"
    return said[:1].upper() + said[1:]


def misattribution_id(attribute: _Term) -> str:
    return f"misattributed-{attribute.id}"


@cache
def load_facts(path: Path = FACTS_FILE) -> Facts:
    try:
        return Facts.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not valid YAML: {exc}") from None
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise InputError(f"{path}: {where}") from None


@cache
def _group_of_swap() -> dict[str, str]:
    """Each swap's group, by its own id and by the bank misconceptions that state it (`same_as`: a
    question charges the swap under the bank's id, "tp-across-nodes", and its mirror under ours)."""
    out: dict[str, str] = {}
    for group in load_facts().groups:
        for attribute in [*(a for o in group.owners for a in o.owns), *group.outsiders]:
            out |= dict.fromkeys([misattribution_id(attribute), *attribute.same_as], group.id)
    out |= {figure_id(f.id): f.group for f in load_facts().figures if f.group}
    return out


def is_a_detail(misconception: str) -> bool:
    """Is this wrong claim a detail its sentence states beside others: who made something, or one
    figure of a named thing? The sentence's other claims stand ("ProRL, the prolonged-RL paper from
    Google DeepMind, trained a 1.5B model for over 2,000 steps"; "FP8's exponent bits keep relative
    precision constant over a wide range: E4M3 up to 448, E5M2 up to 65,504", blind trials 35 and 36)."""
    origins = {g.id for g in load_facts().groups if g.binds_by == "origin"}
    figures = {figure_id(f.id) for f in load_facts().figures}
    return misconception in figures or _group_of_swap().get(misconception) in origins


def confusion(misconception: str) -> str:
    """The fact group a swap belongs to, by its id or by the bank misconception that states it (the
    hint after challenging it goes to the point stating that group right; a swap sentence is no
    evidence for such a point); anything else is itself."""
    return _group_of_swap().get(misconception, misconception)


@cache
def challenges() -> dict[str, Bilingual]:
    """Per misattribution, reversed formula or reversed trend, the question that challenges it."""
    swaps = {
        misattribution_id(a): Bilingual(en=g.ask.en.format(term=a.name), zh=g.ask.zh.format(term=a.named("zh")))
        for g in load_facts().groups
        for owner in g.owners
        for a in owner.owns
    }
    outsiders = {
        misattribution_id(o): g.ask_outsider for g in load_facts().groups for o in g.outsiders if g.ask_outsider
    }
    reversals = {m.id: m.challenge for m in _reversals() if m.challenge is not None}
    return swaps | outsiders | reversals


def _reversals() -> list[Misconception]:
    """Formulas written the other way round, trends turned round and figures misstated."""
    facts = load_facts()
    return [
        *facts.reversed_formulas,
        *(t.as_misconception() for t in facts.trends),
        *(f.as_misconception() for f in facts.figures),
    ]


@cache
def misattributions() -> dict[str, Misconception]:
    """The wrong claims any question can be charged with: each owned attribute given to a rival or
    an owner given to an outsider, each formula or trend written the other way round, and each figure
    misstated."""
    out = {m.id: m for m in _reversals()}
    for group in load_facts().groups:
        # the whole group's owners, so a swap's correction also says what the rival owns
        # ("CISPO is DeepSeek's method" was corrected only with what DeepSeek made)
        each_en = "; ".join(f"{o.name}: {', '.join(a.name for a in o.owns)}" for o in group.owners)
        each_zh = "；".join(f"{o.named('zh')}：{'、'.join(a.named('zh') for a in o.owns)}" for o in group.owners)
        for owner in group.owners:
            for attribute in owner.owns:
                names, ref = [*attribute.names, *owner.names], attribute.source.ref
                statement = f"{attribute.name} belongs to a rival of {owner.name}."
                statement_zh = f"把 {attribute.named('zh')} 安到了 {owner.named('zh')} 之外的系统头上。"
                # an origin is said the way round it happened ("… came from the Dr. GRPO paper", not
                # "the Dr. GRPO paper is the removal of GRPO's length and difficulty biases'")
                said = (
                    f"{owner.name[:1].upper()}{owner.name[1:]} came from {attribute.name}"
                    if group.binds_by == "origin"
                    else owned_by(attribute.name, owner.name)
                )
                correction = f"{said} ({group.what.en}; {ref}). In full: {each_en}."
                said_zh = (
                    f"{owner.named('zh')} 出自 {attribute.named('zh')}"
                    if group.binds_by == "origin"
                    else f"{attribute.named('zh')} 属于 {owner.named('zh')}"
                )
                correction_zh = f"{said_zh}（{group.what.zh}；{ref}）。完整的对应：{each_zh}。"
                if group.binds_by == "role":  # two rivals; "recorded is the inference engine's" reads wrong
                    rival = next(o for o in group.owners if o is not owner)
                    statement = f"{attribute.name[:1].upper()}{attribute.name[1:]}: {rival.name}, not {owner.name}."
                    statement_zh = f"{attribute.named('zh')}的是{rival.named('zh')}，而不是{owner.named('zh')}。"
                    correction = f"It is the other way round: {each_en} ({group.what.en}; {ref})."
                    correction_zh = f"说反了：{each_zh}（{group.what.zh}；{ref}）。"
                out[misattribution_id(attribute)] = Misconception(
                    id=misattribution_id(attribute),
                    statement=statement,
                    statement_zh=statement_zh,
                    cues=Cues(en=names, zh=names),
                    correction=correction,
                    correction_zh=correction_zh,
                    sources=[attribute.source],
                )
        rivals_en = ", ".join(o.name for o in group.owners)
        rivals_zh = "、".join(o.named("zh") for o in group.owners)
        for outsider in group.outsiders:
            names = [*outsider.names, *(n for o in group.owners for n in o.names)]
            out[misattribution_id(outsider)] = Misconception(
                id=misattribution_id(outsider),
                statement=f"One of {rivals_en} comes from {outsider.name}.",
                statement_zh=f"把 {rivals_zh} 中的一个安到了 {outsider.named('zh')} 头上。",
                cues=Cues(en=names, zh=names),
                correction=f"None of these comes from {outsider.name} ({group.what.en}). In full: {each_en}.",
                correction_zh=f"这些都不是 {outsider.named('zh')} 的（{group.what.zh}）。完整的对应：{each_zh}。",
                sources=[a.source for o in group.owners for a in o.owns],
            )
    return out
