"""The graph as of a chapter: entities as nodes, triples as edges, nothing from later chapters.

`graph_as_of(data, n)` keeps only mentions and triples of chapters <= n, and undoes merges whose evidence came after
chapter n (an entity whose names were linked later shows as separate nodes until then), so the view of chapter n is
what a reader of chapter n could know. Node ids are strings: "e12" for entity 12, "e12.1" for a part of it that
chapter n cannot yet connect to the rest.

Edges follow KGScore: a triple between two entities is a directed edge subject -> object labelled with the relation;
a triple with one entity end is a self-loop on that entity (a description: "Mr. Bennet | made no answer").

What a reader looks at is coarser: `relationships(graph)` folds the triples joining two entities (either direction)
into one relationship with its labels, weight, chapters and cited sentences, and `relationship_timeline` follows one
pair chapter by chapter. Exports keep every triple (core.kg.export works on the MultiDiGraph).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from core.kg.types import INTERACTION_RELATIONS, KgEntity, StoredTriple

# An interaction triple ("appears with", "speaks to") says two characters share a scene, not what passes between
# them: it counts half as much as a verb triple in a relationship's weight, so a pair that only co-occurs ranks below
# one the text links with verbs as often.
INTERACTION_WEIGHT = 0.5
EVIDENCE_PER_PAIR = 4          # cited sentences kept per relationship (verb triples first, then in reading order)


@dataclass
class GraphData:
    """What views need, loaded once per graph version."""

    entities: list[KgEntity]
    edges: list[StoredTriple]                       # triples with at least one named end
    counts: dict[str, dict[int, int]]               # name -> chapter -> mentions
    chapters: int                                   # highest chapter with extraction results
    states: list[Any] = field(default_factory=list)  # core.continuity.model.State: the story's states (issue 32)
    name_to_entity: dict[str, KgEntity] = field(init=False)

    def __post_init__(self) -> None:
        self.name_to_entity = {n.name: e for e in self.entities for n in e.names}


def entity_node_id(entity_id: int, part: int = 0) -> str:
    return f"e{entity_id}" if part == 0 else f"e{entity_id}.{part}"


def parse_node_id(node_id: str) -> int:
    """The entity id behind a node id ("e12.1" -> 12)."""
    return int(node_id.lstrip("e").split(".")[0])


def _parts_as_of(entity: KgEntity, chapter: int | None) -> list[list[str]]:
    """The entity's names known by `chapter`, grouped by merges decided by then; the first group holds the root."""
    names = [n for n in entity.names if chapter is None or n.first_chapter <= chapter]
    if chapter is None or all(n.joined_chapter is None or n.joined_chapter <= chapter for n in names):
        return [[n.name for n in names]] if names else []
    parent = {n.name: n.name for n in names}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for n in names:
        if n.joined_via in parent and n.joined_chapter is not None and n.joined_chapter <= chapter:
            parent[find(n.name)] = find(n.joined_via)
    groups: dict[str, list[str]] = defaultdict(list)
    for n in names:  # entity.names is rooted first, so the root's group comes first
        groups[find(n.name)].append(n.name)
    return list(groups.values())


def _label(names: list[str], counts: dict[str, dict[int, int]], chapter: int | None) -> str:
    def total(name: str) -> int:
        return sum(c for ch, c in counts.get(name, {}).items() if chapter is None or ch <= chapter)
    return min(names, key=lambda n: (-total(n), -len(n), n))


