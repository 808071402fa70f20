"""The scoring functions of bench/graph_quality.py on tiny hand-made inputs (no models, no store)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_graph_quality", ROOT / "bench" / "graph_quality.py")
gq = importlib.util.module_from_spec(_spec)
assert _spec.loader is not None
sys.modules[_spec.name] = gq  # dataclasses look their module up
_spec.loader.exec_module(gq)
import graph_quality_scoring as sc  # noqa: E402 - importable once graph_quality.py put bench/ on the path


# ---- parsing gold triples -----------------------------------------------------------------------------------------

def test_parse_single_triple():
    assert sc.parse_triples("(Baron Von Pawel-Rammingen,married,Princess Frederica of Hanover)") == [
        ("Baron Von Pawel-Rammingen", "married", "Princess Frederica of Hanover")]


def test_parse_several_triples_with_trailing_periods_and_spaces():
    text = "(lungs, take in, air).; (air,is breathed out by,lungs).; (lungs,make blood pure)."
    # the third group has only two parts: dropped
    assert sc.parse_triples(text) == [("lungs", "take in", "air"), ("air", "is breathed out by", "lungs")]


def test_parse_nested_parentheses_and_extra_commas():
    assert sc.parse_triples("(Ali, was called into, Moghrele-el-Aksa (Morocco)).") == [
        ("Ali", "was called into", "Moghrele-el-Aksa (Morocco)")]
    # a comma inside the subject: the relation is the first part that starts lowercase
    assert sc.parse_triples("(Reisen unter Sonne, Mond und Sternen,was published in,Erfurt)") == [
        ("Reisen unter Sonne, Mond und Sternen", "was published in", "Erfurt")]
    # a list as the object
    assert sc.parse_triples("(chest,is made up of,ribs, spine, and collar-bones)") == [
        ("chest", "is made up of", "ribs, spine, and collar-bones")]


def test_parse_garbage():
    assert sc.parse_triples("") == []
    assert sc.parse_triples("no triple here") == []
    assert sc.parse_triples("(a, b)") == []


# ---- normalization ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, norm", [
    ("The White Rabbit", "white rabbit"),
    ("  A   Christmas\tCarol ", "christmas carol"),
    ("an Apple", "apple"),
    ("Mr. Darcy", "mr darcy"),
    ("François", "francois"),
    ("Sol-leks", "sol leks"),
    ("Scrooge's nephew", "scrooges nephew"),    # only a final 's is dropped
    ("Scrooge’s", "scrooge"),
    ("St. Michael's Mount", "st michaels mount"),
    ("The", "the"),            # a lone article is kept (it is the whole name)
    ("...", ""),
])
def test_normalize(raw, norm):
    assert sc.normalize(raw) == norm


# ---- matching -----------------------------------------------------------------------------------------------------

def match(a: str, b: str) -> bool:
    return sc.names_match(sc.normalize(a), sc.normalize(b))


@pytest.mark.parametrize("a, b", [
    ("Holmes", "Sherlock Holmes"),
    ("Holmes", "Mr. Sherlock Holmes"),          # the title does not dilute the content tokens
    ("Darcy", "Mr. Darcy"),
    ("the King", "King of Bohemia"),
    ("Princess Frederica", "Princess Frederica of Hanover"),
    ("Elizabeth Bennet", "Miss Elizabeth Bennet"),
    ("Francois", "François"),
    ("Cheshire Cat", "the Cheshire Cat"),
])
def test_names_that_match(a, b):
    assert match(a, b) and match(b, a)


@pytest.mark.parametrize("a, b", [
    ("Mr. Bennet", "Mrs. Bennet"),              # titles count in the subset test
    ("Lord St. Simon", "Lady St. Simon"),
    ("Mr.", "Mr. Darcy"),                       # no content token
    ("the", "the Queen"),
    ("Hanover", "Princess Frederica of Hanover"),   # not the head of an "X of Y" name
    ("Mary", "Mary Jane Watson"),               # covers less than half of the content tokens
    ("Jane Bennet", "Elizabeth Bennet"),        # overlap is not containment
    ("Bohemia", "King of Bohemia"),
    ("", "Alice"),
    ("Tom's wife", "Tom"),                      # a possessive phrase is not its owner
    ("Price's army", "General Price"),
])
def test_names_that_must_not_match(a, b):
    assert not match(a, b) and not match(b, a)


def test_token_rule_only_for_proper_names():
    index = sc.NameIndex({1: ["Ohio River"], 2: ["Mississippi"], 3: ["bishop"], 4: ["Bishop Blougram"]})
    assert index.find("river") == set()                     # a common noun matches only exactly
    assert index.find("Mississippi river") == {2}           # a proper name still matches by the token rule
    assert index.find("the bishop") == {3}                  # exact
    assert index.find("the Bishop") == {3}                  # exact wins
    assert sc.NameIndex({4: ["Bishop Blougram"], 5: ["blougram"]}).find("Blougram") == {5}
    assert sc.NameIndex({4: ["Bishop Blougram"]}).find("Blougram") == {4}
    assert sc.NameIndex({4: ["Bishop Blougram"]}).find("blougram") == set()
    assert sc.is_proper("Alice") and not sc.is_proper("the rabbit-hole")


def test_index_prefers_exact_matches():
    index = sc.NameIndex({1: ["Holmes", "Sherlock Holmes"], 2: ["Mycroft Holmes"], 3: ["Watson"]})
    assert index.find("Holmes") == {1}                  # exact wins over the token rule
    assert index.find("Mr. Holmes") == {1}              # token rule: "Holmes" is in it; "Mycroft Holmes" is not
    assert sc.NameIndex({1: ["Sherlock Holmes"], 2: ["Mycroft Holmes"]}).find("Holmes") == {1, 2}   # no exact
    assert index.find(["Dr. Watson", "Watson"]) == {3}  # any exact alternative wins
    assert index.find("Moriarty") == set()
    assert index.find("Mr. Holmes", exact_only=True) == set()


def test_index_same_rule_for_a_lightrag_style_graph():
    index = sc.NameIndex({n: [n] for n in ["BARON VON PAWEL-RAMMINGEN", "Princess Frederica of Hanover", "Hanover"]})
    assert index.find("Baron Von Pawel-Rammingen") == {"BARON VON PAWEL-RAMMINGEN"}
    assert index.find("Hanover") == {"Hanover"}
    assert index.find("Princess Frederica") == {"Princess Frederica of Hanover"}


# ---- edges --------------------------------------------------------------------------------------------------------

def tiny_graph() -> sc.Graph:
    index = sc.NameIndex({1: ["Alice"], 2: ["White Rabbit", "Rabbit"], 3: ["Hatter"], 4: ["March Hare"],
                          5: ["Queen"], 6: ["Queen of Hearts"]})
    all_edges = sc.adjacency([(2, 1), (3, 4), (5, 5), (1, 6)])   # (5, 5) is a self-loop: dropped
    verb_edges = sc.adjacency([(2, 1)])
    return sc.Graph(index, {"all": all_edges, "no_interaction": verb_edges})


def test_adjacency_drops_self_loops_and_is_undirected():
    adj = sc.adjacency([(1, 2), (3, 3)])
    assert adj[1] == {2} and adj[2] == {1} and 3 not in adj


def test_joined_either_direction():
    adj = sc.adjacency([(1, 2)])
    assert sc.joined({1}, {2}, adj) and sc.joined({2}, {1}, adj)
    assert not sc.joined({1}, {3}, adj)
    assert sc.joined({1, 7}, {9, 2}, adj)      # some subject entity and some object entity


def test_score_triples_rates():
    g = tiny_graph()
    triples = [("Alice", "follows", "the White Rabbit"),      # both, edge in both edge sets
               ("Hatter", "argues with", "March Hare"),        # both, edge only in "all"
               ("Queen", "shouts at", "Queen"),                # both found, self-loop only: no edge
               ("Alice", "meets", "Caterpillar"),              # object missing
               ("Dodo", "organises", "Caucus-race")]           # neither
    s = sc.score_triples(triples, g)
    assert s["n"] == 5
    assert s["hits"] == {"subject": 4, "object": 3, "both": 3, "edge_all": 2, "edge_no_interaction": 1}
    assert s["subject"] == 0.8 and s["both"] == 0.6 and s["edge_all"] == 0.4 and s["edge_no_interaction"] == 0.2


def test_score_pairs_and_misses():
    g = tiny_graph()
    pairs = [{"a": ["Alice"], "b": ["White Rabbit", "Rabbit"]},
             {"a": ["Alice"], "b": ["Queen", "Queen of Hearts"]},      # exact "Queen" and "Queen of Hearts": 5, 6
             {"a": ["Alice"], "b": ["Hatter"]},
             {"a": ["Alice"], "b": ["Dinah"]}]
    s = sc.score_pairs(pairs, g, "all")
    assert (s["n"], s["hits"], s["rate"]) == (4, 2, 0.5)
    assert s["misses"] == ["Alice – Hatter", "Alice – Dinah (not found: Dinah)"]
    assert sc.score_pairs(pairs, g, "no_interaction")["hits"] == 1


def test_micro_and_macro_averages():
    per_book = {"x": {"n": 3, "hits": {"both": 3}, "both": 1.0}, "y": {"n": 1, "hits": {"both": 0}, "both": 0.0},
                "empty": {"n": 0, "hits": {"both": 0}, "both": None}}
    out = sc.micro_macro(per_book, ["both"])
    assert out["micro"]["both"] == 0.75 and out["macro"]["both"] == 0.5 and out["books"] == 2


def test_fabula_graph_maps_edges_through_names():
    from core.kg.types import EntityName, KgEntity, StoredTriple

    def ent(i, *names):
        return KgEntity(i, names[0], "character", [EntityName(n, 1, 1) for n in names], 1, 1)

    def edge(k, s, rel, o):
        return StoredTriple(k, 1, None, 0, s or "x", rel, o or "y", "", s, o)

    class FakeStore:
        def kg_entities(self, work_id):
            return [ent(1, "Elizabeth", "Lizzy"), ent(2, "Mr. Darcy"), ent(3, "Jane"), ent(4, "Mr. Bingley")]

        def kg_triples(self, work_id, kind="all"):
            assert kind == "edges"
            return [edge(1, "Lizzy", "dislikes", "Mr. Darcy"),        # alias -> entity 1
                    edge(2, "Jane", "appears with", "Mr. Bingley"),   # interaction edge
                    edge(6, "Jane", "mentioned with", "Mr. Darcy"),   # the loosest interaction edge
                    edge(3, "Elizabeth", "loves", "Lizzy"),           # self-loop through an alias: dropped
                    edge(4, "Jane", "writes to", None),               # one end only: not an entity pair
                    edge(5, "Jane", "meets", "Mr. Wickham")]          # name of no entity: dropped

    graph, entities = gq.fabula_graph(FakeStore(), 1, frozenset({"appears with", "speaks to", "mentioned with"}))
    assert len(entities) == 4
    assert dict(graph.adj["all"]) == {1: {2}, 2: {1, 3}, 3: {4, 2}, 4: {3}}
    assert dict(graph.adj["no_co_mention"]) == {1: {2}, 2: {1}, 3: {4}, 4: {3}}
    assert dict(graph.adj["no_interaction"]) == {1: {2}, 2: {1}}
    assert graph.index.find("Eliza") == set() and graph.index.find("Elizabeth Bennet") == {1}


def test_lightrag_graph_adds_pair_names():
    g = gq.lightrag_graph({"entities": ["ALICE"], "pairs": [["ALICE", "WHITE RABBIT"]]})
    assert g.index.find("the White Rabbit") == {"WHITE RABBIT"}
    assert sc.joined(g.index.find("Alice"), g.index.find("Rabbit"), g.adj["all"])


# ---- types --------------------------------------------------------------------------------------------------------

def test_judge_types():
    gold = [{"type": "character", "names": ["Buck"]}, {"type": "character", "names": ["John Thornton", "Thornton"]},
            {"type": "location", "names": ["Dawson"]}, {"type": "character", "names": ["Ross"]},
            {"type": "location", "names": ["Ross"]}]
    top = [{"label": "Buck", "names": ["Buck"], "type": "character", "mentions": 9},
           {"label": "Mr. Thornton", "names": ["Mr. Thornton"], "type": "character", "mentions": 8},   # token rule
           {"label": "Dawson", "names": ["Dawson"], "type": "character", "mentions": 7},              # wrong type
           {"label": "Whereupon", "names": ["Whereupon"], "type": "character", "mentions": 6},        # unjudged
           {"label": "Ross", "names": ["Ross"], "type": "location", "mentions": 5}]                   # ambiguous
    out = sc.judge_types(top, gold)
    assert [r["verdict"] for r in out["rows"]] == ["right", "right", "wrong", "unjudged", "right (ambiguous)"]
    assert (out["right"], out["n"], out["rate"]) == (3, 5, 0.6)


# ---- the gold files themselves ------------------------------------------------------------------------------------

def test_gold_files_are_well_formed():
    rel = json.loads((ROOT / "bench" / "gold" / "relationships.json").read_text(encoding="utf-8"))
    types = json.loads((ROOT / "bench" / "gold" / "types.json").read_text(encoding="utf-8"))
    assert set(rel) == set(types) and len(rel) >= 6
    for book in rel.values():
        assert 12 <= len(book["pairs"]) <= 20
        for p in book["pairs"]:
            assert p["a"] and p["b"] and not {sc.normalize(x) for x in p["a"]} & {sc.normalize(x) for x in p["b"]}
    for book in types.values():
        assert len(book["entities"]) >= 25
        assert all(e["type"] in {"character", "location", "organization", "object", "event"} and e["names"]
                   for e in book["entities"])
