"""Adversarial: the injection and keyword-list answers, scored offline and by a model scripted to obey
the injection; none may score above what the depth scale allows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agent.judge.scoring import RubricScorer
from evals.selftest.suite import Suite
from knowledge.bank import Bank

ADVERSARIAL = Path(__file__).parents[1] / "adversarial" / "answers.yaml"


def adversarial_answers() -> list[dict[str, Any]]:
    return yaml.safe_load(ADVERSARIAL.read_text(encoding="utf-8"))


def adversarial_suite(bank: Bank) -> Suite:
    suite = Suite("adversarial (offline brain)", failure_label="mis-scored")
    scorer = RubricScorer()
    for item in adversarial_answers():
        suite.tried += 1
        depth = scorer.assess(bank[item["question"]], item["answer"], None).depth
        if depth > item["max_depth"]:
            suite.failures += 1
            suite.notes.append(f"{item['id']}: depth {depth} > {item['max_depth']}")
        else:
            suite.survived += 1
    return suite
