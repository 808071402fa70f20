"""Lexical passage search (BM25, bm25s) and its fusion with dense (MiniLM) similarity.

    index = Bm25Index(texts)                      # tokenized (stemmed, English stopwords) and indexed once
    lexical = index.scores("Who stole Buck?")     # one BM25 score per passage (0 where no query word occurs)
    fused = rrf([dense, lexical])                 # reciprocal rank fusion: sum of 1 / (k + rank)

BM25 finds the passage that names the rare word of a question ("Manuel", "Yeehats"), which a small sentence
embedding blurs; the embedding finds the paraphrase. Reciprocal rank fusion (Cormack et al. 2009, k = 60) needs no
calibration between the two score scales, which is why it is the default; bench/graphrag_bench.py measures it
against each alone. An index is built per spoiler-safe view (its IDF counts only the passages a reader may see), so
callers cache it per view (core.qa.corpus does).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

RRF_K = 60


@lru_cache(maxsize=1)
def _bm25s() -> Any:
    """bm25s, imported on first use; it sets its own logger to DEBUG on import, which would print on every index."""
    import logging

    import bm25s
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


@lru_cache(maxsize=1)
def stemmer() -> Any:
    """PyStemmer's English Snowball stemmer (BM25 search and the answer-support check stem alike)."""
    import Stemmer
    return Stemmer.Stemmer("english")


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """Lower-cased, English-stopword-free, Snowball-stemmed word lists (bm25s's tokenizer)."""
    if not texts:
        return []
    return _bm25s().tokenize(list(texts), stopwords="en", stemmer=stemmer().stemWords, return_ids=False,
                          show_progress=False)


class Bm25Index:
    """BM25 (Lucene variant, k1 = 1.5, b = 0.75) over a list of texts, or over their pre-tokenized words."""

    def __init__(self, texts: Sequence[str] = (), *, tokens: Sequence[list[str]] | None = None) -> None:
        words = list(tokens) if tokens is not None else tokenize(texts)
        self.size = len(words)
        self._retriever = None
        if any(words):
            self._retriever = _bm25s().BM25()
            self._retriever.index(words, show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """One score per text; all zero when no query word is in the index."""
        if self._retriever is None:
            return np.zeros(self.size, dtype=np.float32)
        vocab = self._retriever.vocab_dict
        words = [w for w in (tokenize([query]) or [[]])[0] if w in vocab]
        if not words:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(words), dtype=np.float32)


def ranks(scores: np.ndarray) -> np.ndarray:
    """Rank of each item: how many items score strictly higher (0 = best; tied items share a rank, so a tie in one
    ranking is decided by the others, not by position)."""
    descending = np.sort(-scores)
    return np.searchsorted(descending, -scores, side="left").astype(np.int64)


def rrf(score_lists: Sequence[np.ndarray], k: int = RRF_K, weights: Sequence[float] | None = None,
        ignore_zero: Sequence[bool] | None = None) -> np.ndarray:
    """Reciprocal rank fusion: sum over rankings of weight / (k + rank + 1). With `ignore_zero[i]`, items scoring
    exactly 0 in ranking i (BM25: no query word) get nothing from it rather than a rank among ties."""
    if not score_lists:
        raise ValueError("rrf needs at least one ranking")
    n = score_lists[0].shape[0]
    fused = np.zeros(n, dtype=np.float64)
    for i, scores in enumerate(score_lists):
        if scores.shape[0] != n:
            raise ValueError("every ranking must score the same items")
        w = 1.0 if weights is None else float(weights[i])
        part = w / (k + ranks(scores) + 1.0)
        if ignore_zero is not None and ignore_zero[i]:
            part[scores == 0] = 0.0
        fused += part
    return fused
