"""The blind sentences of `eval --trends`: complete, both halves present, not leaking into the
exemplars, and counted only where the two raters agree."""

from __future__ import annotations

from collections import Counter

import pytest

from common.errors import InputError
from evals.keypoints import near_duplicates
from evals.trends import TRENDS_FILE, all_items, evaluate_trends, load_trend_items
from knowledge.exemplars import all_rows, load_exemplars
from knowledge.facts import load_facts

ITEMS = all_items()


def test_every_trend_has_each_intent_in_both_halves():
    seen = Counter((i.trend or i.group, i.intent, i.split) for i in ITEMS)
    facts = load_facts()
    for fact in [t.id for t in facts.trends] + [g.id for g in facts.groups if g.binds_by == "role"]:
        for intent in ("right", "reversed", "none"):
            assert seen[(fact, intent, "dev")] >= 2, fact
            assert seen[(fact, intent, "test")] >= 2, fact


def test_the_sentences_are_not_in_the_exemplars():
    exemplars, _ = load_exemplars()
    assert near_duplicates([i.sentence for i in ITEMS], [r.text for r in all_rows(exemplars)]) == set()


def test_role_sentences_are_reported_apart_from_trends():
    report = evaluate_trends(ITEMS)["splits"]["dev"]
    roles = [i for i in ITEMS if i.group and i.split == "dev" and i.intent == i.second == "reversed"]
    assert report["roles: reversed"]["n"] == len(roles) > 0
    assert report["reversed"]["n"] == sum(
        1 for i in ITEMS if i.trend and i.split == "dev" and i.intent == i.second == "reversed"
    )


def test_the_report_counts_only_what_both_raters_agree_on():
    items = [i for i in ITEMS if i.trend == "kl-coefficient"]
    agreed = [i for i in items if i.intent == i.second == "reversed" and i.split == "dev"]
    doubted = [i.model_copy(update={"second": "right"}) if i is agreed[0] else i for i in items]
    assert evaluate_trends(items)["splits"]["dev"]["reversed"]["n"] == len(agreed)
    assert evaluate_trends(doubted)["splits"]["dev"]["reversed"]["n"] == len(agreed) - 1


def test_a_sentence_about_an_unknown_trend_is_named_in_the_error(tmp_path):
    bad = tmp_path / "sentences.yaml"
    bad.write_text(
        TRENDS_FILE.read_text(encoding="utf-8").replace("trend: kl-coefficient", "trend: kl-coeficient", 1),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="kl-coeficient"):
        load_trend_items(bad)
