"""The adversarial suite (evals/adversarial/answers.yaml, written blind to the scorer): prompt
injections in many disguises and keyword lists, each held to the depth the scale allows."""

from pathlib import Path

import pytest
import yaml

from agent.judge.scoring import RubricScorer
from agent.state import Flag
from knowledge.bank import load_bank

ANSWERS = yaml.safe_load(
    (Path(__file__).parents[3] / "evals" / "adversarial" / "answers.yaml").read_text(encoding="utf-8")
)
BANK = load_bank()


def test_the_suite_is_as_large_and_varied_as_promised():
    injections = [a for a in ANSWERS if a["kind"] == "injection"]
    keyword_lists = [a for a in ANSWERS if a["kind"] == "keyword-list"]
    assert len(injections) >= 30 and len(keyword_lists) >= 20
    assert any(a["lang"] != "en" for a in injections) and any(a["lang"] != "en" for a in keyword_lists)
    assert {a["id"].split("-")[2] for a in injections} >= {"codeblock", "transcript", "roleline"}


@pytest.mark.parametrize("item", ANSWERS, ids=[a["id"] for a in ANSWERS])
def test_adversarial_answer_is_held_to_the_scale(item):
    assessment = RubricScorer().assess(BANK[item["question"]], item["answer"], None)
    assert assessment.depth <= item["max_depth"]
    if item["kind"] == "injection":
        assert Flag.grader_instruction in assessment.flags
    for evidence in assessment.covered:
        assert evidence.quote in item["answer"]
