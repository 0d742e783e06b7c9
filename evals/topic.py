"""`rl-interview eval --topic`: does the judge call off-topic only what is off the question?

The replies (`evals/topic/replies.yaml`) were written blind to the judge by a helper who saw only
the questions: for each of the 35, two about something else entirely (small talk, puns on a word of
the question), one that answers another question of the bank, and five on the question that show
little (hedged, plain, vague or wrong; some answer a narrower follow-up, `asked`). A second helper,
blind to the first's intent, labelled every reply on or off topic (`second`); replies on which the
two disagree are counted apart. Questions alternate between the dev half (the bars in
`agent/judge/topic.py` were chosen on it) and the test half (measured, never tuned on).

Per half and kind: the share called off the question (flagged off-topic, or an explanation of a
neighbouring concept; on the question that is a false flag, off it recall) and the share that
scored above 0 (off the question, none should).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from agent.judge.scoring import RubricScorer
from agent.state import Flag
from evals.halves import halves_report, halves_table
from knowledge.bank import Bank

TOPIC_FILE = Path(__file__).parent / "topic" / "replies.yaml"
Label = Literal["on_topic", "off_topic"]
OFF_THE_QUESTION = {Flag.off_topic, Flag.other_concept}


class TopicItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    kind: Literal["off_domain", "other_question", "on_topic_weak"]
    lang: Literal["en", "zh", "mixed"]
    split: Literal["dev", "test"]
    answer: str
    second: Label
    """The second, blind rater's label."""
    asked: str | None = None
    about: str | None = None

    @property
    def intended(self) -> Label:
        return "on_topic" if self.kind == "on_topic_weak" else "off_topic"


def load_topic_items(path: Path = TOPIC_FILE) -> list[TopicItem]:
    return [TopicItem.model_validate(raw) for raw in yaml.safe_load(path.read_text(encoding="utf-8"))]


def evaluate_topic(items: list[TopicItem], bank: Bank, scorer: RubricScorer) -> dict:
    def measured(item: TopicItem) -> tuple[str, tuple[str, ...], tuple[bool, bool]]:
        assessment = scorer.assess(bank[item.question], item.answer, None)
        outcome = (bool(OFF_THE_QUESTION & set(assessment.flags)), assessment.depth > 0)
        keys = (item.kind, f"{item.intended} ({item.lang})") + (("off_topic",) if item.intended == "off_topic" else ())
        return item.split, keys, outcome

    def figures(outcomes: list[tuple[bool, bool]]) -> dict:
        return {
            "called_off_the_question": round(sum(f for f, _ in outcomes) / len(outcomes), 3),
            "scored_above_0": round(sum(n for _, n in outcomes) / len(outcomes), 3),
        }

    return halves_report(len(items), (measured(i) for i in items if i.intended == i.second), figures)


def table(report: dict) -> str:
    return halves_table(
        report,
        "replies",
        ["called off the question", "scored above 0"],
        lambda r: [f"{r['called_off_the_question']:.3f}", f"{r['scored_above_0']:.3f}"],
    )
