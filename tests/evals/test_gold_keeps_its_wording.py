"""The gold eval keeps the wording its transcripts name: fresh wordings change what a session asks,
never what a replay of a gold transcript sees or scores."""

from __future__ import annotations

import asyncio

from agent.app import make_brain
from agent.interview.retrieval import NotesRetriever
from common.settings import load_settings
from evals.gold import GOLD_DIR, load_gold
from evals.replay import replay_transcript
from knowledge.bank import Bank, load_bank
from knowledge.models import Bilingual


def test_a_replay_is_the_same_whatever_wordings_the_bank_has():
    bank = load_bank()
    reworded = Bank(
        [
            q.model_copy(update={"wordings": [Bilingual(en=f"Reworded: {q.prompt.en}", zh=f"换个问法：{q.prompt.zh}")]})
            for q in bank.questions()
        ]
    )
    transcripts, _ = load_gold([GOLD_DIR], set(bank))
    chosen = [t for t in transcripts if t.turns[0].question in ("algo-07", "infra-12")][:2]
    assert chosen
    brain, retriever = make_brain(load_settings()), NotesRetriever()

    def run(with_bank: Bank):
        return [
            [(r.depth, r.next, r.follow_up) for r in asyncio.run(replay_transcript(t, with_bank, brain, retriever))]
            for t in chosen
        ]

    assert run(reworded) == run(bank)
