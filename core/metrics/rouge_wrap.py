"""ROUGE-1/2/L (the rouge-score package, as in the KGScore paper: F-measure, Porter stemming) and an embedding
similarity of two summaries with the packaged MiniLM sentence embedder.

MiniLM reads at most 256 word pieces, and a story summary is often longer, so each text is cut into windows of
about 120 words at sentence ends; its embedding is the mean of the windows' unit embeddings.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

ROUGE_TYPES: tuple[str, ...] = ("rouge1", "rouge2", "rougeL")
WINDOW_WORDS = 120
_SENTENCES = re.compile(r"(?<=[.!?])\s+")


@lru_cache(maxsize=1)
def _scorer() -> Any:
    from rouge_score import rouge_scorer
    return rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)


def rouge_scores(generated: str, reference: str) -> dict[str, float]:
    """F-measure of ROUGE-1, ROUGE-2 and ROUGE-L (0-1)."""
    scores = _scorer().score(reference, generated)  # rouge-score takes (target, prediction)
    return {name: round(float(scores[name].fmeasure), 6) for name in ROUGE_TYPES}


def windows(text: str, size: int = WINDOW_WORDS) -> list[str]:
    """Consecutive sentences packed into pieces of at most ~`size` words (a longer sentence is cut at words)."""
    pieces: list[str] = []
    current: list[str] = []
    for sentence in _SENTENCES.split(" ".join(text.split())):
        words = sentence.split()
        while len(words) > size:
            if current:
                pieces.append(" ".join(current))
                current = []
            pieces.append(" ".join(words[:size]))
            words = words[size:]
        if current and len(current) + len(words) > size:
            pieces.append(" ".join(current))
            current = []
        current.extend(words)
    if current:
        pieces.append(" ".join(current))
    return pieces


def text_vector(text: str, embed: Callable[[Sequence[str]], np.ndarray]) -> np.ndarray:
    rows = np.asarray(embed(windows(text)), dtype=np.float64)
    if rows.shape[0] == 0:
        return np.zeros(rows.shape[1] if rows.ndim == 2 else 1)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    mean = rows.mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-12)


def embedding_similarity(a: str, b: str, embed: Callable[[Sequence[str]], np.ndarray] | None = None) -> float:
    """Cosine similarity of the two texts' mean window embeddings (MiniLM unless `embed` is given)."""
    if embed is None:
        from core.nlp import embed as minilm
        embed = minilm
    return float(text_vector(a, embed) @ text_vector(b, embed))
