"""Reference material for the interviewer: from the knowledge store when it is built, else straight
from our shipped notes (so a first session never waits for an index build)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from agent.state import Reference
from knowledge.bank import NOTES_DIR, user_note_files
from knowledge.chunking import chunk_text, reference_label, section_title
from knowledge.documents import DocumentError, read_document

if TYPE_CHECKING:
    from common.settings import Settings
    from knowledge.store import KnowledgeStore


class Retriever(Protocol):
    def references(self, question_id: str, said: str = "", k: int = 4) -> list[Reference]:
        """Chunks for the question; when the candidate said something, the chunks closest to it first."""
        ...


class NotesRetriever:
    """Our notes, chunked in memory and ranked lexically within the question."""

    def __init__(self, max_tokens: int = 320, extra_notes: Sequence[Path] = ()):
        """`extra_notes`: the notes of the user's questions (a file that cannot be read is left out)."""
        self.max_tokens = max_tokens
        self.extra_notes = list(extra_notes)

    @cached_property
    def _by_question(self) -> dict[str, list[Reference]]:
        out: dict[str, list[Reference]] = {}
        for path in [*sorted(NOTES_DIR.glob("*.md")), *self.extra_notes]:
            try:
                doc = read_document(path, max_bytes=2_000_000)
            except DocumentError:
                continue  # `kb build` and `bank validate` name it; the interview goes on without it
            qid = doc.question_id or path.stem
            out[qid] = out.get(qid, []) + [
                Reference(source=doc.key, heading=c.heading, text=c.text, question_id=qid)
                for c in chunk_text(doc.text, self.max_tokens, title=doc.title)
            ]
        return out

    def all_chunks(self) -> list[Reference]:
        return [chunk for chunks in self._by_question.values() for chunk in chunks]

    def references(self, question_id: str, said: str = "", k: int = 4) -> list[Reference]:
        chunks = self._by_question.get(question_id, [])
        if not said.strip() or len(chunks) <= k:
            return chunks[:k]
        from knowledge.lexical import LexicalIndex

        scores = LexicalIndex([f"{c.heading}\n{c.text}" for c in chunks]).scores(said)
        order = sorted(range(len(chunks)), key=lambda i: -scores[i])
        return [chunks[i] for i in order[:k]]


def sections_to_read(retriever: Retriever, question_id: str, statement: str, k: int = 2) -> list[str]:
    """The sections that say most about one key point, as "source › section": what the report and
    `progress` tell the candidate to read for it (the question's own references would name the same
    sections for every point)."""
    found = retriever.references(question_id, statement, k=k)
    return list(dict.fromkeys(reference_label(ref.source, section_title(ref.heading)) for ref in found))


SaidVector = Callable[[str, str], "np.ndarray | None"]
"""(question id, what was said) -> the vector the dense half searches with, or None to let the store
embed the query itself."""


class StoreRetriever:
    """The knowledge store: the question's chunks, re-ranked by what the candidate said."""

    def __init__(self, store: KnowledgeStore, said_vector: SaidVector | None = None) -> None:
        self.store = store
        self.said_vector = said_vector

    def references(self, question_id: str, said: str = "", k: int = 4) -> list[Reference]:
        if said.strip():
            vector = self.said_vector(question_id, said) if self.said_vector else None
            hits = self.store.search(said, k, question_id=question_id, query_vector=vector)
        else:
            hits = self.store.for_question(question_id, k)
        return [Reference(source=h.source, heading=h.heading, text=h.text, question_id=h.question_id) for h in hits]


def judge_pass(settings: Settings) -> SaidVector | None:
    """What was said, as the judge by meaning reads it: the mean of its sentences' vectors, embedded
    once for the search and kept in the judge's cache for the assessment that follows (one embedding
    pass per answer serves both). Only where the judge reads the question (it has exemplars) and
    embeds with the store's model; otherwise the store embeds the opening of what was said."""
    spec = settings.judge.embedding
    if spec == "off" or spec != settings.knowledge.embedding:
        return None
    limit = settings.interview.answer_limit_chars

    def vector(question_id: str, said: str) -> np.ndarray | None:
        from agent.judge.meaning import shared_judge
        from agent.judge.scoring import prepare_answer
        from agent.text import is_gibberish

        judge = shared_judge(spec)
        prepared = prepare_answer(said, limit)
        if judge is None or not judge.covers(question_id) or not prepared.content or is_gibberish(prepared.text):
            return None  # the judge will not read it: embedding all of it for the search alone costs too much
        mean = judge.embed(prepared.content).mean(axis=0)
        return mean / max(float(np.linalg.norm(mean)), 1e-12)

    return vector


def make_retriever(settings: Settings) -> Retriever:
    """The store if it has been built with the configured embedding; otherwise our notes directly."""
    notes = NotesRetriever(settings.knowledge.chunk_tokens, user_note_files(settings.bank_paths))
    if not settings.chroma_url and not (settings.store_dir / "chroma" / "chroma.sqlite3").exists():
        return notes  # never built: don't even import Chroma
    from knowledge.store import KnowledgeStore, StoreError

    store = KnowledgeStore(settings)
    try:
        if store.status()["chunks"]:
            return StoreRetriever(store, judge_pass(settings))
    except StoreError:
        pass
    return notes
