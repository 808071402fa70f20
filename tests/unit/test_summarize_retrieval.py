"""E_k (the chapter's entities, their induced subgraph, nothing later) and the keyword-weighted, z-scored ranking of
eqs. (2)-(4), on hand-built graphs and a fake embedder with known vectors."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from core.summarize import KEYWORDS, SummaryParams, chapter_edges, edge_scores, rank_edges, zscore_columns
from core.summarize.retrieval import KgEdge, chapter_name


def test_table_3_keywords_and_weights() -> None:
    assert KEYWORDS == (("relation", 30.0), ("happen", 15.0), ("conflict", 10.0), ("desire", 10.0),
                        ("emotion", 10.0), ("role", 10.0), ("think", 5.0), ("location", 5.0), ("personality", 5.0))
    assert SummaryParams().keywords == KEYWORDS


def test_zscore_columns_by_hand() -> None:
    m = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    z = zscore_columns(m)
    sd = np.sqrt(2 / 3)  # population standard deviation of 1, 2, 3
    assert z[:, 0] == pytest.approx([-1 / sd, 0.0, 1 / sd])
    assert z[:, 1] == pytest.approx([0.0, 0.0, 0.0])  # a constant column carries no information, and no NaN
    assert zscore_columns(np.zeros((0, 3))).shape == (0, 3)


def test_zscoring_removes_a_keywords_general_level() -> None:
    # keyword 2 scores everything higher; after z-scoring its column is the same as keyword 1's
    s = np.array([[0.1, 0.8], [0.2, 0.9], [0.3, 1.0]])
    z = zscore_columns(s)
    assert z[:, 0] == pytest.approx(z[:, 1])


def test_weights_multiply_and_sum() -> None:
    s = np.array([[0.0, 1.0], [1.0, 0.0]])  # z: [[-1, 1], [1, -1]]
    assert edge_scores(s, [30.0, 10.0]) == pytest.approx([-30 + 10, 30 - 10])
    assert edge_scores(s, [10.0, 30.0]) == pytest.approx([20.0, -20.0])


VECTORS = {"relation": [1, 0, 0], "happen": [0, 1, 0], "is sister of": [1, 0, 0], "went to town": [0, 1, 0],
           "wore a hat": [0, 0, 1], "loves": [0.9, 0.1, 0]}


def fake_embed(texts):  # noqa: ANN001, ANN201 - known vectors, unnormalised on purpose
    return np.array([np.array(VECTORS[t], dtype=float) * 2 for t in texts])


def _edge(i: int, predicate: str, node: str = "a", obj: str | None = "b") -> KgEdge:
    return KgEdge(i, node, node.upper(), predicate, obj.upper() if obj else None, obj, 1, predicate)


def test_ranking_follows_the_weights() -> None:
    edges = [_edge(1, "wore a hat"), _edge(2, "went to town"), _edge(3, "is sister of")]
    ranked = rank_edges(edges, fake_embed, (("relation", 30.0), ("happen", 15.0)))
    assert [r.edge.id for r in ranked] == [3, 2, 1]
    ranked = rank_edges(edges, fake_embed, (("relation", 15.0), ("happen", 30.0)))
    assert [r.edge.id for r in ranked] == [2, 3, 1]
    # hand check of S for edge 3: cos to relation = [0, 0, 1] -> z = [-1/√2, -1/√2, √2]; to happen = [0, 1, 0] ->
    # z = [-1/√2, √2, -1/√2]; S_3 = 15·√2 + 30·(-1/√2)
    assert ranked[1].score == pytest.approx(15 * np.sqrt(2) - 30 / np.sqrt(2))


def test_duplicate_predicates_count_in_mean_and_deviation() -> None:
    # mu and sigma are over the edges of E_k, so a predicate used by two edges weighs twice
    edges = [_edge(1, "is sister of"), _edge(2, "is sister of"), _edge(3, "went to town")]
    scores = {r.edge.id: r.score for r in rank_edges(edges, fake_embed, (("relation", 1.0),))}
    z = zscore_columns(np.array([[1.0], [1.0], [0.0]]))[:, 0]
    assert [scores[1], scores[2], scores[3]] == pytest.approx(list(z))
    assert rank_edges([], fake_embed, KEYWORDS) == []


def _graph() -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    g.add_node("e1", label="Elizabeth Bennet", aliases=["Elizabeth Bennet", "Lizzy"], mentions_by_chapter={1: 3, 2: 9})
    g.add_node("e2", label="Mr. Darcy", aliases=["Mr. Darcy", "Darcy"], mentions_by_chapter={1: 2, 2: 4})
    g.add_node("e3", label="Jane", aliases=["Jane"], mentions_by_chapter={1: 5})          # not in chapter 2
    g.add_node("e4", label="Netherfield", aliases=["Netherfield"], mentions_by_chapter={2: 1})
    g.add_edge("e1", "e2", key=10, predicate="dislikes", relation="dislikes", chapter=1, role="both")
    g.add_edge("e1", "e3", key=11, predicate="is sister of", relation="is sister of", chapter=1, role="both")
    g.add_edge("e2", "e2", key=12, predicate="is proud", relation="is", object="proud", chapter=2, role="subject")
    g.add_edge("e1", "e4", key=13, predicate="walks to", relation="walks to", chapter=2, role="both")
    g.add_edge("e2", "e1", key=14, predicate="marries", relation="marries", chapter=3, role="both")  # later
    g.add_edge("e4", "e4", key=15, predicate="a servant brought", subject="a servant", relation="brought",
               object="Netherfield", chapter=2, role="object")
    return g


def test_chapter_edges_is_the_induced_subgraph_without_later_edges() -> None:
    cg = chapter_edges(_graph(), 2, {"Lizzy": 6, "Elizabeth Bennet": 3, "Darcy": 4})
    assert [e.id for e in cg.edges] == [10, 12, 13, 15]      # 11 leaves N_2 (Jane), 14 is from chapter 3
    assert cg.mentions == {"e1": 9, "e2": 4, "e4": 1}
    assert cg.names == {"e1": "Lizzy", "e2": "Darcy", "e4": "Netherfield"}  # the name used most in the chapter
    by_id = {e.id: e for e in cg.edges}
    assert by_id[10].line == "Lizzy; dislikes; Darcy"
    assert by_id[12].line == "Darcy; is proud" and by_id[12].is_self_loop
    assert by_id[15].line == "a servant; brought; Netherfield" and by_id[15].is_self_loop and by_id[15].node == "e4"
    assert chapter_edges(_graph(), 1, {}).edges and all(e.chapter <= 1 for e in chapter_edges(_graph(), 1, {}).edges)


def test_chapter_name_ties_prefer_the_label() -> None:
    assert chapter_name(["Lizzy", "Elizabeth"], "Elizabeth", {"Lizzy": 2, "Elizabeth": 2}) == "Elizabeth"
    assert chapter_name(["Lizzy", "Elizabeth"], "Elizabeth", {}) == "Elizabeth"
