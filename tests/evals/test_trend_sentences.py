"""The blind sentences of `eval --trends`: complete, both halves present, not leaking into the
exemplars, and counted only where the two raters agree."""

from __future__ import annotations

from collections import Counter

import pytest

from common.errors import InputError
from evals.keypoints import near_duplicates
from evals.trends import TRENDS_FILE, evaluate_trends, load_trend_items
from knowledge.exemplars import all_rows, load_exemplars
from knowledge.facts import load_facts

ITEMS = load_trend_items()


def test_every_trend_has_each_intent_in_both_halves():
    seen = Counter((i.trend, i.intent, i.split) for i in ITEMS)
    for trend in load_facts().trends:
        for intent in ("right", "reversed", "none"):
            assert seen[(trend.id, intent, "dev")] >= 2
            assert seen[(trend.id, intent, "test")] >= 2


def test_the_sentences_are_not_in_the_exemplars():
    exemplars, _ = load_exemplars()
    assert near_duplicates([i.sentence for i in ITEMS], [r.text for r in all_rows(exemplars)]) == set()


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
