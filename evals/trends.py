"""`rl-interview eval --trends`: does the judge catch a trend stated the wrong way round ("β 越大，KL
约束越弱") and leave the right way round alone?

The sentences (`evals/trends/sentences.yaml`) were written blind to the reader by a helper who saw
only the nine trends' right directions (`trends` in knowledge/facts.yaml): per trend, eight the right
way round, eight reversed, four with no claim of direction. A second helper, blind to the first's
intent, labelled each (`second`); sentences the two label differently are counted apart. Alternate
sentences form the dev half (the reader's word lists were chosen on it) and the test half (measured,
never tuned on).

Roles (`evals/trends/roles.yaml`): the same for the groups whose owners play parts (`binds_by: role`:
TP inside the node and PP across nodes; R3's routing recorded in the engine and replayed in training;
decoupled PPO's clip centred on the proximal policy), from a third writer and a blind labeller; a
sentence is flagged when it gives a term of the group to the wrong owner (agent/judge/misattribution.py).

Per half and language: the share of each intent flagged as that trend reversed (for "reversed" that
is recall, for the others false flags).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from agent.judge.misattribution import misattributions_in
from agent.judge.trends import reversed_trends
from common.errors import InputError
from evals.halves import halves_report, halves_table
from knowledge.facts import load_facts, misattribution_id, trend_id

TRENDS_FILE = Path(__file__).parent / "trends" / "sentences.yaml"
ROLES_FILE = Path(__file__).parent / "trends" / "roles.yaml"
Intent = Literal["right", "reversed", "none"]


class TrendItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    trend: str | None = None
    group: str | None = None
    """A role group of knowledge/facts.yaml, for a sentence about roles (then no `trend`)."""
    intent: Intent
    second: Intent
    """The second, blind rater's label."""
    lang: Literal["en", "zh", "mixed"]
    split: Literal["dev", "test"]
    sentence: str


def load_trend_items(path: Path = TRENDS_FILE) -> list[TrendItem]:
    items = [TrendItem.model_validate(raw) for raw in yaml.safe_load(path.read_text(encoding="utf-8"))]
    facts = load_facts()
    known = {t.id for t in facts.trends} | {g.id for g in facts.groups if g.binds_by == "role"}
    unknown = sorted({i.trend or i.group or "(neither trend nor group)" for i in items} - known)
    if unknown:
        raise InputError(f"{path}: trends or role groups not in knowledge/facts.yaml: {', '.join(unknown)}")
    return items


def all_items() -> list[TrendItem]:
    return load_trend_items(TRENDS_FILE) + load_trend_items(ROLES_FILE)


def _flagged(item: TrendItem) -> bool:
    if item.trend:
        return trend_id(item.trend) in reversed_trends(item.sentence)
    group = next(g for g in load_facts().groups if g.id == item.group)
    ids = {misattribution_id(a) for o in group.owners for a in o.owns}
    return any(m.misconception in ids for m in misattributions_in(item.sentence))


def evaluate_trends(items: list[TrendItem]) -> dict:
    agreed = (
        (i.split, (f"{kind}{i.intent}", f"{kind}{i.intent} ({i.lang})"), _flagged(i))
        for i in items
        if i.intent == i.second
        for kind in ["" if i.trend else "roles: "]
    )
    return halves_report(len(items), agreed, lambda flags: {"flagged": round(sum(flags) / len(flags), 3)})


def table(report: dict) -> str:
    return halves_table(
        report,
        "sentences",
        ["flagged"],
        lambda r: [f"{r['flagged']:.3f}"],
        "Flagged as the trend reversed (roles: a term given to the wrong owner): for 'reversed' the recall, "
        "for 'right' and 'none' false flags.",
    )
