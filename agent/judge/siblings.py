"""Things that come in families, where naming the wrong member is the whole error.

"GRPO uses the k1 estimator, which is non-negative per token" has every word of the k3 point but
k3 itself; e5 puts the two sentences side by side and a cue phrase cannot tell them apart. A point
whose statement names a member of a family (k3, expert parallelism, the reference model) is not
credited by a sentence that names another member of that family and not the point's own, unless
the sentence contrasts them ("unlike k1, ..."). Nor is a point about a family credited by a
sentence that makes two of its members one ("the reference model is the old policy"). The families
are ours: the confusions the bank's questions invite, not a list fitted to any answer.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise

from knowledge.models import KeyPoint, Misconception


def _parallel(en: str, zh: str) -> str:
    """Tensor parallelism ("tensor parallelism"), also as the first of a list ("tensor, pipeline and expert parallelism")."""
    return rf"\b{en}(?:(?:,| and| or|/)\s*[a-z]+)*[- ]parallel|{zh}(?:[、和与/][\u4e00-\u9fff]{{1,4}})*并行"


ROLES: dict[str, dict[str, str]] = {
    # Not Kimi's models (k1.5, K2).
    "kl-estimator": {k: rf"(?<!kimi )\b{k}\b(?!\.\d)" for k in ("k1", "k2", "k3")},
    "kl-direction": {
        "forward": r"\bforward[- ]kl\b|\bkl\(p\s*\|\|\s*q|前向 ?kl|正向 ?kl",
        "reverse": r"\breverse[- ]kl\b|\bkl\(q\s*\|\|\s*p|反向 ?kl|逆向 ?kl",
    },
    "parallelism": {
        short: rf"\b{short}\b|{_parallel(en, zh)}"
        for short, en, zh in (
            ("tp", "tensor", "张量"),
            ("ep", "expert", "专家"),
            ("pp", "pipeline", "流水线"),
            ("cp", "context", "上下文"),
            ("dp", "data", "数据"),
        )
    },
    "number-format": {
        "fp8": r"\bfp8\b",
        "int8": r"\bint8\b",
        "bf16": r"\bbf16\b|bfloat16",
        "fp16": r"\bfp16\b|float16",
        "int4": r"\bint4\b",
    },
    "fp8-layout": {"e4m3": r"\be4m3\b", "e5m2": r"\be5m2\b"},
    "anchor-policy": {
        "reference": r"\breference (model|policy)\b|\bπ_?ref\b|\bpi_?ref\b|参考模型|参考策略",
        "old": r"\bold policy\b|\bπ_?old\b|\bpi_?old\b|旧策略|老策略",
    },
    "zero-stage": {f"zero-{n}": rf"zero[- ]?(?:[123]/)*{n}\b" for n in "123"},  # also ZeRO-1/2/3
    # Where a KL penalty goes: "the per-token KL is subtracted from the reward" has every word of
    # GRPO's KL-in-the-loss point, whose statement names the reward only to set it aside.
    "kl-placement": {
        "loss": r"\bkl\b[^.;。；]{0,40}?(?:\b(?:in|into|to|inside|on) (?:the )?(?:\w+ )?loss\b|loss ?(?:里|中|上)|"
        r"损失(?:函数)?(?:里|中|上))|\bkl[ -]loss\b|"
        r"\b(?:put|puts|putting|add|adds|added|adding)\b[^.;。；]{0,20}?\b(?:in|into|to) (?:the )?(?:\w+ )?loss\b",
        "reward": r"\bkl\b[^.;。；]{0,40}?(?:\b(?:from|in|into|to|inside) (?:the |each |every )?"
        r"(?:per[- ]token |token[- ]level |scalar )?rewards?\b|(?:reward|奖励) ?(?:里|中|上))|"
        r"\bsubtract\w*\b[^.;。；]{0,30}?\bfrom (?:the |each |every )?(?:per[- ]token )?rewards?\b|"
        r"\brewards?\s+(?:minus|less|-|−)\s+(?:\w+\s*[*·×]?\s*){0,3}kl\b|\bkl[- ](?:penali[sz]ed|shaped) rewards?\b",
    },
}
"""Families whose member a point's statement names is what the point is about."""

