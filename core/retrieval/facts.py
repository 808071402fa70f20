"""Top-k by string edit distance (Levenshtein, rapidfuzz) or by cosine similarity of unit embeddings.

Andrus et al. rank knowledge-graph facts for a question by the Levenshtein distance between the fact's text
("head relation tail") and the question, smallest first, and keep the top 3. Both strings are lower-cased first:
the paper compares content, and "Darcy" vs "darcy" should not cost an edit. Ties go to the later item (closer to the
reader's position), which makes the ranking deterministic.

Paper: ../shared/seeds/andrus2022_dynamic_document_kg.txt (Levenshtein and SBERT fact retrieval, top 3).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Ranked:
    """Position `index` in the ranked sequence, with its score (a distance for Levenshtein, a similarity else)."""

    index: int
    score: float


def levenshtein_distances(query: str, texts: Sequence[str]) -> np.ndarray:
    """Edit distance from `query` to each text (lower-cased), as an int array aligned with `texts`."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein
    if not texts:
        return np.zeros(0, dtype=np.int32)
    matrix = process.cdist([query.lower()], [t.lower() for t in texts], scorer=Levenshtein.distance, workers=1)
    return np.asarray(matrix[0], dtype=np.int32)


def rank_by_levenshtein(query: str, texts: Sequence[str], k: int = 3) -> list[Ranked]:
    """The `k` texts nearest to `query` by edit distance, nearest first (ties: later text first)."""
    if k < 1 or not texts:
        return []
    distances = levenshtein_distances(query, texts)
    # lexsort sorts by the last key first: distance ascending, then position descending
    order = np.lexsort((-np.arange(len(texts)), distances))[:k]
    return [Ranked(int(i), float(distances[i])) for i in order]


def rank_by_similarity(query_vec: np.ndarray, matrix: np.ndarray, k: int, mask: np.ndarray | None = None) -> \
        list[Ranked]:
    """The `k` rows of `matrix` (unit vectors) most similar to `query_vec` by cosine, best first; rows where
    `mask` is False are never returned. Ties go to the later row."""
    if k < 1 or matrix.shape[0] == 0:
        return []
    scores = matrix @ query_vec.astype(np.float32)
    return top_k(scores, k, mask)


def top_k(scores: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[Ranked]:
    """Indices of the `k` highest scores (ties: later index first), skipping masked-out rows."""
    candidates = np.arange(scores.shape[0]) if mask is None else np.flatnonzero(mask)
    if k < 1 or candidates.size == 0:
        return []
    picked = scores[candidates]
    order = np.lexsort((-candidates, -picked))[:k]
    return [Ranked(int(candidates[i]), float(picked[i])) for i in order]
