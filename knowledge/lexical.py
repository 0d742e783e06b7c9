"""BM25 over chunk texts, with jieba segmentation for Chinese and plain word splitting otherwise."""

from __future__ import annotations

import re
import threading

import numpy as np

from common.terminal import clean_for_display

TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+|[a-z0-9\u00c0-\u024f]+(?:[.-][a-z0-9]+)*")
CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
STOPWORDS = frozenset(
    "a an and are as at be by do does for from how in is it of on or the to what why with "
    "der die das und ist wie was warum ein eine mit im in zu den von für 的 了 是 在 和 与 吗 呢 怎么 什么 为什么".split()
)
_jieba_lock = threading.Lock()


def _segment_cjk(run: str) -> list[str]:
    with _jieba_lock:
        import jieba

        jieba.setLogLevel(60)
        return [w for w in jieba.lcut(run) if w.strip()]


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    for match in TOKEN.finditer(clean_for_display(text).lower()):  # "\x1b[31mword" is "word"
        piece = match.group(0)
        words = _segment_cjk(piece) if CJK_RUN.fullmatch(piece) else [piece]
        tokens.extend(w for w in words if w not in STOPWORDS)
    return tokens


class LexicalIndex:
    """An in-memory BM25 index; rebuilt from the store's chunks when they change (a few hundred)."""

    def __init__(self, texts: list[str]):
        import bm25s

        self._size = len(texts)
        self._bm25 = bm25s.BM25()
        self._bm25.index([tokenize(t) or ["∅"] for t in texts], show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        tokens = tokenize(query)
        if not tokens or not self._size:
            return np.zeros(self._size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)