SYSTEMS: dict[str, dict[str, str]] = {
    "inference-phase": {"prefill": r"\bprefill|预填充", "decode": r"\bdecod|解码阶段"},
    "inference-engine": {"vllm": r"\bvllm\b", "sglang": r"\bsglang\b", "trt": r"tensorrt"},
    "rl-framework": {
        "slime": r"\bslime\b",
        "areal": r"\bareal\b",
        "verl": r"\bverl\b",
        "openrlhf": r"\bopenrlhf\b",
        "pipelinerl": r"\bpipeline ?rl\b",
    },
    "training-backend": {"megatron": r"\bmegatron\b", "fsdp": r"\bfsdp\b", "deepspeed": r"\bdeepspeed\b"},
    "algorithm": {name: rf"\b{name}\b" for name in ("ppo", "grpo", "dapo", "gspo", "cispo", "dpo", "rloo", "trpo")},
}
"""Systems and methods, which statements also cite as examples: a point is about one only when its
id names it (`areal-sync-is-the-problem`)."""

FAMILIES = ROLES | SYSTEMS

CONTRAST = re.compile(
    r"\b(unlike|instead of|rather than|compared (to|with)|whereas|as opposed to|versus|vs|by contrast|in contrast|"
    r"conversely)\b|不同于|而不是|而非|相比|不像|反而|相反|反之"
)
"""A sentence that sets two members against each other names both on purpose."""


IDENTITY_BETWEEN = re.compile(
    r"\s*(?:(?:is|are|was|=|==|equals|means|i\.e\.,?)\s+(?:(?:just|simply|basically|really|actually|exactly|"
    r"literally)\s+)?(?:(?:the\s+)?same\s+(?:thing\s+)?as\s+)?(?:the|a|an|your)?|=|==|就是|即|也就是|其实就是|其实是|"
    r"等于|等同于|是)\s*"
)
"""All that stands between two members when a sentence makes them one: "the reference model is the
old policy", "π_ref = π_old", "参考模型就是旧策略"."""

BOTH_THEN_SAME = (
    re.compile(r"\s*(?:and|&|和|与|跟)\s*"),
    re.compile(r"\s*(?:are|is)\s+(?:the\s+same|identical)\b|\s*(?:是|其实是)?(?:同一个|一样的?|相同的?)"),
)
"""Or joins them and then says they are the same: "π_ref and π_old are the same model", "参考模型和旧策略是同一个"."""


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def members(text: str, families: dict[str, dict[str, str]] = FAMILIES) -> dict[str, set[str]]:
    """The family members a lower-cased text names, by family."""
    found: dict[str, set[str]] = {}
    for family, named in families.items():
        hits = {member for member, pattern in named.items() if _compiled(pattern).search(text)}
        if hits:
            found[family] = hits
    return found


@cache
def _own(point_id: str, statement: str, cues: tuple[str, ...]) -> dict[str, set[str]]:
    """What the point is about, per family: the members its id names, else the one role its
    statement names (a statement naming several compares or lists them); with either, the members
    its cue phrases name ("dp attention" for EP vs TP)."""
    by_id = members(point_id.replace("-", " "))
    single = {family: named for family, named in members(statement.lower(), ROLES).items() if len(named) == 1}
    about = {**single, **by_id}
    cued = members(" | ".join(cues).lower())
    return {family: named | cued.get(family, set()) for family, named in about.items()}


def _spans(text: str, family: dict[str, str]) -> list[tuple[int, int, str]]:
    return sorted(
        (m.start(), m.end(), member) for member, pattern in family.items() for m in _compiled(pattern).finditer(text)
    )


def equated(sentence: str) -> set[str]:
    """The role families two of whose members the sentence says are one and the same."""
    text = sentence.lower()
    out = set()
    for family, named in ROLES.items():
        spans = _spans(text, named)
        for (_, end, first), (start, end2, second) in pairwise(spans):
            if first == second:
                continue
            between = text[end:start]
            joined, same = BOTH_THEN_SAME
            if IDENTITY_BETWEEN.fullmatch(between) or (joined.fullmatch(between) and same.match(text, end2)):
                out.add(family)
    return out


