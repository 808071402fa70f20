"""The graph as of a chapter: entities as nodes, triples as edges, nothing from later chapters.

`graph_as_of(data, n)` keeps only mentions and triples of chapters <= n, and undoes merges whose evidence came after
chapter n (an entity whose names were linked later shows as separate nodes until then), so the view of chapter n is
what a reader of chapter n could know. Node ids are strings: "e12" for entity 12, "e12.1" for a part of it that
chapter n cannot yet connect to the rest.

Edges follow KGScore: a triple between two entities is a directed edge subject -> object labelled with the relation;
a triple with one entity end is a self-loop on that entity (a description: "Mr. Bennet | made no answer").
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx

from core.kg.types import KgEntity, StoredTriple


@dataclass
class GraphData:
    """What views need, loaded once per graph version."""

    entities: list[KgEntity]
    edges: list[StoredTriple]                       # triples with at least one named end
    counts: dict[str, dict[int, int]]               # name -> chapter -> mentions
    chapters: int                                   # highest chapter with extraction results
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
    triple id): predicate, chapter, evidence (the source sentence), chunk_id, subject, relation, object."""
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
            predicate, role = t.relation, "both"
        elif source:
            target, predicate, role = source, f"{t.relation} {t.object}".strip(), "subject"
        elif target:
            source, predicate, role = target, f"{t.subject} {t.relation}".strip(), "object"
        else:
            continue  # a name that resolution has not seen yet (graph mid-rebuild)
        graph.add_edge(source, target, key=t.id, predicate=predicate, chapter=t.chapter_index, evidence=t.sentence,
                       chunk_id=t.chunk_id, chunk_index=t.chunk_index, subject=t.subject, relation=t.relation,
                       object=t.object, role=role)
    return graph


def verbalize(graph: nx.MultiDiGraph, u: str, v: str, data: dict) -> str:
    """An edge as a plain sentence with the entities' current labels: "Elizabeth walked to Netherfield",
    "a servant brought a note for Jane" (template verbalization; Andrus et al. also use an LLM for this)."""
    label_u, label_v = graph.nodes[u]["label"], graph.nodes[v]["label"]
    if data.get("role") == "subject":
        return f"{label_u} {data['relation']} {data['object']}".strip()
    if data.get("role") == "object":
        return f"{data['subject']} {data['relation']} {label_v}".strip()
    return f"{label_u} {data['predicate']} {label_v}"


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
