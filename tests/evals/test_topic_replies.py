"""The blind on/off-topic replies: complete, both halves present, and not leaking into the exemplars."""

from __future__ import annotations

from agent.judge.meaning import shared_judge
from agent.judge.scoring import RubricScorer
from evals.keypoints import near_duplicates
from evals.topic import evaluate_topic, load_topic_items
from knowledge.bank import load_bank
from knowledge.exemplars import all_rows, load_exemplars

BANK = load_bank()
ITEMS = load_topic_items()


def test_every_question_has_replies_of_each_kind_in_one_half():
    by_question: dict[str, set[str]] = {}
    halves: dict[str, set[str]] = {}
    for item in ITEMS:
        assert item.question in BANK
        by_question.setdefault(item.question, set()).add(item.kind)
        halves.setdefault(item.question, set()).add(item.split)
    assert set(by_question) == set(BANK)
    assert all(kinds == {"off_domain", "other_question", "on_topic_weak"} for kinds in by_question.values())
    assert all(len(h) == 1 for h in halves.values())


def test_the_replies_are_not_in_the_exemplars():
    exemplars, _ = load_exemplars()
    texts = [r.text for r in all_rows(exemplars)]
    assert near_duplicates([i.answer for i in ITEMS], texts) == set()


def test_the_report_counts_only_what_both_raters_agree_on():
    items = [i for i in ITEMS if i.question == "algo-07"]
    flipped = [items[0].model_copy(update={"second": "off_topic" if items[0].intended == "on_topic" else "on_topic"})]
    report = evaluate_topic(flipped + items[1:], BANK, RubricScorer(judge=shared_judge("e5")))
    assert report["raters_agree"] == round((len(items) - 1) / len(items), 3)
    counted = sum(
        r["n"]
        for key, r in report["splits"][items[0].split].items()
        if key in {"off_domain", "other_question", "on_topic_weak"}
    )
    assert counted == len(items) - 1
