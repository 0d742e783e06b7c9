"""The knowledge store: a Chroma collection of chunks, built incrementally, searched hybrid.

The collection is its own manifest: every chunk carries its source and the source's content hash,
so an embedded store and a shared Chroma server behave the same, and a build only embeds files
whose hash changed. Everything is embedded before anything is written, so a build that fails on
the way leaves the previous store as it was.

An embedded Chroma store is not made for several processes at once, and a session may be reading
while `kb build` runs in another terminal. Measured on a busy machine, one build in ten left a
fresh process's dense search without the new chunks. So a build writes under an exclusive lock
(`store/build.lock`), readers take it shared, and a process whose store was rebuilt since it opened
it (a new `generation` in the collection's metadata) reopens it before reading.
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np

from common.settings import Settings
from knowledge.bank import user_note_files
from knowledge.chroma import StoreError, connect, forget_open_clients, store_location, store_lock, unusable
from knowledge.chunking import opening
from knowledge.documents import chunk_rows, default_sources, read_documents
from knowledge.embeddings import make_embedding

COLLECTION = "knowledge"
RRF_K = 60
DENSE_QUERY_TOKENS = 48
"""The dense half embeds at most this much of a query: an e5 query costs about a millisecond per token
on a small CPU, and a candidate's whole answer as the query made a turn take seconds. The lexical half
still reads all of it; every `kb eval` query fits whole."""
EXACT_DENSE_MAX = 20_000
"""Up to this many chunks the dense half is an exact cosine search over the stored vectors, in
memory (20k x 384 floats is 30 MB). Chroma's approximate index missed a chunk built a moment
before by another process (one fresh search in ten on a busy machine); an exact search cannot, and
at our sizes it is faster. Larger stores use Chroma's index."""
SearchMode = Literal["dense", "lexical", "hybrid"]
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    question_id: str | None
    source: str
    heading: str
    text: str
    score: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "question_id": self.question_id,
            "source": self.source,
            "heading": self.heading,
            "text": self.text,
            "score": round(self.score, 6),
        }


@dataclass
class BuildReport:
    embedded_files: list[str] = field(default_factory=list)
    removed_files: list[str] = field(default_factory=list)
    unchanged_files: int = 0
    chunks_embedded: int = 0
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class _Corpus:
    ids: list[str]
    texts: list[str]
    metadatas: list[dict[str, Any]]
    vectors: np.ndarray | None = None
    """Unit-length chunk embeddings for exact dense search; None for a store too large to hold."""


