"""`judge train`: heads fitted on the key-point set's dev part (`--from items`) with bars chosen out
of fold, and the blind-written exemplar drafts with their second pass."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agent.judge.meaning import open_judge
from evals import judge_training
from evals.keypoints import KEYPOINT_DIR, load_items
from evals.misconception_drafts import load_misconception_drafts
from knowledge.bank import load_bank
from knowledge.exemplars import load_exemplars

BANK = load_bank()
DRAFTS = Path(judge_training.__file__).parent / "exemplar_drafts"


@pytest.fixture(autouse=True)
def quick_fits(monkeypatch):
    """A tenth of the Adam steps: these sets are a few questions' rows, not all of them."""
    monkeypatch.setattr(judge_training, "FIT_STEPS", 150)


def test_bars_are_chosen_out_of_fold_and_keep_the_bound(monkeypatch):
    """On three questions with the hash embedding of the tests: the report's rates are those of
    heads that never saw the rows' question, and the bar keeps hard negatives within its bound."""
    items, _ = load_items([KEYPOINT_DIR], BANK)
    subset = [
        item for stem, item in items if stem.startswith("dev") and item.question in ("algo-07", "algo-02", "infra-10")
    ]
    monkeypatch.setattr(judge_training, "training_items", lambda bank: subset)
    judge = open_judge("hash", training=True)
    assert judge is not None
    heads, report = judge_training.train_heads(judge, BANK, "items")
    point = report["key_point"]
    assert point["rows"] > 100
    assert point["out_of_fold"]["hard_negative"] <= judge_training.HARD_NEGATIVE_BOUND or point["threshold"] == 0.95
    assert heads.key_point.threshold == point["threshold"]
    # The fitted head (in sample) ranks the dev positives above the other rows.
    data = judge_training.item_set(judge, BANK, subset, heads.projection)
    p = heads.key_point.probability(data.point_x)
    assert p[data.point_y == 1].mean() > p[data.point_y == 0].mean() + 0.3


def test_out_of_fold_never_scores_a_row_with_a_head_that_saw_its_question():
    """A feature that identifies the question perfectly fits in sample and means nothing out of fold."""
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(10), 20)
    x = np.eye(10)[groups] + 0.01 * rng.standard_normal((200, 10))
    y = (groups % 2).astype(float)  # the label is the question's parity: nothing carries across questions
    names = tuple(f"f{i}" for i in range(10))
    in_sample = judge_training.fit_logistic(x, y, names).probability(x)
    held_out = judge_training.out_of_fold(x, y, groups, names)
    assert np.mean((in_sample > 0.5) == (y > 0.5)) > 0.95
    assert np.mean((held_out > 0.5) == (y > 0.5)) < 0.8


def test_every_draft_parses_and_every_sentence_was_checked_by_a_second_blind_pass():
    drafts, problems = load_exemplars([DRAFTS], bank=BANK)
    assert problems == [] and len(drafts) == 35
    checked = {}
    for line in (DRAFTS / "second_pass.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        checked[(record["question"], record["target"], record["written_as"], record["sentence"])] = record[
            "second_pass"
        ]
    agreeing = {"hard_negative": "no", "assertion": "assert", "denial": "deny"}
    for qid, ex in drafts.items():
        for point, kp in ex.key_points.items():
            assert len(kp.hard_negatives) >= 7, (qid, point)
            for text in kp.hard_negatives:
                assert checked[(qid, point, "hard_negative", text)] == agreeing["hard_negative"]
        for wrong, mis in ex.misconceptions.items():
            for role, texts in (("assertion", mis.assertions), ("denial", mis.denials)):
                for text in texts:
                    assert checked[(qid, wrong, role, text)] == agreeing[role]


@pytest.mark.parametrize("qid", ["algo-07", "infra-10"])
def test_drafts_name_only_the_bank_s_own_points_and_misconceptions(qid):
    """Every point and misconception of the bank, but those promoted later from the misconception
    drafts, which brought their own blind assertions and denials into the exemplars."""
    drafts, _ = load_exemplars([DRAFTS], bank=BANK)
    question = BANK[qid]
    promoted = set(load_misconception_drafts()[qid].promoted)
    assert set(drafts[qid].key_points) == {kp.id for kp in question.key_points}
    assert set(drafts[qid].misconceptions) == {m.id for m in question.misconceptions} - promoted


def test_heads_fitted_on_the_exemplars_choose_their_bars_on_questions_they_did_not_see(tmp_path: Path):
    """`judge train` (the shipped heads' way), on two questions' exemplars with the hash embedding."""
    from knowledge.exemplars import EXEMPLAR_DIR

    for qid in ("algo-07", "infra-10"):
        (tmp_path / f"{qid}.yaml").write_text((EXEMPLAR_DIR / f"{qid}.yaml").read_text(encoding="utf-8"))
    judge = open_judge("hash", [tmp_path], training=True)
    assert judge is not None and len(judge.exemplars) == 2
    heads, report = judge_training.train_heads(judge, BANK)
    assert report["source"] == "exemplars"
    rates = report["key_point"]["out_of_fold"]
    assert set(rates) >= {"positive", "plain", "hard_negative", "rival"}
    assert rates["hard_negative"] <= judge_training.HARD_NEGATIVE_BOUND or report["key_point"]["threshold"] == 0.95
    assert 0.3 <= heads.misconception.threshold <= 0.95
    assert heads.fits(heads.projection.shape[1])