def names_a_sibling_instead(point: KeyPoint, sentence: str) -> bool:
    """Does the sentence name another member of a family the point's statement names, and not the
    point's own member, without contrasting them?"""
    own = _own(point.id, point.statement, tuple(point.cues.all()))
    same = equated(sentence)
    if same and same & members(" | ".join([point.statement, *point.cues.all()]).lower(), ROLES).keys():
        return True  # the sentence makes two members of the point's family one
    if not own:
        return False
    said = members(sentence.lower())
    for family, mine in own.items():
        theirs = said.get(family, set())
        if theirs and not theirs & mine and not CONTRAST.search(sentence.lower()):
            return True
    return False


def sibling_swapped_in(point: KeyPoint, wrong: Misconception, sentence: str) -> bool:
    """Does the sentence make the point with the sibling the misconception puts in its place? "OPD 用
    forward KL，也就是 KL(π_teacher || π_student) 作为 loss" reads as the reverse-KL objective with its
    direction swapped, which is what *OPD minimises forward KL* states; the misconception's own
    reader had put it at 0.39 and a blind trial's answer went unchallenged. Roles only (k3, forward
    KL, ZeRO-3, ...), one member each: systems and lists of them flagged correct sentences."""
    if CONTRAST.search(sentence.lower()):
        return False
    own = _own(point.id, point.statement, tuple(point.cues.all()))
    said = members(sentence.lower(), ROLES)
    claimed = members(" ".join([wrong.statement, wrong.statement_zh or ""]).lower(), ROLES)
    # One member each: the point's, and the one sibling both the sentence and the misconception name.
    return any(
        len(mine) == 1 and len(said.get(family, ())) == 1 and said[family] == claimed.get(family) != mine
        for family, mine in own.items()
        if family in ROLES
    )


def owns_the_sibling(point: KeyPoint, wrong: Misconception, sentence: str) -> bool:
    """Is the member the misconception puts in another's place the point's own, and named by the
    sentence? Then a sentence making the point talks about that member as the point does."""
    own = _own(point.id, point.statement, tuple(point.cues.all()))
    said = members(sentence.lower(), ROLES)
    claimed = members(" ".join([wrong.statement, wrong.statement_zh or ""]).lower(), ROLES)
    return any(own[family] & said.get(family, set()) & claimed.get(family, set()) for family in own if family in ROLES)


def names_its_own_member(point: KeyPoint, sentence: str) -> bool:
    """Does the sentence name the point's own member of a role family ("reverse KL" for the
    reverse-KL objective)?"""
    own = _own(point.id, point.statement, tuple(point.cues.all()))
    said = members(sentence.lower(), ROLES)
    return any(said.get(family, set()) & mine for family, mine in own.items() if family in ROLES)


def about_another_algorithm(statement: str, sentence: str) -> bool:
    """Is the sentence about the algorithm a wrong claim compares its subject with ("GRPO computes
    advantages with GAE, like PPO"; "... as InstructGPT-style PPO does"), and not about the subject?
    What the claim says of the subject is true of that one: "In classic RLHF PPO the KL is folded into
    the reward" is right, and a trial user's correct answer was capped at depth 0 for it."""
    text = statement.lower()
    named = SYSTEMS["algorithm"]
    spans = _spans(text, named)
    compared = {member for start, _, member in spans if COMPARED_WITH.search(text[max(0, start - 40) : start + 40])}
    subject = spans[0][2] if spans else None
    said = members(sentence.lower(), {"algorithm": named}).get("algorithm", set())
    return bool(said & (compared - {subject})) and subject not in said and not CONTRAST.search(sentence.lower())


COMPARED_WITH = re.compile(
    r"\blike\s+(?:[\w-]+\s+){0,2}?(?:ppo|grpo|dapo|gspo|cispo|dpo|rloo|trpo)\b|"
    r"\bas\s+(?:[\w-]+\s+){0,2}?(?:ppo|grpo|dapo|gspo|cispo|dpo|rloo|trpo)\s+does\b"
)
"""How a wrong claim's statement names the algorithm it says its subject is like."""