class KnowledgeStore:
    def __init__(self, settings: Settings, *, collection: str = COLLECTION):
        self.settings = settings
        self.embedding = make_embedding(settings.knowledge.embedding, settings.llm.api_base)
        self._collection_name = collection
        self._client: Any = None
        self._collection: Any = None
        self._corpus: _Corpus | None = None
        self._lexical: Any = None
        self._generation: str | None = None
        """The build this process opened the collection at; another build since means reopen."""

    # -- opening ----------------------------------------------------------------------------
    @property
    def location(self) -> str:
        return store_location(self.settings)

    def _client_or_raise(self) -> Any:
        if self._client is None:
            self._client = connect(self.settings)
        return self._client

    def _reopen_if_rebuilt(self) -> None:
        """Drop this process's handles when another process has built the store since they were opened."""
        if self._collection is None or self.settings.chroma_url:
            return
        try:
            current = (self._client.get_collection(self._collection_name).metadata or {}).get("generation")
        except Exception:  # deleted or damaged meanwhile: opening it again says which
            current = None
        if current != self._generation:
            forget_open_clients()
            self._client = self._collection = self._corpus = self._lexical = None

    def collection(self, create: bool = False) -> Any:
        self._reopen_if_rebuilt()
        if self._collection is None:
            client = self._client_or_raise()
            try:
                existing = {c.name for c in client.list_collections()}
                if self._collection_name in existing:
                    self._check_embedding(client.get_collection(self._collection_name))
                    self._collection = client.get_collection(self._collection_name, embedding_function=self.embedding)
                    self._generation = (self._collection.metadata or {}).get("generation")
                elif create:
                    self._collection = client.create_collection(
                        self._collection_name,
                        embedding_function=self.embedding,
                        metadata={"hnsw:space": "cosine", "embedding": self.embedding.spec},
                    )
                    self._generation = None
                else:
                    raise StoreError("the knowledge store is empty; build it with: rl-interview kb build")
            except StoreError:
                raise
            except Exception as exc:
                raise StoreError(unusable(self.settings, exc)) from exc
        return self._collection

    def _check_embedding(self, collection: Any) -> None:
        built_with = (collection.metadata or {}).get("embedding")
        if built_with and built_with != self.embedding.spec:
            raise StoreError(
                f"the knowledge store was built with the {built_with!r} embedding but {self.embedding.spec!r} "
                "is configured; fix: rl-interview kb build --rebuild"
            )

    # -- building ---------------------------------------------------------------------------
    def sources(self, extra: Iterable[Path] = ()) -> list[Path]:
        """Our notes, the notes of the user's questions (beside them in each bank folder), the
        configured sources, then `extra`."""
        return [
            *default_sources(),
            *user_note_files(self.settings.bank_paths),
            *self.settings.knowledge.sources,
            *extra,
        ]

    def build(
        self, extra_sources: Iterable[Path] = (), *, rebuild: bool = False, progress: Progress | None = None
    ) -> BuildReport:
        started = time.perf_counter()
        report = BuildReport()
        found = read_documents(self.sources(extra_sources), int(self.settings.knowledge.max_file_mb * 1e6))
        documents, unreadable, report.skipped = found.documents, found.unreadable, found.skipped
        if rebuild:
            with store_lock(self.settings, exclusive=True):
                self._reset()
        collection = self.collection(create=True)
        existing = self._existing_hashes(collection)
        changed = [doc for key, doc in documents.items() if existing.get(key) != doc.sha256]
        removed = [key for key in existing if key not in documents and key not in unreadable]
        report.unchanged_files = len(documents) - len(changed)

        rows = [row for doc in changed for row in chunk_rows(doc, self.settings.knowledge.chunk_tokens)]
        vectors = self._embed_all([r.embed_text for r in rows], progress)

        with store_lock(self.settings, exclusive=True):
            for key in [*removed, *(doc.key for doc in changed)]:
                collection.delete(where={"source": key})
            for start in range(0, len(rows), 256):
                batch = rows[start : start + 256]
                collection.add(
                    ids=[r.id for r in batch],
                    documents=[r.text for r in batch],
                    metadatas=[r.metadata for r in batch],
                    embeddings=vectors[start : start + 256],
                )
            kept = {k: v for k, v in (collection.metadata or {}).items() if not k.startswith("hnsw:")}
            self._generation = uuid.uuid4().hex
            collection.modify(
                metadata={
                    **kept,
                    "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
                    "generation": self._generation,
                }
            )
        report.embedded_files = [doc.key for doc in changed]
        report.removed_files = removed
        report.chunks_embedded = len(rows)
        report.seconds = time.perf_counter() - started
        self._corpus = self._lexical = None
        return report

    def _embed_all(self, texts: list[str], progress: Progress | None, batch: int = 8) -> np.ndarray:
        out: list[np.ndarray] = []
        for start in range(0, len(texts), batch):
            out.append(np.asarray(self.embedding(texts[start : start + batch]), dtype=np.float32))
            if progress:
                progress(min(start + batch, len(texts)), len(texts))
        return np.concatenate(out) if out else np.zeros((0, 1), dtype=np.float32)

    @staticmethod
    def _existing_hashes(collection: Any) -> dict[str, str]:
        metadatas = collection.get(include=["metadatas"])["metadatas"] or []
        return {m["source"]: m["sha256"] for m in metadatas}

    def _reset(self) -> None:
        """Start from an empty collection; a damaged embedded store is moved aside, not deleted."""
        self._collection = None
        try:
            client = self._client_or_raise()
            if self._collection_name in [c.name for c in client.list_collections()]:
                client.delete_collection(self._collection_name)
        except Exception as exc:
            if self.settings.chroma_url:
                raise StoreError(unusable(self.settings, exc)) from exc
            damaged = self.settings.store_dir / "chroma"
            aside = damaged.with_name(f"chroma.damaged-{int(time.time())}")
            shutil.move(str(damaged), str(aside))
            forget_open_clients()  # Chroma caches the half-opened client per path
            self._client = None

    # -- reading ----------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        collection = self.collection()
        metadatas = collection.get(include=["metadatas"])["metadatas"] or []
        meta = collection.metadata or {}
        return {
            "location": self.location,
            "documents": len({m["source"] for m in metadatas}),
            "chunks": len(metadatas),
            "embedding": meta.get("embedding", self.embedding.spec),
            "last_build": meta.get("built_at"),
        }

    def _corpus_or_load(self) -> _Corpus:
        if self._corpus is None:
            collection = self.collection()
            exact = collection.count() <= EXACT_DENSE_MAX
            got = collection.get(include=["documents", "metadatas", *(["embeddings"] if exact else [])])
            vectors = None
            if exact:
                vectors = np.asarray(got["embeddings"], dtype=np.float32).reshape(len(got["ids"]), -1)
                vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            self._corpus = _Corpus(got["ids"], got["documents"] or [], got["metadatas"] or [], vectors)
        return self._corpus

    def _hit(self, chunk_id: str, text: str, meta: dict[str, Any], score: float) -> Hit:
        return Hit(chunk_id, meta.get("question_id") or None, meta["source"], meta.get("heading", ""), text, score)

    def search(
        self,
        query: str,
        k: int = 5,
        *,
        question_id: str | None = None,
        mode: SearchMode = "hybrid",
        query_vector: np.ndarray | None = None,
    ) -> list[Hit]:
        """Chunks for a free-text query, best first; `question_id` limits them to that question's notes.
        `query_vector`: the query already embedded with the store's model (the dense half then embeds
        nothing)."""
        if not query.strip():
            return self.for_question(question_id, k) if question_id else []
        with store_lock(self.settings, exclusive=False):
            dense = self._dense(query, k * 4, question_id, query_vector) if mode != "lexical" else []
            lexical = self._lexical_hits(query, k * 4, question_id) if mode != "dense" else []
        if mode == "dense":
            return dense[:k]
        if mode == "lexical":
            return lexical[:k]
        return fuse([dense, lexical])[:k]

    def _dense(self, query: str, k: int, question_id: str | None, vector: np.ndarray | None = None) -> list[Hit]:
        if vector is None:
            vector = np.asarray(self.embedding.embed_query([opening(query, DENSE_QUERY_TOKENS)]), dtype=np.float32)[0]
        q = np.asarray(vector, dtype=np.float32)
        corpus = self._corpus_or_load()
        if corpus.vectors is not None:
            similarity = corpus.vectors @ (q / max(float(np.linalg.norm(q)), 1e-12))
            keep = [
                i
                for i in np.argsort(-similarity)
                if not question_id or corpus.metadatas[i].get("question_id") == question_id
            ][:k]
            return [self._hit(corpus.ids[i], corpus.texts[i], corpus.metadatas[i], float(similarity[i])) for i in keep]
        where = {"question_id": question_id} if question_id else None
        got = self.collection().query(
            query_embeddings=[q.tolist()],
            n_results=k,
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        return [
            self._hit(i, t, m, 1.0 - d)
            for i, t, m, d in zip(
                got["ids"][0], got["documents"][0], got["metadatas"][0], got["distances"][0], strict=True
            )
        ]

    def _lexical_hits(self, query: str, k: int, question_id: str | None) -> list[Hit]:
        from knowledge.lexical import LexicalIndex

        corpus = self._corpus_or_load()
        if self._lexical is None:
            self._lexical = LexicalIndex(corpus.texts)
        scores = self._lexical.scores(query)
        order = np.argsort(-scores)
        hits: list[Hit] = []
        for i in order:
            if scores[i] <= 0 or len(hits) >= k:
                break
            meta = corpus.metadatas[i]
            if question_id and meta.get("question_id") != question_id:
                continue
            hits.append(self._hit(corpus.ids[i], corpus.texts[i], meta, float(scores[i])))
        return hits

    def for_question(self, question_id: str, k: int = 10) -> list[Hit]:
        """The chunks of one question's reference note, in reading order."""
        with store_lock(self.settings, exclusive=False):
            got = self.collection().get(where={"question_id": question_id}, include=["documents", "metadatas"])
        rows = sorted(
            zip(got["ids"], got["documents"], got["metadatas"], strict=True),
            key=lambda r: (r[2]["source"], r[2].get("chunk", 0)),
        )
        return [self._hit(i, t, m, 1.0) for i, t, m in rows[:k]]


def fuse(rankings: list[list[Hit]]) -> list[Hit]:
    """Reciprocal rank fusion: robust to the two rankers' incomparable score scales."""
    scores: dict[str, float] = {}
    hits: dict[str, Hit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
            hits.setdefault(hit.chunk_id, hit)
    order = sorted(scores, key=lambda cid: -scores[cid])
    return [Hit(**{**hits[c].__dict__, "score": scores[c]}) for c in order]
