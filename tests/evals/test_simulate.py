"""Self-play: whole sessions by personas keep the interviewer's invariants and order the personas."""

import asyncio

from agent.brain import OfflineBrain
from agent.retrieval import NotesRetriever
from evals.simulate import PERSONAS, play, simulate
from knowledge.bank import load_bank


def test_simulated_sessions_keep_every_invariant_and_order_strong_average_weak():
    result = simulate(2, load_bank(), OfflineBrain(), NotesRetriever())
    assert result["sessions"] == 2 * len(PERSONAS)
    assert result["violations"] == []
    assert result["ordering_rate"] == 1.0
    depths = result["average_depth"]
    assert depths["adversarial"] <= 1 and depths["confidently-wrong"] <= 1 and depths["rambling"] <= 1


def test_a_session_records_exactly_the_answers_the_persona_gave():
    run = asyncio.run(play("average", 7, load_bank(), OfflineBrain(), NotesRetriever(), questions=2))
    assert run.violations == []
    assert len(run.depths) == 2 and all(0 <= d <= 4 for d in run.depths)