def graph_as_of(data: GraphData, chapter: int | None = None) -> nx.MultiDiGraph:
    """Nodes: id, label, type, aliases, first_chapter, mentions, mentions_by_chapter, entity_id. Edges (keyed by
    triple id): predicate, chapter, evidence (the source sentence), chunk_id, subject, relation, object, role, and
    label (the triple's readable lemma form, "sell to", where the extractor gave one; else the relation)."""
    graph = nx.MultiDiGraph(as_of=chapter)
    node_of: dict[str, str] = {}
    for entity in data.entities:
        for part, names in enumerate(_parts_as_of(entity, chapter)):
            node_id = entity_node_id(entity.id, part)
            by_chapter: dict[int, int] = defaultdict(int)
            for name in names:
                node_of[name] = node_id
                for ch, c in data.counts.get(name, {}).items():
                    if chapter is None or ch <= chapter:
                        by_chapter[ch] += c
            label = entity.label if entity.user_label and part == 0 else _label(names, data.counts, chapter)
            firsts = [n.first_chapter for n in entity.names if n.name in names]
            graph.add_node(node_id, label=label, type=entity.type, aliases=sorted(names, key=lambda n: (n != label, n)),
                           first_chapter=min(firsts), mentions=sum(by_chapter.values()),
                           mentions_by_chapter=dict(sorted(by_chapter.items())), entity_id=entity.id)
    for t in data.edges:
        if chapter is not None and t.chapter_index > chapter:
            continue
        source = node_of.get(t.subject_name or "")
        target = node_of.get(t.object_name or "")
        if source and target:
            if source == target and t.relation in INTERACTION_RELATIONS:
                continue   # two names of one entity in a sentence ("Crane" and "Ichabod"): no one to appear with
            predicate, role = t.relation, "both"
        elif source:
            target, predicate, role = source, f"{t.relation} {t.object}".strip(), "subject"
        elif target:
            source, predicate, role = target, f"{t.subject} {t.relation}".strip(), "object"
        else:
            continue  # a name that resolution has not seen yet (graph mid-rebuild)
        graph.add_edge(source, target, key=t.id, predicate=predicate, chapter=t.chapter_index, evidence=t.sentence,
                       chunk_id=t.chunk_id, chunk_index=t.chunk_index, subject=t.subject, relation=t.relation,
                       object=t.object, role=role, label=getattr(t, "label", None) or t.relation)
    return graph


def verbalize(graph: nx.MultiDiGraph, u: str, v: str, data: dict) -> str:
    """An edge as a plain sentence with the entities' current labels: "Elizabeth walked to Netherfield",
    "a servant brought a note for Jane" (template verbalization; Andrus et al. also use an LLM for this)."""
    label_u, label_v = graph.nodes[u]["label"], graph.nodes[v]["label"]
    if data.get("role") == "subject":
        text = f"{label_u} {data['relation']} {data['object']}".strip()
    elif data.get("role") == "object":
        text = f"{data['subject']} {data['relation']} {label_v}".strip()
    else:
        text = f"{label_u} {data['predicate']} {label_v}"
    return _CONTRACTION.sub(r"\1", text)   # "Jonathan 'll have a load" -> "Jonathan'll have a load"


_CONTRACTION = re.compile(r"\s+((?:['’](?:ll|d|ve|re|s|m)|n['’]t)\b)")


def degree(graph: nx.MultiDiGraph, node: str) -> int:
    """Edges entering or leaving `node`, self-loops excluded (KGScore's count)."""
    return graph.degree(node) - 2 * graph.number_of_edges(node, node)


def prune_low_degree(graph: nx.MultiDiGraph, min_degree: int = 2) -> nx.MultiDiGraph:
    """KGScore's node removal as a view: drop nodes with fewer than `min_degree` edges (self-loops excluded),
    repeating until none is dropped. Returns a new graph; the input is untouched."""
    view = graph.copy()
    while True:
        weak = [n for n in view.nodes if degree(view, n) < min_degree]
        if not weak:
            return view
        view.remove_nodes_from(weak)


def neighbourhood(graph: nx.MultiDiGraph, center: str, radius: int = 1) -> nx.MultiDiGraph:
    """The center and every node within `radius` edges of it (either direction)."""
    if center not in graph:
        return graph.subgraph([]).copy()
    near = nx.single_source_shortest_path_length(graph.to_undirected(as_view=True), center, cutoff=radius)
    return graph.subgraph(near).copy()


def top_by_degree(graph: nx.MultiDiGraph, n: int, keep: Iterable[str] = ()) -> nx.MultiDiGraph:
    """The `n` nodes with most edges (ties: most mentions, then label), plus `keep`."""
    ranked = sorted(graph.nodes, key=lambda x: (-degree(graph, x), -graph.nodes[x]["mentions"],
                                                graph.nodes[x]["label"]))
    chosen = set(ranked[:max(n, 0)]) | {k for k in keep if k in graph}
    return graph.subgraph(chosen).copy()


