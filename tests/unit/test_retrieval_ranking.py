"""Fact ranking by Levenshtein distance, passage ranking by cosine, and the NARCO score against hand computation."""
from __future__ import annotations

import numpy as np
import pytest

from core.retrieval import narco_scores, rank_by_levenshtein, rank_by_similarity, rank_narco
from core.retrieval.facts import levenshtein_distances


def test_levenshtein_distances_match_hand_counts() -> None:
    # kitten -> sitting: 3 edits (the textbook example); identical strings: 0; case is ignored
    assert levenshtein_distances("kitten", ["sitting", "kitten", "KITTEN", "kit"]).tolist() == [3, 0, 0, 3]


def test_rank_by_levenshtein_orders_by_distance_and_keeps_k() -> None:
    question = "Who wrote Harry Potter?"
    facts = ["the knight fought with the dragon", "Rowling wrote Harry Potter", "who wrote harry potter",
             "Scrooge kept Marley's name", "Rowling is author of Harry Potter"]
    ranked = rank_by_levenshtein(question, facts, k=3)
    assert [r.index for r in ranked] == [2, 1, 4]
    assert ranked[0].score == 1.0  # only the question mark differs once case is ignored
    assert ranked[0].score <= ranked[1].score <= ranked[2].score
    assert len(rank_by_levenshtein(question, facts, k=10)) == len(facts)
    assert rank_by_levenshtein(question, [], k=3) == [] and rank_by_levenshtein(question, facts, k=0) == []


def test_levenshtein_ties_go_to_the_later_fact() -> None:
    ranked = rank_by_levenshtein("abc", ["abd", "xbc", "abx"], k=3)
    assert [r.score for r in ranked] == [1.0, 1.0, 1.0]
    assert [r.index for r in ranked] == [2, 1, 0]


def test_rank_by_similarity_respects_the_mask() -> None:
    matrix = np.eye(3, dtype=np.float32)
    query = np.array([0.9, 0.1, 0.4], dtype=np.float32)
    assert [r.index for r in rank_by_similarity(query, matrix, 3)] == [0, 2, 1]
    masked = rank_by_similarity(query, matrix, 3, mask=np.array([False, True, True]))
    assert [r.index for r in masked] == [2, 1]
    assert masked[0].score == pytest.approx(0.4)


def _unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_narco_score_matches_a_hand_computation() -> None:
    q = _unit(1, 0)
    nodes = np.stack([_unit(1, 1), _unit(0, 1), _unit(1, 0)])          # q·v = 0.7071, 0, 1
    edges = np.stack([_unit(1, 0), _unit(0, 1), _unit(3, 4), _unit(-1, 0)])  # q·e = 1, 0, 0.6, -1
    owner = np.array([1, 1, 0, 2])                                      # node 0: e2; node 1: e0, e1; node 2: e3
    scores, similarity, best = narco_scores(q, nodes, edges, owner, lam=0.1)
    # S_i = q·v_i + 0.1 * max_j q·e_ij
    expected = [0.70710678 + 0.1 * 0.6, 0.0 + 0.1 * 1.0, 1.0 + 0.1 * -1.0]
    assert scores.tolist() == pytest.approx(expected, abs=1e-6)
    assert similarity.tolist() == pytest.approx([0.70710678, 0.0, 1.0], abs=1e-6)
    assert best.tolist() == [2, 0, 3]
    assert [r.index for r in rank_narco(q, nodes, edges, owner, k=3, lam=0.1)] == [2, 0, 1]


def test_a_node_without_questions_keeps_its_plain_similarity() -> None:
    q = _unit(1, 0)
    nodes = np.stack([_unit(1, 1), _unit(1, 0)])
    scores, _, best = narco_scores(q, nodes, np.stack([_unit(1, 0)]), np.array([0]), lam=0.5)
    assert scores.tolist() == pytest.approx([0.70710678 + 0.5, 1.0], abs=1e-6)
    assert best.tolist() == [0, -1]


def test_without_edges_or_lambda_narco_ranks_exactly_like_rag() -> None:
    rng = np.random.default_rng(7)
    nodes = rng.normal(size=(20, 8)).astype(np.float32)
    nodes /= np.linalg.norm(nodes, axis=1, keepdims=True)
    q = nodes[3] + 0.1
    q /= np.linalg.norm(q)
    rag = [r.index for r in rank_by_similarity(q, nodes, 5)]
    empty = np.zeros((0, 8), dtype=np.float32)
    assert [r.index for r in rank_narco(q, nodes, empty, np.zeros(0, dtype=np.int64), k=5)] == rag
    edges = rng.normal(size=(10, 8)).astype(np.float32)
    edges /= np.linalg.norm(edges, axis=1, keepdims=True)
    assert [r.index for r in rank_narco(q, nodes, edges, rng.integers(0, 20, 10), k=5, lam=0.0)] == rag
