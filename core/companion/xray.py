"""X-Ray: the people, places and things on the page a reader has open, each with a card as of their place.

    graph = graph_as_of(data, position)                     # nothing after the reader's place
    cards = xray(data, graph, page=7, position=9, sentences_of=chapter_sentences_by_index)
    cards[0].name, cards[0].relationships[0].chapter, cards[0].states[0].text, cards[0].mentions

A card holds who the entity is (type, the other names it has had by then, the sentence that introduces it), the
relationships known so far with the chapter where each was first told, the states known so far (core.continuity's
established lines: dead, ties, attributes, home, names; read from the state layer of issue 32), a few of its latest
facts, the first and the latest chapter it is named in, and its mentions per chapter. Every item carries the
chapter it comes from, and every one is at or before the position: the graph is taken as of the position
(core.kg.graph.graph_as_of undoes merges and drops names, mentions and triples of later chapters), and the states
are filtered the same way. `Card.items()` lists them all, which is what the spoiler tests and the benchmark check.

Labels are the ones the graph gives as of the position, never the book's final label (a name a character only gets
later would be a spoiler), and the states are phrased with those labels too.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import networkx as nx

from core.summarize.quotes import begins_inside, inside_before, only_calls, open_after
from core.continuity.model import Entities
from core.continuity.summary import established
from core.kg.characters import is_character
from core.kg.graph import GraphData, is_interaction, verbalize
from core.kg.types import CO_MENTIONED, NODE_TYPES

RELATIONS_PER_CARD = 8       # the strongest relationships shown on a card
FACTS_PER_CARD = 5           # the latest facts shown on a card
CARDS_PER_PAGE = 24          # entities listed for one page, most named first (characters before places and things)

SentencesOf = Callable[[int], Sequence[str]]   # chapter index -> the chapter's sentences in reading order


@dataclass(frozen=True)
class Cited:
    """A sentence of the book with the chapter it is in; `text` says what it tells (a fact, a state, a label)."""

    chapter: int
    sentence: str
    text: str = ""


@dataclass(frozen=True)
class Relation:
    other: str                   # the other entity's label as of the position
    other_node: str
    other_type: str
    label: str                   # what the text says between them, verbs first ("marry", "speaks to")
    chapter: int                 # where it was first told
    last_chapter: int
    sentence: str                # the first sentence that tells it
    weight: float
    text: str = ""               # the label as the text tells it, who to whom: "Ann hauled Jonathan"


@dataclass
class Card:
    node: str
    name: str
    type: str
    aliases: list[str]                              # other names known by the position
    introduced: Cited | None
    relationships: list[Relation]
    states: list[Cited]                             # established as of the position ("Beth is dead", ties, ...)
    facts: list[Cited]                              # its latest facts, newest first
    first_chapter: int
    last_chapter: int
    mentions: dict[int, int]                        # chapter -> mentions, chapters 1..position
    on_page: int                                    # mentions in the chapter open in the reader
    position: int

    def items(self) -> list[tuple[str, int]]:
        """(what, chapter) of every item on the card: what the spoiler checks go through."""
        out = [("first appearance", self.first_chapter), ("last seen", self.last_chapter)]
        out += [(f"mentions in chapter {c}", c) for c in self.mentions]
        if self.introduced:
            out.append(("introduced", self.introduced.chapter))
        out += [(f"relationship with {r.other}", r.chapter) for r in self.relationships]
        out += [(f"relationship with {r.other} (latest)", r.last_chapter) for r in self.relationships]
        out += [(f"state: {s.text}", s.chapter) for s in self.states]
        out += [(f"fact: {f.text}", f.chapter) for f in self.facts]
        return out

    def as_json(self) -> dict[str, Any]:
        """The CLI's line: name, type, aliases, introduced, relationships, states, facts, appearances, each with its
        chapter."""
        return {"name": self.name, "type": self.type, "aliases": self.aliases, "position": self.position,
                "introduced": asdict(self.introduced) if self.introduced else None,
                "relationships": [{"with": r.other, "type": r.other_type, "label": r.label, "text": r.text,
                                   "chapter": r.chapter,
                                   "last_chapter": r.last_chapter, "sentence": r.sentence}
                                  for r in self.relationships],
                "states": [{"state": s.text, "chapter": s.chapter, "sentence": s.sentence} for s in self.states],
                "facts": [{"fact": f.text, "chapter": f.chapter, "sentence": f.sentence} for f in self.facts],
                "first_chapter": self.first_chapter, "last_chapter": self.last_chapter,
                "appearances": [{"chapter": c, "mentions": n} for c, n in self.mentions.items()],
                "on_page": self.on_page}


def _type_rank(entity_type: str) -> int:
    return NODE_TYPES.index(entity_type) if entity_type in NODE_TYPES else len(NODE_TYPES)


def page_nodes(data: GraphData, graph: nx.MultiDiGraph, page: int) -> dict[str, int]:
    """Node -> its mentions in chapter `page`, for every node of `graph` named there (the page's own text: reading it
    is no spoiler, but only entities the graph knows as of its position are listed)."""
    out: dict[str, int] = {}
    for node, d in graph.nodes(data=True):
        n = sum(data.counts.get(name, {}).get(page, 0) for name in d["aliases"])
        if n > 0:
            out[node] = n
    return out


def _words_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    alts = sorted({n for n in names if n.strip()}, key=len, reverse=True)
    if not alts:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(a) for a in alts) + r")(?!\w)")


def introduction(graph: nx.MultiDiGraph, node: str, sentences_of: SentencesOf) -> Cited | None:
    """The first sentence of the node's first chapter that names it (by a name known then), with the sentences that
    close a quotation it opens (_closing_quotation); the first such that is a whole speech and does more than call
    them by name ("I do not, Harry.") where the first is not (begun inside a quotation, or left open after two more
    sentences); else the sentence of its first fact."""
    d = graph.nodes[node]
    pattern = _words_pattern(d["aliases"])
    first = d["first_chapter"]
    if pattern is not None:
        sentences = sentences_of(first)
        found: Cited | None = None
        inside = inside_before(sentences, restart=True)
        for i, sentence in enumerate(sentences):
            if pattern.search(sentence):
                told = Cited(first, _closing_quotation(sentences, i), "introduced")
                if (not (inside[i] or begins_inside(sentence)) and not open_after(told.sentence, False)
                        and not only_calls(sentence, pattern)):
                    return told         # whole: not begun in the middle of a speech, nor left open
                found = found or told
        if found is not None:
            return found
    edges = sorted((e for _, _, e in (*graph.out_edges(node, data=True), *graph.in_edges(node, data=True))),
                   key=lambda e: (e["chapter"], e.get("chunk_index", 0)))
    return Cited(edges[0]["chapter"], " ".join(edges[0]["evidence"].split()), "introduced") if edges else None


def node_relations(graph: nx.MultiDiGraph, node: str, limit: int = RELATIONS_PER_CARD) -> list[Relation]:
    """The node's relationships as of the graph's chapter, strongest first: one per other entity, with the chapter
    where the text first joined them. A pair only "mentioned with" each other is no relationship."""
    by_other: dict[str, list[tuple[str, str, dict[str, Any]]]] = defaultdict(list)
    for u, v, e in (*graph.out_edges(node, data=True), *graph.in_edges(node, data=True)):
        other = v if u == node else u
        if other != node and e["relation"] != CO_MENTIONED:
            by_other[other].append((u, v, e))
    out = []
    for other, pairs in by_other.items():
        pairs.sort(key=lambda uve: (uve[2]["chapter"], uve[2].get("chunk_index", 0)))
        edges = [e for _, _, e in pairs]
        verbs = [uve for uve in pairs if not is_interaction(uve[2]["relation"])]
        # what the text says happened before what it says did not ("couldn't have slept all the way to Jupiter")
        told = [uve for uve in verbs if not _label(uve[2]).startswith("not ")] or verbs or pairs
        counts: dict[str, int] = defaultdict(int)
        for _, _, e in told:
            counts[_label(e)] += 1
        label = max(counts, key=lambda k: (counts[k], -_first(told, k)))
        weight = len(verbs) + 0.5 * (len(edges) - len(verbs))
        u, v, first = told[_first(told, label)]
        o = graph.nodes[other]
        out.append(Relation(o["label"], other, o["type"], label, edges[0]["chapter"], edges[-1]["chapter"],
                            " ".join(first["evidence"].split()), weight, verbalize(graph, u, v, first)))
    out.sort(key=lambda r: (not is_character(r.other_type), -r.weight, r.chapter, r.other))
    return out[:limit]


def _closing_quotation(sentences: Sequence[str], i: int, more: int = 2) -> str:
    """Sentence `i`, and up to `more` of the ones after it while it leaves a quotation open ('She said, "I'm
    Ann.' goes on to 'Ann Clotilde.'): a card shows what the speaker said, not half of it."""
    text = " ".join(sentences[i].split())
    for nxt in sentences[i + 1:i + 1 + more]:
        if not open_after(text, False):
            break
        text += " " + " ".join(nxt.split())
    return text


def _label(edge: dict[str, Any]) -> str:
    return str(edge.get("label") or edge["relation"])


def _first(pairs: list[tuple[str, str, dict[str, Any]]], label: str) -> int:
    """The index of the first edge with `label` (pairs are in story order)."""
    return next(i for i, (_, _, e) in enumerate(pairs) if _label(e) == label)


def node_facts(graph: nx.MultiDiGraph, node: str, limit: int = FACTS_PER_CARD) -> list[Cited]:
    """The node's latest facts (verb triples it is an end of), newest first, one per sentence and per wording."""
    edges = [(u, v, e) for u, v, e in (*graph.out_edges(node, data=True), *graph.in_edges(node, data=True))
             if not is_interaction(e["relation"]) and e["relation"] != CO_MENTIONED]
    edges.sort(key=lambda uve: (uve[2]["chapter"], uve[2].get("chunk_index", 0)), reverse=True)
    out: list[Cited] = []
    seen: set[str] = set()
    for u, v, e in edges:
        sentence = " ".join(e["evidence"].split())
        text = verbalize(graph, u, v, e)
        if sentence in seen or text in seen:      # "Jonathan shook his head" told twice is shown once
            continue
        seen.update((sentence, text))
        out.append(Cited(e["chapter"], sentence, text))
        if len(out) == limit:
            break
    return out


def entities_as_of(graph: nx.MultiDiGraph) -> Entities:
    """The state layer's name -> entity table, built from the graph as of the position: a node's key, its label as
    of then, and only the names known by then."""
    ents = Entities()
    for node, d in graph.nodes(data=True):
        for name in d["aliases"]:
            ents.key[name] = node
        ents.label[node] = d["label"]
        ents.type[node] = d["type"]
    return ents


def node_states(data: GraphData, graph: nx.MultiDiGraph, position: int,
                nodes: Iterable[str] | None = None) -> dict[str, list[Cited]]:
    """Node -> its established states as of `position` (core.continuity.summary.established over the stored states
    of chapters up to the position), deaths first."""
    if not data.states:
        return {}
    wanted = None if nodes is None else {a for n in nodes for a in graph.nodes[n]["aliases"]}
    lines = established(data.states, entities_as_of(graph), position, names=wanted)
    out: dict[str, list[Cited]] = {}
    for key, group in lines.items():
        if key in graph:
            ordered = sorted(group, key=lambda line: (line.kind != "dead", line.chapter))
            out[key] = [Cited(line.chapter, " ".join(line.sentence.split()), line.text) for line in ordered]
    return out


def card(data: GraphData, graph: nx.MultiDiGraph, node: str, page: int, position: int, sentences_of: SentencesOf,
         states: dict[str, list[Cited]] | None = None, on_page: int = 0) -> Card:
    d = graph.nodes[node]
    mentions = {c: n for c, n in d["mentions_by_chapter"].items() if n > 0 and c <= position}
    states = node_states(data, graph, position, [node]) if states is None else states
    return Card(node, d["label"], d["type"], [a for a in d["aliases"] if a != d["label"]],
                introduction(graph, node, sentences_of), node_relations(graph, node), states.get(node, []),
                node_facts(graph, node), min(mentions, default=d["first_chapter"]),
                max(mentions, default=d["first_chapter"]), mentions, on_page, position)


def xray(data: GraphData, graph: nx.MultiDiGraph, page: int, position: int, sentences_of: SentencesOf,
         limit: int = CARDS_PER_PAGE, only: Sequence[str] | None = None) -> list[Card]:
    """The cards of the entities named in chapter `page` (characters first, then by mentions there), as of
    `position`; `graph` must be graph_as_of(data, position). `only`: these nodes, whether on the page or not."""
    as_of = graph.graph.get("as_of")
    if position < 1 or (as_of != position and not (as_of is None and position >= data.chapters)):
        raise ValueError("The X-Ray's graph must be taken as of the reader's position.")
    counts = page_nodes(data, graph, page)
    if only is not None:
        chosen = [n for n in only if n in graph]
    else:
        chosen = sorted(counts, key=lambda n: (_type_rank(graph.nodes[n]["type"]), -counts[n],
                                               graph.nodes[n]["label"]))[:limit]
    states = node_states(data, graph, position, chosen)
    return [card(data, graph, n, page, position, sentences_of, states, counts.get(n, 0)) for n in chosen]
