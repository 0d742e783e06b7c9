"""The regression floor CI holds the offline brain to on the whole gold set (the goal is higher;
the figures are in the README)."""

from agent.brain import OfflineBrain
from agent.retrieval import NotesRetriever
from evals.gold import GOLD_DIR, load_gold
from evals.replay import evaluate
from knowledge.bank import load_bank

QWK_FLOOR = 0.60


def test_offline_brain_stays_above_the_qwk_floor_and_beats_the_baseline():
    bank = load_bank()
    transcripts, problems = load_gold([GOLD_DIR], set(bank))
    assert problems == []
    report = evaluate(transcripts, bank, OfflineBrain(), NotesRetriever())
    assert report["qwk"] >= QWK_FLOOR
    for metric in ("qwk", "exact", "adjacent", "next_action_accuracy", "probe_hit_rate", "trap_pass_rate"):
        assert report[metric] > report["baseline"][metric], metric
    # every per-turn row is a real judgement of a real turn
    assert len(report["per_turn"]) == sum(len(t.turns) for t in transcripts)
    assert all(0 <= row["depth"] <= 4 for row in report["per_turn"])
