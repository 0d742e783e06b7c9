"""Who "it" is: a sentence that opens on a pronoun is read with the system it stands for.

A candidate names AReaL once and then says "我记得它会保留旧的 KV cache"; read alone, the sentence
has no subject, and the judge by meaning put it under the threshold of the very misconception it
states (0.96 against 0.998 with "AReaL" in place of 它), so the question closed at depth 4 on a wrong
central claim (a blind trial, twenty-second session). The pronoun is resolved only where there is
one candidate: the one system (framework, engine, training backend, algorithm) the sentence before
names. A sentence naming a system of its own, a plural pronoun, and "it" as a dummy subject ("it
depends", "it is clear that") are left as they are, and so is an answer's first sentence: read with
the system its question names, "它只见过一堆固定的例子" (the model, in a blind sentence on DPO) lost its
credit. The evidence quoted stays the candidate's own sentence.
"""

from __future__ import annotations

import re

from agent.judge.siblings import SYSTEMS, members

HEDGE = (
    r"(?:(?:so|and|but|then|also|i think|i believe|i remember|i recall|iirc|as far as i know|afaik)"
    r"(?:,| that)?\s+|"
    r"(?:when|once|after|whenever|during) [^,.;]{1,60}, |"
    r"(?:所以|但是|但|而且|然后|并且|我记得|我觉得|我认为|我印象里|我印象中|印象中|印象里|好像|据我所知)[，,]?\s*|"
    r"[^，,。；;它其]{1,20}?(?:的时候|之后|以后)[，,]?\s*)?"
)
"""What may come before the pronoun: a connective, a hedge or a time clause ("so it", "我记得它",
"所以它", "when the weights change, it", "权重更新的时候它": a trial's AReaL sentence, read without
its subject, fell under the bar of the very point it makes)."""
OPENING_PRONOUN = re.compile(
    rf"^(?P<hedge>{HEDGE})(?:(?P<en>it(?:'s|’s| is)?)(?=\s)|(?P<zh>[它其])(?!们))",
    re.IGNORECASE,
)
DUMMY_IT = re.compile(
    r"\s+(?:depends|seems|turns out|means|looks|sounds|happens|helps|matters|makes sense|"
    r"(?:is |'s |’s |was )?(?:not )?(?:clear|important|true|worth|possible|likely|unlikely|hard|easy|known|"
    r"shown|reported|found|said|a (?:real|big|good|bad|common)|fine|ok|okay|simple|essentially|basically|about|"
    r"because|why|that|the same))\b",
    re.IGNORECASE,
)
""""It" standing for no system: "it depends", "it is clear that", "it's a real paradigm shift"."""


def resolve(sentences: list[str]) -> list[str]:
    """The sentences as the judge reads them: an opening pronoun replaced by its system. A sentence
    that itself opens on a pronoun left open names no referent for the next: in "slime is built
    around SGLang. So it is SGLang-native. It keeps the algorithm close to on-policy" the last "it"
    is slime, not the SGLang its sentence before names."""
    read = sentences[:1]
    for sentence in sentences[1:]:
        before = read[-1]
        read.append(_with_referent(sentence, None if OPENING_PRONOUN.match(before) else _only_system(before)))
    return read


def _with_referent(sentence: str, referent: str | None) -> str:
    opening = OPENING_PRONOUN.match(sentence)
    if referent is None or opening is None or _systems(sentence):
        return sentence
    if opening["en"] and DUMMY_IT.match(sentence, opening.end()):
        return sentence
    copula = " is" if opening["en"] and len(opening["en"]) > 2 else ""
    rest = sentence[opening.end() :]
    gap = " " if rest[:1] and not rest[:1].isspace() and not copula else ""
    hedge = opening["hedge"] + (
        " " if opening["hedge"] and not opening["hedge"][-1].isspace() and opening["hedge"][-1] != "，" else ""
    )
    return f"{hedge}{referent}{copula}{gap}{rest}"


def _only_system(text: str) -> str | None:
    """The one system a text names, as it writes it; None for none or several."""
    named = _systems(text)
    if len(named) != 1:
        return None
    ((family, member),) = named
    match = re.search(NAMED[family][member], text.lower())
    if match is None:
        return None
    # "Dr. GRPO" is another method than GRPO.
    qualifier = QUALIFIER.search(text, 0, match.start())
    return text[qualifier.start() if qualifier else match.start() : match.end()]


QUALIFIER = re.compile(r"\bdr\.?\s*$", re.IGNORECASE)


NAMED = {family: SYSTEMS[family] for family in ("inference-engine", "rl-framework", "training-backend", "algorithm")}
"""What "it" can stand for: named systems and methods (not a phase such as decode)."""


def _systems(text: str) -> set[tuple[str, str]]:
    return {(family, m) for family, found in members(text.lower(), NAMED).items() for m in found}
