"""Figures of named things (`figures` in knowledge/facts.yaml): "DeepSeek-V3 activates 8 routed
experts per token", "a forward pass costs about 2N FLOPs per token". A fluent wrong answer gives
several right figures and one wrong, and both e5 and the check of a sentence's figures against the
point's (`agent.text.figures_contradict`, which wants one of them to agree) take it for the right
claim. This reader finds each way the sentence states the figure and compares its number.

Precision comes first: a figure is the thing's only where the name nearest before it (or, with
none before, after it) is the thing's and not a rival's with figures of its own ("E4M3 (max 448),
E5M2 (max 57,344)"); a question states nothing, and a number after "not", "rather than" or 而不是
is the one refused."""

from __future__ import annotations

import re
from functools import cache

from knowledge.facts import Figure, figure_id, load_facts

NUMBER = r"(?<![\d.,])(?P<n>\d{1,3}(?:,\d{3})+(?![\d])|\d+(?:\.\d+)?)(?![\d])"
"""A number, thousands written with commas or not ("57,344", "57344")."""
ASKED = re.compile(r"[?？]\s*$|吗")
REFUSED = re.compile(r"\b(?:not|rather than|instead of|never)\b|不是|而不是|而非|并非|并不")
"""Before a number, within `REFUSED_REACH` characters: the sentence refuses that figure."""
REFUSED_REACH = 16
CLAIM = re.compile(r"[^;；。!?！？\n]+[;；。!?！？\n]?")


def _name(name: str) -> re.Pattern[str]:
    # "v3" is not in "deepseek-v3.2"'s figures' way, but "deepseek-v3" is not "deepseek-v3-base"'s
    # subject either: a name ends where a word does.
    return re.compile(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])")


@cache
def _compiled(figure_id_: str) -> tuple[list[re.Pattern[str]], list[re.Pattern[str]], list[re.Pattern[str]]]:
    figure = next(f for f in load_facts().figures if f.id == figure_id_)
    says = [re.compile(say.replace("{n}", NUMBER)) for say in figure.says]
    return [_name(n) for n in figure.subject], [_name(n) for n in figure.others], says


def misstated_figures(sentence: str) -> list[str]:
    """The figures (as wrong-claim ids) this sentence gives another number for."""
    out = []
    for claim in (c.group(0).lower() for c in CLAIM.finditer(sentence)):
        if ASKED.search(claim.strip()):
            continue
        out += [figure_id(f.id) for f in load_facts().figures if _misstates(f, claim) and figure_id(f.id) not in out]
    return out


def _misstates(figure: Figure, claim: str) -> bool:
    subject, others, says = _compiled(figure.id)
    if figure.context and not any(word in claim for word in figure.context):
        return False
    names = sorted(
        [(m.start(), m.end(), True) for p in subject for m in p.finditer(claim)]
        + [(m.start(), m.end(), False) for p in others for m in p.finditer(claim)]
    )
    for say in says:
        for match in say.finditer(claim):
            if not _of_the_thing(names, match.start("n")):
                continue
            refused = REFUSED.search(claim[max(0, match.start() - REFUSED_REACH) : match.start("n")])
            if not refused and not _right(figure, float(match.group("n").replace(",", ""))):
                return True
    return False


def _right(figure: Figure, number: float) -> bool:
    return number in figure.right or (figure.at_least is not None and number >= figure.at_least)


def _of_the_thing(names: list[tuple[int, int, bool]], at: int) -> bool:
    """Is the name nearest before the number (or, with none before, the first after it) the thing's?"""
    before = [ours for start, end, ours in names if end <= at]
    after = [ours for start, end, ours in names if start >= at]
    nearest = before[-1:] or after[:1]
    return bool(nearest and nearest[0])
