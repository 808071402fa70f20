"""The X-Ray card's relationships read as the text tells them: who did what to whom, and not what did not happen."""
from __future__ import annotations

import networkx as nx

from core.companion.xray import node_relations


def _edge(graph: nx.MultiDiGraph, u: str, v: str, relation: str, label: str, chapter: int, evidence: str) -> None:
    graph.add_edge(u, v, predicate=relation, relation=relation, label=label, chapter=chapter, chunk_index=0,
                   evidence=evidence, role="both", subject=graph.nodes[u]["label"], object=graph.nodes[v]["label"])


def _graph() -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    graph.add_node("e1", label="Jonathan", type="character")
    graph.add_node("e2", label="Ann", type="character")
    graph.add_node("e3", label="Jupiter", type="location")
    _edge(graph, "e1", "e2", "speaks to", "speaks to", 1, "“Help me up,” he said.")
    _edge(graph, "e2", "e1", "grabbed", "grab", 1, "Ann grabbed him by the scruff of his neck.")
    _edge(graph, "e2", "e1", "hauled", "haul", 1, "Ann grabbed him by the scruff of his neck, hauled him back.")
    _edge(graph, "e1", "e3", "couldn't have slept to", "not sleep to", 1,
          "I couldn't have slept all the way to Jupiter.")
    _edge(graph, "e1", "e3", "was known in spaceways to", "known in spaceways to", 2,
          "He was known in the spaceways from Mercury to Jupiter.")
    return graph


def test_a_relationship_says_who_did_it_to_whom() -> None:
    ann = next(r for r in node_relations(_graph(), "e1") if r.other == "Ann")
    assert ann.text == "Ann grabbed Jonathan"              # the first of the tied verbs, in the text's direction
    assert ann.chapter == 1 and ann.sentence.startswith("Ann grabbed him")


def test_what_the_text_says_did_not_happen_is_not_the_relationship() -> None:
    jupiter = next(r for r in node_relations(_graph(), "e1") if r.other == "Jupiter")
    assert jupiter.label == "known in spaceways to" and jupiter.text == "Jonathan was known in spaceways to Jupiter"
    assert jupiter.chapter == 1                            # the pair was first joined in chapter 1 all the same
    only_negated = _graph()
    only_negated.remove_edges_from([("e1", "e3", k) for k, d in only_negated["e1"]["e3"].items()
                                    if d["label"] != "not sleep to"])
    told = next(r for r in node_relations(only_negated, "e1") if r.other == "Jupiter")
    assert told.text == "Jonathan couldn't have slept to Jupiter"   # said as the text says it, never "not sleep to"


def test_a_fact_told_twice_in_the_same_words_is_shown_once() -> None:
    from core.companion.xray import node_facts
    graph = _graph()
    for sentence in ("Jonathan shook his head.", "He shook his head again, slowly."):
        graph.add_edge("e1", "e1", predicate="shook his head", relation="shook", label="shake", chapter=2,
                       chunk_index=1, evidence=sentence, role="subject", subject="Jonathan", object="his head")
    texts = [f.text for f in node_facts(graph, "e1")]
    assert texts.count("Jonathan shook his head") == 1 and len(texts) == len(set(texts))


def test_a_contraction_is_joined_to_its_word() -> None:
    from core.kg.graph import verbalize
    graph = _graph()
    data = {"role": "subject", "relation": "'ll have", "object": "a load", "predicate": "'ll have a load"}
    assert verbalize(graph, "e1", "e1", data) == "Jonathan'll have a load"
    data = {"role": "both", "predicate": "did n't trust"}
    assert verbalize(graph, "e1", "e2", data) == "Jonathan didn't trust Ann"
    data = {"role": "both", "predicate": "met 'stout' old"}
    assert verbalize(graph, "e1", "e2", data) == "Jonathan met 'stout' old Ann"


def test_the_introducing_sentence_is_not_cut_inside_what_is_said() -> None:
    """Seen on The Happy Castaway: Ann's card was introduced by 'She said, "I'm Ann.' (the sentence split inside the
    quotation); the sentences after it are added while the quotation is open, two at most."""
    from core.companion.xray import introduction
    graph = _graph()
    graph.nodes["e2"].update(aliases=["Ann", "Ann Clotilde"], first_chapter=1)
    chapter = ['The girl smiled.', 'She said, "I\'m Ann.', 'Ann Clotilde.', 'I was hunting."', 'Jonathan stared.']
    told = introduction(graph, "e2", lambda k: chapter)
    assert told is not None and told.text == "introduced"
    assert told.sentence == 'She said, "I\'m Ann. Ann Clotilde. I was hunting."'
    closed = ['"Ann Clotilde," she said.', 'Jonathan stared.']
    assert introduction(graph, "e2", lambda k: closed).sentence == '"Ann Clotilde," she said.'


def test_the_introduction_is_a_whole_speech_where_the_first_naming_one_is_not() -> None:
    """A speech longer than three sentences stayed open on the card; one begun in its middle showed its closing mark
    alone. The first naming sentence that is whole is taken then; when none is, the first as before."""
    from core.companion.xray import introduction
    graph = _graph()
    graph.nodes["e2"].update(aliases=["Ann"], first_chapter=1)
    long = ['She said, "I\'m Ann.', 'I was hunting.', 'I saw your ship.', 'You were thrown clear.', 'Come."',
            'Ann led him to the cave.']
    assert introduction(graph, "e2", lambda k: long).sentence == "Ann led him to the cave."
    middle = ['"Oh.', 'Your eyes," Ann said, "are like pools."', 'Jonathan blushed.', 'Ann laughed at him.']
    told = introduction(graph, "e2", lambda k: middle)
    assert told is not None and told.sentence == "Ann laughed at him."
    only = ['"Oh.', 'Your eyes," Ann said, "are like pools."']
    told = introduction(graph, "e2", lambda k: only)
    assert told is not None and told.sentence == 'Your eyes," Ann said, "are like pools."'


def test_the_introduction_does_more_than_call_them_by_name() -> None:
    """Seen on The Picture of Dorian Gray: Harry's card was introduced by '"I do not, Harry."'. The first sentence
    that tells of them is taken; when every one only calls them, the first as before."""
    from core.companion.xray import introduction
    graph = _graph()
    graph.nodes["e2"].update(aliases=["Harry"], first_chapter=1)
    chapter = ['"I do not, Harry."', '"Harry!" exclaimed Basil.', "Harry lit a cigarette and smiled at Basil."]
    assert introduction(graph, "e2", lambda k: chapter).sentence == "Harry lit a cigarette and smiled at Basil."
    called = chapter[:2]
    assert introduction(graph, "e2", lambda k: called).sentence == '"I do not, Harry."'
