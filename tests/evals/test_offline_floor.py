"""The regression floor CI holds the offline brain to on the whole gold set (the goal is higher;
the figures are in the README)."""

from agent.brains.brain import OfflineBrain
from agent.interview.retrieval import NotesRetriever
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


MEANING_QWK_FLOOR = 0.65
"""The judge by meaning on the held-out split (nothing was tuned on it; 0.677 when last measured,
cue phrases alone 0.661: README, how the judge works). Only that split, to keep the suite fast."""


def test_the_judge_by_meaning_beats_cue_phrases_on_the_held_out_split_and_keeps_every_honesty_trap():
    from agent.judge.meaning import shared_judge

    bank = load_bank()
    transcripts, _ = load_gold([GOLD_DIR], set(bank))
    heldout = [t for t in transcripts if t.split == "heldout"]
    assert len(heldout) >= 20
    retriever = NotesRetriever()
    report = evaluate(heldout, bank, OfflineBrain(judge=shared_judge("e5")), retriever)
    cue_only = evaluate(heldout, bank, OfflineBrain(), retriever)
    assert report["qwk"] >= MEANING_QWK_FLOOR
    assert report["qwk"] > cue_only["qwk"] > report["baseline"]["qwk"]
    rows = report["per_turn"]
    # gibberish and empty answers score 0 whatever the judge
    zero_traps = [r for r in rows if r["trap"] in ("gibberish", "empty") and r["gold_depth"] == 0]
    assert zero_traps and all(r["depth"] == 0 for r in zero_traps)
