"""`rl-interview eval --trends`: does the judge catch a trend stated the wrong way round ("β 越大，KL
约束越弱") and leave the right way round alone?

The sentences (`evals/trends/sentences.yaml`) were written blind to the reader by a helper who saw
only the nine trends' right directions (`trends` in knowledge/facts.yaml): per trend, eight the right
way round, eight reversed, four with no claim of direction. A second helper, blind to the first's
intent, labelled each (`second`); sentences the two label differently are counted apart. Alternate
sentences form the dev half (the reader's word lists were chosen on it) and the test half (measured,
never tuned on).

Per half and language: the share of each intent flagged as that trend reversed (for "reversed" that
is recall, for the others false flags).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from agent.judge.trends import reversed_trends
from common.errors import InputError
from evals.halves import halves_report, halves_table
from knowledge.facts import load_facts, trend_id

TRENDS_FILE = Path(__file__).parent / "trends" / "sentences.yaml"
Intent = Literal["right", "reversed", "none"]


class TrendItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    trend: str
    intent: Intent
    second: Intent
    """The second, blind rater's label."""
    lang: Literal["en", "zh", "mixed"]
    split: Literal["dev", "test"]
    sentence: str


def load_trend_items(path: Path = TRENDS_FILE) -> list[TrendItem]:
    items = [TrendItem.model_validate(raw) for raw in yaml.safe_load(path.read_text(encoding="utf-8"))]
    known = {t.id for t in load_facts().trends}
    unknown = sorted({i.trend for i in items} - known)
    if unknown:
        raise InputError(f"{path}: trends not in knowledge/facts.yaml: {', '.join(unknown)}")
    return items


def evaluate_trends(items: list[TrendItem]) -> dict:
    agreed = (
        (i.split, (i.intent, f"{i.intent} ({i.lang})"), trend_id(i.trend) in reversed_trends(i.sentence))
        for i in items
        if i.intent == i.second
    )
    return halves_report(len(items), agreed, lambda flags: {"flagged": round(sum(flags) / len(flags), 3)})


def table(report: dict) -> str:
    return halves_table(
        report,
        "sentences",
        ["flagged"],
        lambda r: [f"{r['flagged']:.3f}"],
        "Flagged as the trend reversed: for 'reversed' the recall, for 'right' and 'none' false flags.",
    )
