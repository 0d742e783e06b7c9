from __future__ import annotations

import pytest

from agent.judge.meaning import shared_judge
from agent.judge.scoring import RubricScorer


@pytest.fixture(scope="module")
def scorer() -> RubricScorer:
    """The shipped offline scorer, judge by meaning included (test_scoring.py's own reads cues alone)."""
    judge = shared_judge("e5")
    assert judge is not None, "the shipped judge (exemplars, vectors, heads) must load"
    return RubricScorer(judge=judge)
