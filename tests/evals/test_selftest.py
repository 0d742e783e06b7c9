"""`rl-interview selftest`'s suites, run directly: every "must be 0" figure is 0, each suite tried
what it says it tries, and a broken scorer is caught (so a 0 is earned, not built in)."""

from __future__ import annotations

import pytest

from agent.judge.scoring import RubricScorer
from agent.state import Assessment
from evals.selftest import Suite, render
from evals.selftest.adversarial import adversarial_answers, adversarial_suite
from evals.selftest.bad_input import bad_input_suite, malformed_files
from evals.selftest.crash import crash_suite
from evals.selftest.provider import provider_suites
from knowledge.bank import load_bank

BANK = load_bank()


def assert_clean(suite: Suite, tried: int) -> None:
    assert suite.tried == tried, suite.as_dict()
    assert (suite.failures, suite.survived) == (0, tried), suite.as_dict()
    assert suite.as_dict()[suite.failure_label] == 0


def test_bad_input_suite_survives_random_answers_and_names_every_malformed_file():
    suite = bad_input_suite(BANK, answers=120, seed=7)
    assert_clean(suite, 120 + len(malformed_files()))
    assert suite.failure_label == "crashes"


def test_adversarial_suite_holds_every_answer_to_the_scale():
    answers = adversarial_answers()
    kinds = {a["kind"] for a in answers}
    assert kinds == {"injection", "keyword-list"}
    assert sum(a["kind"] == "injection" for a in answers) >= 30
    assert sum(a["kind"] == "keyword-list" for a in answers) >= 20
    assert_clean(adversarial_suite(BANK), len(answers))


def test_a_scorer_that_obeys_injections_is_counted_as_mis_scoring(monkeypatch):
    real_assess = RubricScorer.assess

    def obeying(self, question, answer, prior) -> Assessment:
        return real_assess(self, question, answer, prior).model_copy(update={"depth": 4})

    monkeypatch.setattr(RubricScorer, "assess", obeying)
    suite = adversarial_suite(BANK)
    assert suite.failures == suite.tried == len(adversarial_answers())
    assert suite.survived == 0 and suite.notes


def test_a_crashing_scorer_is_counted_not_raised(monkeypatch):
    def crash(self, question, answer, prior):
        raise ValueError("boom")

    monkeypatch.setattr(RubricScorer, "assess", crash)
    suite = bad_input_suite(BANK, answers=10, seed=1)
    assert suite.failures == 10
    assert "ValueError: boom" in suite.notes[0]


@pytest.mark.slow
def test_provider_faults_lose_no_turn_and_an_obeying_model_is_overruled():
    faults, obeying = provider_suites(BANK)
    assert_clean(faults, 7)  # timeout, 429, 500, invalid JSON, cut stream, provider down, hung provider
    assert faults.failure_label == "turns lost"
    assert any(note.startswith("hung provider: the turn took") for note in faults.notes), faults.notes
    assert_clean(obeying, len(adversarial_answers()))
    assert obeying.failure_label == "mis-scored"


@pytest.mark.slow
def test_crash_suite_with_two_kill_points_loses_no_answer():
    suite = crash_suite(kill_points=2)
    assert_clean(suite, 2)
    assert suite.failure_label == "turns lost"


def test_the_table_shows_each_suite_with_its_must_be_zero_figure():
    suites = [
        adversarial_suite(BANK),
        Suite("crash", tried=3, survived=2, failures=1, failure_label="turns lost", notes=["lost one"]),
    ]
    table = render(suites).splitlines()
    assert table[0] == "| suite | tried | survived | must be 0 |"
    tried = len(adversarial_answers())
    assert f"| adversarial (offline brain) | {tried} | {tried} | mis-scored: 0 |" in table
    assert "| crash | 3 | 2 | turns lost: 1 |" in table
    assert "- crash: lost one" in table
