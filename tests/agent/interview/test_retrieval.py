"""The retrieve node's search and the judge share one embedding pass over the answer (issue 12's
budget): the judge's sentence vectors are the dense query, and the assessment that follows embeds
nothing twice."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from agent.brains.brain import OfflineBrain
from agent.interview.graph import InterviewContext
from agent.interview.retrieval import StoreRetriever, make_retriever
from agent.judge.meaning import shared_judge
from agent.judge.scoring import prepare_answer
from common.settings import JudgeSettings, KnowledgeSettings, Settings
from knowledge.store import KnowledgeStore

NOTE = """# PPO clipping

Question: {qid}

## Clipped surrogate
The probability ratio between the new and the old policy is clipped to one plus or minus epsilon.

## Taking the minimum
The minimum of the clipped and the unclipped objective makes the bound pessimistic.

## CISPO
CISPO clips the importance weight itself and keeps a gradient for every token.

## Serving
Continuous batching keeps the GPU busy while requests of different length finish.
"""

ANSWER = (
    "PPO keeps the new policy close to the old one by clipping the probability ratio. "
    "Taking the minimum of the clipped and unclipped terms gives a pessimistic bound. "
    "CISPO instead clips the importance weight and keeps a gradient for every token."
)


@pytest.fixture
def settings() -> Settings:
    """The store and the judge on the same embedding, so the pass can be shared: e5, the only one the
    shipped judge reads (four chunks to embed)."""
    return Settings(knowledge=KnowledgeSettings(embedding="e5"), judge=JudgeSettings(embedding="e5"))


@pytest.fixture(autouse=True)
def only_our_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build reads the package's notes too; here it embeds only the note each test writes."""
    import knowledge.documents

    (tmp_path / "package-notes").mkdir()
    monkeypatch.setattr(knowledge.documents, "NOTES_DIR", tmp_path / "package-notes")


def built(settings: Settings, folder: Path, *question_ids: str) -> StoreRetriever:
    for qid in question_ids:
        (folder / f"{qid}.md").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"{qid}.md").write_text(NOTE.format(qid=qid), encoding="utf-8")
    assert KnowledgeStore(settings).build([folder]).skipped == []
    retriever = make_retriever(settings)
    assert isinstance(retriever, StoreRetriever)
    return retriever


class Recorded:
    """Every text an embedding function was asked for."""

    def __init__(self, embed):
        self.embed = embed
        self.texts: list[str] = []

    def __call__(self, texts):
        self.texts.extend(texts)
        return self.embed(texts)


async def test_a_turn_embeds_each_sentence_once_for_both_the_search_and_the_judge(
    settings, bank, notes_retriever, tmp_path, monkeypatch
):
    from agent_helpers import GraphDriver

    retriever = built(settings, tmp_path / "notes", "algo-07")
    judge = shared_judge("e5")
    by_judge = Recorded(judge._embed)
    by_store = Recorded(retriever.store.embedding.embed_query)
    monkeypatch.setattr(judge, "_embed", by_judge)
    monkeypatch.setattr(retriever.store.embedding, "embed_query", by_store)

    driver = GraphDriver(bank, notes_retriever, ["algo-07"])
    driver.context = InterviewContext(bank, OfflineBrain(judge=judge), retriever)
    await driver.start()
    await driver.reply("answer", ANSWER)

    sentences = prepare_answer(ANSWER, 20_000).content
    assert len(sentences) == 3
    counts = Counter(by_judge.texts)
    assert {s: counts[s] for s in sentences} == dict.fromkeys(sentences, 1)
    assert by_store.texts == []  # the store's own query embedding was never needed
    assert driver.assessments(), "the answer was judged"
    # The search still found what was said: the CISPO chunk is among the question's references.
    assert any("CISPO" in r.text for r in driver.progress.references)


def test_a_question_the_judge_does_not_read_is_searched_with_the_stores_own_embedding(settings, tmp_path, monkeypatch):
    retriever = built(settings, tmp_path / "notes", "my-own-01")
    assert not shared_judge("e5").covers("my-own-01")
    by_store = Recorded(retriever.store.embedding.embed_query)
    monkeypatch.setattr(retriever.store.embedding, "embed_query", by_store)

    hits = retriever.references("my-own-01", ANSWER, k=2)

    assert len(by_store.texts) == 1 and ANSWER.startswith(by_store.texts[0])
    assert hits and all(h.question_id == "my-own-01" for h in hits)


def test_with_the_judge_on_another_embedding_the_store_embeds_its_query(tmp_path):
    settings = Settings(knowledge=KnowledgeSettings(embedding="hash"), judge=JudgeSettings(embedding="off"))
    retriever = built(settings, tmp_path / "notes", "algo-07")
    assert retriever.said_vector is None


def test_gibberish_is_not_embedded_whole_for_the_search(settings, tmp_path, monkeypatch):
    """The judge does not read gibberish, so the search embeds only its opening, as before."""
    retriever = built(settings, tmp_path / "notes", "algo-07")
    judge = shared_judge("e5")
    by_judge = Recorded(judge._embed)
    monkeypatch.setattr(judge, "_embed", by_judge)
    noise = " ".join(["qwzx vbnm kjhg", "plmo ijnu ytrr"] * 60) + "."

    retriever.references("algo-07", noise, k=2)

    assert by_judge.texts == []
