"""Graph views: nothing from later chapters, later merges undone, pruning as a view, search, top-N."""
from __future__ import annotations

from core.kg.graph import (GraphData, degree, find_nodes, graph_as_of, neighbourhood, prune_low_degree,
                           top_by_degree)
from core.kg.types import EntityName, KgEntity, StoredTriple


def _triple(i: int, chapter: int, s: str | None, rel: str, o: str | None, obj_text: str = "") -> StoredTriple:
    return StoredTriple(i, chapter, None, 0, s or "someone", rel, o or obj_text, f"sentence {i}", s, o)


def _data() -> GraphData:
    eliza = KgEntity(1, "Elizabeth", "character", [EntityName("Elizabeth", 1, 10), EntityName(
        "Lizzy", 1, 3, "Elizabeth", 1), EntityName("Eliza", 2, 2, "Elizabeth", 5)], 1, 15)
    jane = KgEntity(2, "Jane", "character", [EntityName("Jane", 1, 8)], 1, 8)
    darcy = KgEntity(3, "Mr. Darcy", "character", [EntityName("Mr. Darcy", 3, 9)], 3, 9)
    pemberley = KgEntity(4, "Pemberley", "location", [EntityName("Pemberley", 4, 2)], 4, 2)
    counts = {"Elizabeth": {1: 4, 2: 6}, "Lizzy": {1: 3}, "Eliza": {2: 2}, "Jane": {1: 5, 3: 3},
              "Mr. Darcy": {3: 9}, "Pemberley": {4: 2}}
    edges = [_triple(1, 1, "Elizabeth", "walked with", "Jane"), _triple(2, 3, "Mr. Darcy", "danced with", "Jane"),
             _triple(3, 3, "Elizabeth", "laughed at", "Mr. Darcy"), _triple(4, 4, "Mr. Darcy", "owns", "Pemberley"),
             _triple(5, 2, "Lizzy", "read", None, "a letter")]
    return GraphData([eliza, jane, darcy, pemberley], edges, counts, 4)


def test_nothing_from_later_chapters() -> None:
    g1, g3 = graph_as_of(_data(), 1), graph_as_of(_data(), 3)
    assert {g1.nodes[n]["label"] for n in g1} == {"Elizabeth", "Jane"}
    assert {g3.nodes[n]["label"] for n in g3} == {"Elizabeth", "Eliza", "Jane", "Mr. Darcy"}  # Eliza: merged in ch. 5
    assert max(d["chapter"] for _, _, d in g3.edges(data=True)) <= 3
    assert g1.nodes["e2"]["mentions"] == 5 and g3.nodes["e2"]["mentions"] == 8
    assert g3.nodes["e2"]["mentions_by_chapter"] == {1: 5, 3: 3}


def test_merges_decided_later_are_undone_in_earlier_views() -> None:
    g2 = graph_as_of(_data(), 2)
    labels = {g2.nodes[n]["label"]: n for n in g2}
    assert labels["Eliza"] == "e1.1" and set(g2.nodes["e1"]["aliases"]) == {"Elizabeth", "Lizzy"}
    g5 = graph_as_of(_data(), 5)
    assert set(g5.nodes["e1"]["aliases"]) == {"Elizabeth", "Lizzy", "Eliza"} and "e1.1" not in g5


def test_descriptions_are_self_loops_and_do_not_count_as_degree() -> None:
    g = graph_as_of(_data(), 2)
    loops = [(u, v, d) for u, v, d in g.edges(data=True) if u == v]
    assert loops and loops[0][2]["predicate"] == "read a letter"
    assert degree(g, "e1") == 1


def test_pruning_is_repeated_and_leaves_the_input_alone() -> None:
    g = graph_as_of(_data())
    pruned = prune_low_degree(g, 2)
    assert set(pruned) == {"e1", "e2", "e3"}  # Pemberley (degree 1) goes; the triangle stays
    assert "e4" in g
    assert set(prune_low_degree(g, 3)) == set()  # removing one node lowers the others: repeated until stable


def test_search_neighbourhood_and_top_n() -> None:
    g = graph_as_of(_data())
    assert find_nodes(g, "lizzy") == ["e1"] and find_nodes(g, "zzz") == []
    assert set(neighbourhood(g, "e4", 1)) == {"e3", "e4"}
    assert set(top_by_degree(g, 1)) == {"e3"} and set(top_by_degree(g, 1, keep=["e4"])) == {"e3", "e4"}
