"""Timelines up to the reader's place: one character's events, or a pair's, in chapter order, each with its sentence.

    graph = graph_as_of(data, position)
    events = character_timeline(graph, "e12", states.get("e12", []), intro)   # one character
    events = pair_timeline(graph, "e12", "e7")                                # two: the graph's relationship timeline

A character's events are: its first appearance (the sentence that introduces it), each relationship where it starts
(the first sentence joining it to another character), the states established about it (a death, a tie, a move; the state layer
of issue 32), and its own facts (verb triples it is an end of), at most FACTS_PER_CHAPTER a chapter, the ones with
another entity first. A pair's events are core.kg.graph.relationship_timeline's cited sentences (the Graph page's
timeline: one door), chapter by chapter. `graph` is the graph as of the position, so nothing after it can appear.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import networkx as nx

from core.companion.xray import Cited
from core.kg.characters import is_character
from core.kg.graph import is_interaction, relationship_timeline, verbalize
from core.kg.types import CO_MENTIONED

FACTS_PER_CHAPTER = 3


@dataclass(frozen=True)
class Event:
    chapter: int
    sentence: str
    kind: str                    # "first appearance", "meets", "state", "fact", "together"
    text: str                    # what it tells, in a few words
    order: int = 0               # position within the chapter where known (a passage index), for sorting

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("order")
        return out


def _edges_of(graph: nx.MultiDiGraph, node: str) -> list[tuple[str, str, dict[str, Any]]]:
    edges = [(u, v, e) for u, v, e in (*graph.out_edges(node, data=True), *graph.in_edges(node, data=True))
             if e["relation"] != CO_MENTIONED]
    edges.sort(key=lambda uve: (uve[2]["chapter"], uve[2].get("chunk_index", 0)))
    return edges


def character_timeline(graph: nx.MultiDiGraph, node: str, states: Sequence[Cited] = (),
                       introduced: Cited | None = None, per_chapter: int = FACTS_PER_CHAPTER) -> list[Event]:
    """The events of one character (or any entity) as of the graph's chapter, in story order (see the module)."""
    if node not in graph:
        return []
    label = graph.nodes[node]["label"]
    events: list[Event] = []
    if introduced is not None:
        events.append(Event(introduced.chapter, introduced.sentence, "first appearance", f"{label} first appears",
                            -1))
    met: set[str] = set()
    facts: dict[int, list[tuple[bool, Event]]] = defaultdict(list)   # (has no other entity end, event)
    for u, v, e in _edges_of(graph, node):
        other = v if u == node else u
        sentence = " ".join(e["evidence"].split())
        order = e.get("chunk_index", 0)
        if other != node and other not in met and is_character(graph.nodes[other]["type"]):
            met.add(other)
            events.append(Event(e["chapter"], sentence, "meets",
                                f"{label} and {graph.nodes[other]['label']}: {e.get('label') or e['relation']}",
                                order))
        elif not is_interaction(e["relation"]):
            facts[e["chapter"]].append((e.get("role") != "both",
                                        Event(e["chapter"], sentence, "fact", verbalize(graph, u, v, e), order)))
    for found in facts.values():
        found.sort(key=lambda fe: (fe[0], fe[1].order))       # with another entity first, then reading order
        events.extend(ev for _, ev in found[:per_chapter])
    events.extend(Event(s.chapter, s.sentence, "state", s.text, 10**6) for s in states)
    return _dedupe(sorted(events, key=lambda ev: (ev.chapter, ev.order)))


def pair_timeline(graph: nx.MultiDiGraph, a: str, b: str, evidence_per_chapter: int = 5) -> list[Event]:
    """The cited sentences joining `a` and `b`, chapter by chapter (core.kg.graph.relationship_timeline)."""
    if a not in graph or b not in graph:
        return []
    tl = relationship_timeline(graph, a, b, graph.graph.get("as_of"), evidence_per_chapter=evidence_per_chapter)
    label_a, label_b = graph.nodes[a]["label"], graph.nodes[b]["label"]
    events = []
    for c in tl.chapters:
        for n, ev in enumerate(c.evidence):
            kind = "meets" if c.chapter == tl.first_chapter and n == 0 else "together"
            events.append(Event(c.chapter, " ".join(ev["sentence"].split()), kind,
                                f"{label_a} and {label_b}: {ev['label']}", n))
    return events


def _dedupe(events: list[Event]) -> list[Event]:
    seen: set[tuple[str, str]] = set()
    out = []
    for ev in events:
        key = (ev.kind if ev.kind == "state" else "", ev.sentence)
        if key in seen:
            continue
        seen.add(key)
        out.append(ev)
    return out
