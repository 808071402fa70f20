"""Graph retrieval (core.retrieval.graphrank via core.qa.search), hybrid fusion and name matching, on small
hand-made corpora: no model, fake unit vectors."""
from __future__ import annotations

import numpy as np
import pytest

from core.qa import Corpus, FactRecord, Passage, QAParams, plan_prompt
from core.qa.search import graph_search, passage_match
from core.retrieval.entities import EntityIndex, EntityRef, Relation
from core.retrieval.graphrank import ViewGraph, link_entities, personalized_pagerank, rank
from core.retrieval.hybrid import Bm25Index, ranks, rrf

TEXTS = [
    (1, "Manuel sold Buck to a stranger at the station."),           # 0 Manuel, Buck
    (1, "The weather turned cold and the river froze."),              # 1 nobody
    (1, "Perrault and Francois took the team north."),                # 2 Perrault, Francois
    (2, "Francois whistled, and the sled went over the ice."),        # 3 Francois only: two hops from Buck
    (2, "Snow fell on the roofs of the town all night."),             # 4 nobody
    (3, "Curly was killed by the huskies on the beach."),             # 5 Curly: after the spoiler limit
]
ENTITIES = [EntityRef(10, "Manuel", "character", ("Manuel",)), EntityRef(11, "Buck", "character", ("Buck",)),
            EntityRef(12, "Perrault", "character", ("Perrault",)),
            EntityRef(13, "Francois", "character", ("Francois", "François")),
            EntityRef(14, "Curly", "character", ("Curly",))]
RELATIONS = [Relation(1, 0, 1, 1.0, "sell"), Relation(1, 1, 2, 1.0, "buy"), Relation(1, 2, 3, 0.5, "appears with"),
             Relation(3, 1, 4, 1.0, "see")]


def corpus() -> Corpus:
    passages = [Passage(i, ch, i, t) for i, (ch, t) in enumerate(TEXTS)]
    vectors = np.tile(np.eye(1, 8, dtype=np.float32), (len(passages), 1))  # every passage equally similar
    index = EntityIndex.build([t for _, t in TEXTS], ENTITIES, RELATIONS)
    facts = [FactRecord("Manuel", "sold", "Buck", 1, 0, 0, TEXTS[0][1], 0, 1)]
    return Corpus(passages, facts, vectors, entities=index)


def test_names_found_with_case_and_aliases() -> None:
    index = corpus().entities
    assert index is not None
    hits = {(r, c) for r, c in zip(*index.mentions.nonzero())}
    assert (0, 0) in hits and (0, 1) in hits and (3, 3) in hits and (5, 4) in hits
    assert index.find_in_question("what did manuel do to buck?") == {0: "Manuel", 1: "Buck"}
    assert 3 in index.find_in_question("Who is François?")


def test_capitalised_name_is_not_an_ordinary_word() -> None:
    texts = ["Will said he will go.", "You will see, and you will stay."]
    index = EntityIndex.build(texts, [EntityRef(1, "Will", "character", ("Will",))])
    assert index.mentions[0, 0] == 1 and index.mentions[1, 0] == 0     # "will" the verb is not Will
    assert index.find_in_question("what will happen") == {}            # "will" is an ordinary word of this book
    assert index.find_in_question("What did Will say?") == {0: "Will"}


def test_passage_two_hops_away_is_found_through_the_graph() -> None:
    view = corpus().upto(2)
    query = np.eye(1, 8, dtype=np.float32)[0]
    scores, _, trace = graph_search(view, "What happened to Buck?", query)
    assert trace is not None and [s["label"] for s in trace.seeds if s["how"] == "named"] == ["Buck"]
    # the best-matching sentence ("Manuel sold Buck ...") names Manuel: a one-hop seed (LinearRAG's bridging)
    assert {s["label"] for s in trace.seeds if s["how"] == "bridge"} <= {"Manuel"}
    order = list(np.argsort(-scores, kind="stable"))
    # passage 3 names only Francois (Buck -> Perrault -> Francois): it outranks the passages naming no one
    assert order.index(3) < order.index(1) and order.index(3) < order.index(4)
    # without the graph (words + meaning only) it would not
    match, _ = passage_match(view, "What happened to Buck?", query)
    assert match[3] <= match[1] or match[3] <= match[4]