def find_nodes(graph: nx.MultiDiGraph, query: str) -> list[str]:
    """Nodes whose label or an alias contains `query` (case-insensitive); exact matches first, then by mentions."""
    q = query.strip().lower()
    if not q:
        return []
    hits = [n for n, d in graph.nodes(data=True) if any(q in a.lower() for a in [d["label"], *d["aliases"]])]
    return sorted(hits, key=lambda n: (all(a.lower() != q for a in [graph.nodes[n]["label"],
                                                                      *graph.nodes[n]["aliases"]]),
                                       -graph.nodes[n]["mentions"], n))


# ---- relationships: what a reader looks at ------------------------------------------------------------------------

def is_interaction(relation: str) -> bool:
    """An interaction triple ("appears with", "speaks to"): two characters share a scene; no verb says more."""
    return relation in INTERACTION_RELATIONS


def _ordered_labels(counts: Counter[str], interaction: dict[str, bool]) -> list[tuple[str, int]]:
    """Verb labels before interaction labels; most frequent first within each; ties alphabetical."""
    return sorted(counts.items(), key=lambda lc: (interaction[lc[0]], -lc[1], lc[0]))


def _evidence(items: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """Up to `limit` distinct cited sentences, chosen verb triples first, returned in reading order."""
    chosen: list[dict[str, Any]] = []
    seen: set[str] = set()
    for d in sorted(items, key=lambda d: is_interaction(d["relation"])):  # stable: reading order within each kind
        if d["evidence"] in seen:
            continue
        seen.add(d["evidence"])
        chosen.append(d)
        if len(chosen) == limit:
            break
    chosen.sort(key=lambda d: (d["chapter"], d.get("chunk_index", 0)))
    return [{"chapter": d["chapter"], "sentence": d["evidence"], "label": d.get("label") or d["relation"],
             "chunk_id": d.get("chunk_id")} for d in chosen]


def relationships(graph: nx.MultiDiGraph, evidence: int = EVIDENCE_PER_PAIR,
                  nodes: Iterable[str] | None = None) -> nx.Graph:
    """One undirected edge per pair of nodes joined by at least one triple, either way (descriptions, the
    self-loops, are left out). Nodes and their attributes are the graph's (only `nodes`, when given: faster than a
    subgraph view). Edge attributes:

    labels: [(label, triples)], verb labels first, most frequent first, then the interaction labels;
    label: the first of them; interaction_only: no verb triple joins the pair;
    triples: how many triples; weight: verb triples + INTERACTION_WEIGHT x interaction triples;
    chapters: the sorted chapters with a triple; first_chapter; by_chapter: {chapter: triples};
    evidence: up to `evidence` {chapter, sentence, label, chunk_id}, verb triples first, in reading order;
    triple_ids: every triple's id, in reading order.
    """
    rel = nx.Graph(as_of=graph.graph.get("as_of"))
    kept = set(graph.nodes) if nodes is None else {n for n in nodes if n in graph}
    rel.add_nodes_from((n, graph.nodes[n]) for n in graph if n in kept)
    grouped: dict[tuple[str, str], list[tuple[Any, dict[str, Any]]]] = defaultdict(list)
    for u, v, key, d in graph.edges(keys=True, data=True):
        if u != v and u in kept and v in kept:
            grouped[(u, v) if u <= v else (v, u)].append((key, d))
    for (u, v), items in grouped.items():
        items.sort(key=lambda kd: (kd[1]["chapter"], kd[1].get("chunk_index", 0), kd[0]))
        counts: Counter[str] = Counter()
        interaction: dict[str, bool] = {}
        by_chapter: Counter[int] = Counter()
        weight = 0.0
        for _, d in items:
            label = d.get("label") or d["relation"]
            counts[label] += 1
            interaction[label] = interaction.get(label, True) and is_interaction(d["relation"])
            by_chapter[d["chapter"]] += 1
            weight += INTERACTION_WEIGHT if is_interaction(d["relation"]) else 1.0
        labels = _ordered_labels(counts, interaction)
        chapters = sorted(by_chapter)
        rel.add_edge(u, v, labels=labels, label=labels[0][0], interaction_only=all(interaction.values()),
                     triples=len(items), weight=weight, chapters=chapters, first_chapter=chapters[0],
                     by_chapter=dict(sorted(by_chapter.items())),
                     evidence=_evidence([d for _, d in items], evidence), triple_ids=[k for k, _ in items])
    return rel


def strength(rel: nx.Graph, node: str) -> float:
    """The summed weight of a node's relationships: how much the text joins it to others."""
    return float(rel.degree(node, weight="weight"))


@dataclass
class TimelineChapter:
    chapter: int
    triples: int                                    # triples joining the two in this chapter
    labels: list[tuple[str, int]]                   # what the text says between them, verb labels first
    evidence: list[dict[str, Any]]                  # chapter, sentence, label, chunk_id (reading order)


@dataclass
class RelationshipTimeline:
    """Two nodes chapter by chapter (1..last, zero chapters included), as of a chapter: never later."""

    a: str
    b: str
    last: int                                       # the last chapter considered (the as-of chapter)
    chapters: list[TimelineChapter]
    first_chapter: int | None                       # where they first meet; None: not yet
    pauses: list[tuple[int, int]]                   # (from, to) runs of chapters without contact after the first;
                                                    # one ending at `last` is a pause that still lasts

    @property
    def total(self) -> int:
        return sum(c.triples for c in self.chapters)

    @property
    def counts(self) -> dict[int, int]:
        return {c.chapter: c.triples for c in self.chapters}


def _last_chapter(graph: nx.MultiDiGraph) -> int:
    edge_chapters = (d["chapter"] for _, _, d in graph.edges(data=True))
    node_chapters = (max(d.get("mentions_by_chapter") or {0: 0}) for _, d in graph.nodes(data=True))
    return max([*edge_chapters, *node_chapters, 0])


def relationship_timeline(source: GraphData | nx.MultiDiGraph, a: str, b: str, as_of: int | None = None,
                          evidence_per_chapter: int = 5) -> RelationshipTimeline:
    """How often `a` and `b` (node ids) are joined by a triple in each chapter up to `as_of`, what the text says
    between them there (labels and cited sentences), where it starts and where it pauses. `source` is the data (the
    graph as of `as_of` is built from it) or a graph already as of a chapter."""
    graph = graph_as_of(source, as_of) if isinstance(source, GraphData) else source
    if as_of is None:
        as_of = graph.graph.get("as_of")
    last = as_of if as_of is not None else (source.chapters if isinstance(source, GraphData) else
                                            _last_chapter(graph))
    items: list[dict[str, Any]] = []
    if a != b and a in graph and b in graph:
        for u, v in ((a, b), (b, a)):
            items.extend(d for d in graph.get_edge_data(u, v, default={}).values() if d["chapter"] <= last)
    per: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for d in sorted(items, key=lambda d: (d["chapter"], d.get("chunk_index", 0))):
        per[d["chapter"]].append(d)
    chapters = []
    for ch in range(1, last + 1):
        found = per.get(ch, [])
        counts = Counter(d.get("label") or d["relation"] for d in found)
        interaction = {d.get("label") or d["relation"]: is_interaction(d["relation"]) for d in found}
        chapters.append(TimelineChapter(ch, len(found), _ordered_labels(counts, interaction),
                                        _evidence(found, evidence_per_chapter)))
    first = min(per, default=None)
    pauses: list[tuple[int, int]] = []
    if first is not None:
        start = None
        for c in chapters[first:]:  # the chapters after the first meeting
            if c.triples == 0 and start is None:
                start = c.chapter
            elif c.triples and start is not None:
                pauses.append((start, c.chapter - 1))
                start = None
        if start is not None:
            pauses.append((start, last))
    return RelationshipTimeline(a, b, last, chapters, first, pauses)
