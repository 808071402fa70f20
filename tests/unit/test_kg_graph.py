"""Graph views: nothing from later chapters, later merges undone, pruning as a view, search, top-N; relationships
(one weighted edge per pair) and the relationship timeline of two nodes."""
from __future__ import annotations

import networkx as nx

from core.kg.graph import (INTERACTION_WEIGHT, GraphData, degree, find_nodes, graph_as_of, neighbourhood,
                           prune_low_degree, relationship_timeline, relationships, strength, top_by_degree)
from core.kg.types import CO_OCCURS, EntityName, KgEntity, StoredTriple


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


# ---- relationships and the relationship timeline -------------------------------------------------------------

def _pairs() -> GraphData:
    """Buck and Thornton: verbs both ways in chapters 2, 2 and 5, an interaction in 3; Buck and Spitz from chapter 1;
    Perrault only ever appears with Buck (an interaction) in chapter 4; Dawson has no relationship."""
    def char(i: int, name: str, first: int, mentions: int) -> KgEntity:
        return KgEntity(i, name, "character", [EntityName(name, first, mentions)], first, mentions)

    entities = [char(1, "Buck", 1, 30), char(2, "Thornton", 2, 12), char(3, "Spitz", 1, 8), char(4, "Perrault", 4, 3),
                char(5, "Dawson", 3, 2)]
    counts = {"Buck": {1: 10, 2: 5, 3: 5, 4: 5, 5: 5}, "Thornton": {2: 6, 3: 3, 5: 3}, "Spitz": {1: 8},
              "Perrault": {4: 3}, "Dawson": {3: 2}}
    edges = [StoredTriple(1, 2, 11, 0, "Thornton", "saved", "Buck", "Thornton saved Buck.", "Thornton", "Buck"),
             StoredTriple(2, 2, 11, 1, "Buck", "loved", "Thornton", "Buck loved Thornton.", "Buck", "Thornton"),
             StoredTriple(3, 3, 12, 0, "Buck", CO_OCCURS, "Thornton", "Buck lay at Thornton's feet.", "Buck",
                          "Thornton"),
             StoredTriple(4, 5, 13, 0, "Thornton", "saved", "Buck", "Thornton saved Buck again.", "Thornton", "Buck"),
             StoredTriple(5, 1, 10, 0, "Spitz", "fought", "Buck", "Spitz fought Buck.", "Spitz", "Buck"),
             StoredTriple(6, 4, 14, 0, "Perrault", CO_OCCURS, "Buck", "Perrault and Buck ran.", "Perrault", "Buck"),
             StoredTriple(7, 1, 10, 1, "Buck", "was", None, "Buck was big.", "Buck", None)]
    return GraphData(entities, edges, counts, 5)


def test_relationships_fold_triples_into_one_weighted_edge_per_pair() -> None:
    rel = relationships(graph_as_of(_pairs()))
    assert isinstance(rel, nx.Graph) and not rel.is_directed() and set(rel) == {"e1", "e2", "e3", "e4", "e5"}
    assert rel.number_of_edges() == 3  # Buck-Thornton (4 triples, both ways), Buck-Spitz, Buck-Perrault
    bt = rel["e1"]["e2"]
    assert bt["labels"] == [("saved", 2), ("loved", 1), (CO_OCCURS, 1)]  # verbs first, most frequent first
    assert bt["label"] == "saved" and bt["triples"] == 4 and not bt["interaction_only"]
    assert bt["weight"] == 3 + INTERACTION_WEIGHT
    assert bt["chapters"] == [2, 3, 5] and bt["first_chapter"] == 2 and bt["by_chapter"] == {2: 2, 3: 1, 5: 1}
    assert bt["triple_ids"] == [1, 2, 3, 4]
    assert [e["chapter"] for e in bt["evidence"]] == [2, 2, 3, 5] and bt["evidence"][0] == {
        "chapter": 2, "sentence": "Thornton saved Buck.", "label": "saved", "chunk_id": 11}
    bp = rel["e1"]["e4"]
    assert bp["interaction_only"] and bp["weight"] == INTERACTION_WEIGHT and bp["label"] == CO_OCCURS
    assert strength(rel, "e1") == 3 + INTERACTION_WEIGHT + 1 + INTERACTION_WEIGHT and strength(rel, "e5") == 0


def test_relationship_evidence_prefers_verb_sentences_and_uses_labels() -> None:
    data = _pairs()
    data.edges.extend(StoredTriple(10 + i, 3, 12, i + 2, "Buck", CO_OCCURS, "Thornton", f"Together {i}.", "Buck",
                                   "Thornton") for i in range(5))
    rel = relationships(graph_as_of(data), evidence=3)
    sentences = [e["sentence"] for e in rel["e1"]["e2"]["evidence"]]
    assert sentences == ["Thornton saved Buck.", "Buck loved Thornton.", "Thornton saved Buck again."]
    labelled = StoredTriple(30, 1, 10, 2, "Spitz", "sold", "Buck", "Spitz sold Buck to Perrault.", "Spitz", "Buck")
    object.__setattr__(labelled, "label", "sell to")  # the readable lemma form the extractor may store
    data.edges.append(labelled)
    g = graph_as_of(data)
    assert {d["label"] for _, _, d in g.edges(data=True)} >= {"sell to", "saved"}  # label, else the relation
    assert ("sell to", 1) in relationships(g)["e1"]["e3"]["labels"]


def test_relationship_timeline_start_pauses_and_as_of_cut() -> None:
    tl = relationship_timeline(_pairs(), "e1", "e2")
    assert tl.last == 5 and tl.first_chapter == 2 and tl.counts == {1: 0, 2: 2, 3: 1, 4: 0, 5: 1}
    assert tl.pauses == [(4, 4)] and tl.total == 4
    two = tl.chapters[1]
    assert two.labels == [("loved", 1), ("saved", 1)] and [e["sentence"] for e in two.evidence] == [
        "Thornton saved Buck.", "Buck loved Thornton."]
    assert tl.chapters[2].labels == [(CO_OCCURS, 1)]
    early = relationship_timeline(_pairs(), "e2", "e1", as_of=4)  # either order; nothing from chapter 5
    assert early.last == 4 and early.counts == {1: 0, 2: 2, 3: 1, 4: 0} and early.pauses == [(4, 4)]
    spitz = relationship_timeline(graph_as_of(_pairs(), 5), "e1", "e3")
    assert spitz.first_chapter == 1 and spitz.pauses == [(2, 5)]  # apart since chapter 2: a pause that lasts
    assert relationship_timeline(_pairs(), "e1", "e4", as_of=3).first_chapter is None  # they meet in chapter 4
    assert relationship_timeline(_pairs(), "e1", "e2", as_of=1).chapters[0].triples == 0
    assert relationship_timeline(_pairs(), "e1", "e5").total == 0


def test_two_names_of_one_entity_in_a_sentence_make_no_edge_to_itself() -> None:
    data = _data()
    data.edges.append(_triple(6, 1, "Lizzy", CO_OCCURS, "Elizabeth"))        # "Lizzy, as Elizabeth was called"
    data.edges.append(_triple(7, 1, "Lizzy", "wrote to", "Elizabeth"))        # a verb between the two is kept
    g = graph_as_of(data, 1)
    loops = [d["predicate"] for u, v, d in g.edges(data=True) if u == v == "e1"]
    assert loops == ["wrote to"]