def test_nothing_after_the_spoiler_limit() -> None:
    c = corpus()
    view = c.upto(2)
    query = np.eye(1, 8, dtype=np.float32)[0]
    scores, _, trace = graph_search(view, "Who killed Curly?", query)
    assert scores.shape == (5,)                                 # passage 5 (chapter 3) is not even scored
    assert trace is not None and all(s["label"] != "Curly" for s in trace.seeds)  # Curly is not met by chapter 2
    graph = view.graph()
    assert graph is not None and not graph.visible[4]
    assert (1, 4) not in graph.entity_edges                     # the chapter-3 relation is not walked
    plan = plan_prompt("Who killed Curly?", view, QAParams(mode="graph", budget_tokens=400),
                       count=lambda t: len(t.split()), query_vec=query)
    assert all(p.passage.chapter <= 2 for p in plan.passages) and "huskies" not in plan.prompt


def test_graph_mode_without_entities_falls_back_with_a_note() -> None:
    c = corpus()
    c.entities = None
    plan = plan_prompt("What happened to Buck?", c.upto(None), QAParams(mode="graph", budget_tokens=300),
                       count=lambda t: len(t.split()), query_vec=np.eye(1, 8, dtype=np.float32)[0])
    assert plan.graph is None and any("no knowledge graph" in n for n in plan.notes)
    assert plan.passages and "Buck" in plan.prompt


def test_pagerank_matches_the_closed_form_on_a_path() -> None:
    from scipy import sparse
    a = sparse.csr_matrix(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=np.float32))
    scores = personalized_pagerank(a, np.array([1.0, 0, 0]), damping=0.5)
    # x = 0.5 * e0 + 0.5 * P^T x, solved by hand: x0 = 7/12, x1 = 1/3, x2 = 1/12
    assert scores == pytest.approx([7 / 12, 1 / 3, 1 / 12], abs=1e-4)
    with pytest.raises(ValueError):
        personalized_pagerank(a, np.zeros(3))


def test_seeds_from_names_meaning_and_facts() -> None:
    c = corpus()
    index = c.entities
    assert index is not None
    graph = ViewGraph.build(index, 5, 2)
    vectors = np.eye(5, 8, dtype=np.float32)
    seeds = link_entities("who took the team north", index, graph, np.eye(1, 8, k=2, dtype=np.float32)[0],
                          entity_vectors=vectors, fact_hits=[(0.9, 0, 1, "Manuel sold Buck"), (0.1, 3, None, "x")])
    how = {s.label: s.how for s in seeds}
    assert how == {"Perrault": "meaning", "Manuel": "fact", "Buck": "fact"}   # the 0.1 fact is too far
    ranking = rank(graph, seeds, np.zeros(5))
    assert ranking.scores.sum() > 0 and set(ranking.entity_scores) >= {0, 1, 2}


def test_rrf_and_ranks() -> None:
    a = np.array([0.9, 0.1, 0.5])
    b = np.array([0.0, 3.0, 1.0])
    assert list(ranks(a)) == [0, 2, 1]
    fused = rrf([a, b], k=60, ignore_zero=[False, True])
    assert fused[2] == pytest.approx(2 / 62) and fused[1] == pytest.approx(1 / 63 + 1 / 61)
    assert fused[0] == pytest.approx(1 / 61)               # b's 0 gives passage 0 nothing
    assert list(ranks(np.array([0.5, 0.7, 0.5]))) == [1, 0, 1]   # ties share a rank
    with pytest.raises(ValueError):
        rrf([a, b[:2]])


def test_bm25_finds_the_rare_word() -> None:
    index = Bm25Index(["The dog ran home.", "Manuel sold the dog.", "It was cold."])
    scores = index.scores("Who is Manuel?")
    assert int(np.argmax(scores)) == 1 and scores[2] == 0
    assert not Bm25Index(["", ""]).scores("anything").any()
    assert not index.scores("zzzz qqqq").any()


def test_graph_scores_fuse_pagerank_with_the_passage_match(monkeypatch: pytest.MonkeyPatch) -> None:
    import core.qa.search as search
    view = corpus().upto(2)
    query = np.eye(1, 8, dtype=np.float32)[0]
    question = "What did Francois and Perrault do when it snowed on the roofs of the town?"
    monkeypatch.setattr(search, "MATCH_WEIGHT", 0.0)
    walked, _, _ = graph_search(view, question, query)
    monkeypatch.setattr(search, "MATCH_WEIGHT", 2.0)
    fused, _, _ = graph_search(view, question, query)
    # the walk restarts at the best-matching sentence too, so the passage the question describes word for word
    # ("Snow fell on the roofs of the town") leads with or without the match fused in; among the rest, the passage
    # naming both men beats the one naming nobody
    assert int(np.argmax(walked)) == 4 and int(np.argmax(fused)) == 4
    assert walked[2] > walked[1]
    assert fused[3] > fused[1]   # a passage naming Francois still beats one with nothing to do with the question
