"""The cheap pre-check before a cue's pattern: it may only skip cues that could not have matched."""

import pytest

import agent.text
from agent.judge.scoring import RubricScorer
from agent.text import CJK_CHAR, cue_anchor, cue_pattern, normalise
from evals.gold import load_gold
from knowledge.bank import load_bank


@pytest.fixture(scope="module")
def bank():
    return load_bank()


def bank_cues(bank) -> set[str]:
    return {
        c for q in bank.values() for group in (*q.key_points, *q.misconceptions) for c in group.cues.all() if c.strip()
    }


def accepted_variants(cue: str) -> list[str]:
    """Texts the cue's pattern is meant to accept: the cue, with its spaces dropped, with a plural,
    and a Chinese cue with an adverb slipped in after its first two characters."""
    plain = normalise(cue).strip()
    variants = [f"so {plain} here", plain.replace(" ", ""), f"{plain}s are"]
    if len(plain) >= 4 and all(CJK_CHAR.match(ch) for ch in plain):
        variants.append(f"我们{plain[:2]}继续{plain[2:]}了")
    return variants


def test_every_match_of_every_bank_cue_contains_its_anchor(bank):
    matched = 0
    for cue in bank_cues(bank):
        for text in accepted_variants(cue):
            match = cue_pattern(cue).search(text)
            if match:
                matched += 1
                assert cue_anchor(cue) in match.group(0), (cue, text)
    assert matched >= len(bank_cues(bank))  # each cue matched at least its own words


def test_the_pre_check_never_changes_an_assessment(bank, monkeypatch):
    transcripts, _ = load_gold([], set(bank))
    turns = [turn for t in transcripts for turn in t.turns]
    answers = [
        (turn.question, turn.answer) for i, turn in enumerate(turns) if i % 3 == 0 or turn.trap == "misconception"
    ]
    scorer = RubricScorer()
    with_check = [scorer.assess(bank[q], a, None) for q, a in answers]
    monkeypatch.setattr(agent.text, "cue_anchor", lambda cue: "")  # "" is in every text: nothing is skipped
    without_check = [scorer.assess(bank[q], a, None) for q, a in answers]
    assert with_check == without_check
    assert any(a.covered for a in with_check) and any(a.misconceptions for a in with_check)
