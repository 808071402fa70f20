"""What the Graph page (and the CLI's export) shows: the graph as of a chapter, filtered, drawn, detailed, exported.

    data = load_graph_data(store, work_id)                    # cache this per graph_version(store, work_id)
    view = build_view(data, ViewParams(as_of=10))             # the character network as of chapter 10
    html = render_view(view)                                  # vis-network, escaped (the page uses view_payload)
    details = node_details(view, view.focus)
    payload, filename, mime = export_view(view, "gexf", title="Pride and Prejudice")

A view draws relationships (core.kg.graph.relationships: one edge per related pair, weighted), never raw triples,
and lists the entities that have no relationship in it beside the drawing (`view.isolated`) instead of scattering
them as dots. Three modes:

- "characters" (the default): the character network, the `top_characters` characters (core.kg.characters: the
  definition Retention counts by too) with the strongest relationships (summed weight), each drawn only if it is
  related to another drawn character;
- "all": every entity, with the filters in this order: node type, minimum mentions, KGScore pruning (minimum degree,
  repeated; a view, never a deletion), search (the best match and its neighbourhood), top-N by degree;
- "ego": one entity (`center`, else the best `search` match) and every entity within `radius` relationships.

Everything is as of `as_of`: nothing from a later chapter.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx

from core.continuity.model import Entities
from core.continuity.summary import established
from core.kg.characters import is_character
from core.kg.export import FORMATS, export_graph
from core.kg.graph import (GraphData, RelationshipTimeline, degree, find_nodes, graph_as_of, neighbourhood,
                           parse_node_id, prune_low_degree, relationship_timeline, relationships, strength,
                           top_by_degree, verbalize)
from core.kg.types import CO_MENTIONED
from core.services import bible_service
from core.store import Store

MODES: tuple[str, ...] = ("characters", "all", "ego")


@dataclass(frozen=True)
class ViewParams:
    as_of: int | None = None             # last chapter shown; None = all
    mode: str = "characters"             # one of MODES
    types: tuple[str, ...] = ()          # node types kept ("all" and "ego"); empty = all
    min_mentions: int = 1
    prune: bool = False                  # KGScore's low-degree pruning
    min_degree: int = 2
    search: str = ""                     # centre on the best-matching entity
    radius: int = 1
    top_n: int | None = 150              # most connected entities drawn ("all", "ego")
    top_characters: int | None = 30      # characters drawn in the character network: few enough to read every name
    center: str | None = None            # the ego view's node (else the search match)
    highlight: tuple[int, ...] = ()      # entity ids: draw only these and their relationships (Ask's graph mode)


@dataclass
class GraphView:
    graph: nx.MultiDiGraph               # the drawn entities and the triples among them
    full: nx.MultiDiGraph                # everything as of the chapter (details and exports use it)
    params: ViewParams
    focus: str | None = None
    matches: list[str] = field(default_factory=list)
    relations: nx.Graph = field(default_factory=nx.Graph)   # what is drawn: one edge per related pair
    isolated: list[str] = field(default_factory=list)       # in the view but related to nothing in it: listed

    @property
    def summary(self) -> str:
        shown = self.graph.number_of_nodes()
        chapter = "all chapters" if self.params.as_of is None else f"chapters 1-{self.params.as_of}"
        text = (f"{shown} of {self.full.number_of_nodes()} entities and {self.relations.number_of_edges()} relations "
                f"shown ({chapter}; {self.full.number_of_edges()} edges and descriptions in all)")
        return text + (f"; {len(self.isolated)} without a relation listed beside" if self.isolated else "")

    @cached_property
    def character_relations(self) -> nx.Graph:
        """Relationships among every character as of the chapter, whatever is drawn (the timeline's choices)."""
        return _character_relations(self.full)


@dataclass
class NodeDetails:
    node: str
    label: str
    type: str
    aliases: list[str]
    first_chapter: int
    mentions: int
    mentions_by_chapter: dict[int, int]
    degree: int
    facts: list[dict[str, Any]]          # chapter, fact, sentence, chunk_index, chunk_id (reading order)
    states: list[dict[str, Any]] = field(default_factory=list)   # established as of the chapter (issue 32)


def load_graph_data(store: Store, work_id: int) -> GraphData:
    """Entities, edge triples and mention counts of a work (one read; views are computed from it in memory)."""
    counts: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for c in store.kg_name_counts(work_id):
        counts[c.name][c.chapter_index] += c.count
    extracted = store.kg_extracted_chapters(work_id)
    return GraphData(store.kg_entities(work_id), store.kg_triples(work_id, kind="edges"),
                     {k: dict(v) for k, v in counts.items()}, max(extracted, default=0), store.states_list(work_id))


def graph_version(store: Store, work_id: int) -> int:
    """Changes whenever the work's graph changes: a cache key for load_graph_data."""
    state = store.kg_state(work_id)
    return state.version if state else 0


def _by_mentions(graph: nx.MultiDiGraph, nodes: Any) -> list[str]:
    return sorted(nodes, key=lambda n: (-graph.nodes[n]["mentions"], graph.nodes[n]["label"], n))


def _prune_relations(rel: nx.Graph, min_degree: int) -> nx.Graph:
    """KGScore's pruning on relationships: drop nodes related to fewer than `min_degree` others, repeatedly."""
    view = nx.Graph(rel)
    while weak := [n for n in view if view.degree(n) < min_degree]:
        view.remove_nodes_from(weak)
    return view


def _characters(full: nx.MultiDiGraph, params: ViewParams,
                everyone: nx.Graph) -> tuple[nx.Graph, str | None, list[str], list[str]]:
    """(drawn relationships, focus, matches, isolated) of the character network; `everyone`: the relationships of
    all characters."""
    kept = [n for n in everyone if full.nodes[n]["mentions"] >= params.min_mentions]
    rel: nx.Graph = everyone.subgraph(kept)
    if params.prune:
        rel = _prune_relations(rel, params.min_degree)
    matches = find_nodes(full.subgraph(rel.nodes), params.search) if params.search else []
    focus = matches[0] if matches else None
    if focus:
        near = nx.single_source_shortest_path_length(rel, focus, cutoff=params.radius)
        rel = rel.subgraph(near).copy()
    isolated = _by_mentions(full, [n for n in rel if rel.degree(n) == 0 and n != focus])
    ranked = sorted((n for n in rel if rel.degree(n) > 0), key=lambda n: (-strength(rel, n),
                                                                          -full.nodes[n]["mentions"], n))
    limit = len(ranked) if params.top_characters is None else max(params.top_characters, 0)
    chosen = set(ranked[:limit]) | ({focus} if focus else set())
    drawn = rel.subgraph(chosen)
    # a character whose partners all fell outside the top N would be a lone dot: drop it, and fill its place with
    # the strongest character related to those drawn (fewer, connected nodes rather than scattered ones)
    chosen = {n for n in chosen if drawn.degree(n) > 0 or n == focus} or set(ranked[:1])
    rank = {n: i for i, n in enumerate(ranked)}
    while len(chosen) < limit:
        frontier = {m for n in chosen for m in rel[n] if m not in chosen}
        if not frontier:
            break
        chosen.add(min(frontier, key=rank.__getitem__))
    keep = chosen
    return rel.subgraph(keep).copy(), focus, matches, isolated


def _entities(full: nx.MultiDiGraph, params: ViewParams) -> tuple[nx.Graph, str | None, list[str], list[str]]:
    """(drawn relationships, focus, matches, isolated) of the "all" and "ego" views."""
    graph = full
    center = params.center if params.center in full else None
    if params.types:
        graph = graph.subgraph([n for n, d in graph.nodes(data=True) if d["type"] in params.types or n == center])
    if params.min_mentions > 1:
        graph = graph.subgraph([n for n, d in graph.nodes(data=True)
                                if d["mentions"] >= params.min_mentions or n == center])
    if params.prune and params.mode == "all":
        graph = prune_low_degree(nx.MultiDiGraph(graph), params.min_degree)
    matches = [center] if center else (find_nodes(graph, params.search) if params.search else [])
    focus = matches[0] if matches else None
    if focus:
        graph = neighbourhood(graph, focus, params.radius)
    elif params.mode == "ego":
        graph = graph.subgraph([])
    linked = {n for u, v in graph.edges() if u != v for n in (u, v)}
    isolated = _by_mentions(full, [n for n in graph if n not in linked and n != focus])
    graph = graph.subgraph([n for n in graph if n in linked or n == focus])
    if params.top_n is not None and graph.number_of_nodes() > params.top_n:
        graph = top_by_degree(nx.MultiDiGraph(graph), params.top_n, keep=[focus] if focus else [])
    return relationships(nx.MultiDiGraph(graph)), focus, matches, isolated


def _character_relations(full: nx.MultiDiGraph) -> nx.Graph:
    """Relationships between characters. A pair only ever "mentioned with" each other (named a sentence or two
    apart, never in one sentence, a verb or a dialogue) is too weak to draw in the reader's network; the "all
    entities" and ego views and the exports keep it."""
    rel = relationships(full, nodes=[n for n, d in full.nodes(data=True) if is_character(d["type"])])
    rel.remove_edges_from([(u, v) for u, v, d in rel.edges(data=True)
                           if all(label == CO_MENTIONED for label, _ in d["labels"])])
    return rel


def attach_states(full: nx.MultiDiGraph, data: GraphData, as_of: int | None) -> None:
    """Each node's established states as of the chapter (issue 32): the node attribute "states", a list of
    {kind, state, chapter, sentence, start, end}, shown in the details and kept by the exports."""
    lines = established(data.states, Entities.of(data.entities), as_of) if data.states else {}
    for _, d in full.nodes(data=True):
        d["states"] = [line.as_dict() for line in lines.get(f"e{d['entity_id']}", [])]


def build_view(data: GraphData, params: ViewParams) -> GraphView:
    full = graph_as_of(data, params.as_of)
    attach_states(full, data, params.as_of)
    everyone = _character_relations(full) if params.mode == "characters" and not params.highlight else None
    if params.highlight:
        wanted = set(params.highlight)
        nodes = [n for n in full if parse_node_id(n) in wanted]
        rel = relationships(full, nodes=nodes)
        isolated = _by_mentions(full, [n for n in rel if rel.degree(n) == 0])
        rel = rel.subgraph([n for n in rel if rel.degree(n) > 0]).copy()
        return GraphView(nx.MultiDiGraph(full.subgraph(rel.nodes)), full, params, None, [], rel, isolated)
    if everyone is not None:
        rel, focus, matches, isolated = _characters(full, params, everyone)
    else:
        rel, focus, matches, isolated = _entities(full, params)
    view = GraphView(nx.MultiDiGraph(full.subgraph(rel.nodes)), full, params, focus, matches, rel, isolated)
    if everyone is not None:
        view.__dict__["character_relations"] = everyone  # computed once: the timeline's choices reuse it
    return view


def render_view(view: GraphView, height: int = 650, edge_labels: bool = False) -> str:
    """The view as a self-contained HTML page (bench, tests, any iframe)."""
    from core.viz import render_graph_html
    return render_graph_html(view.relations, height=height, focus=view.focus, edge_labels=edge_labels)


def view_payload(view: GraphView, edge_labels: bool = False, selected: str | None = None) -> dict[str, Any]:
    """What the page's graph component draws: vis-network nodes, edges and options, and the legend (plain data;
    the component sets every text with textContent or vis's innerText tooltips)."""
    from core.viz import graph_payload
    return graph_payload(view.relations, focus=view.focus, selected=selected, edge_labels=edge_labels)


def node_details(view: GraphView, node: str) -> NodeDetails:
    """Everything known about one node as of the view's chapter; its facts come with chapter and source sentence."""
    g = view.full
    d = g.nodes[node]
    facts = []
    incoming = [(u, v, e) for u, v, e in g.in_edges(node, data=True) if u != v]
    for u, v, e in [*g.out_edges(node, data=True), *incoming]:
        facts.append({"chapter": e["chapter"], "fact": verbalize(g, u, v, e), "sentence": e["evidence"],
                      "chunk_index": e["chunk_index"], "chunk_id": e["chunk_id"]})
    facts.sort(key=lambda f: (f["chapter"], f["chunk_index"], f["fact"]))
    return NodeDetails(node, d["label"], d["type"], list(d["aliases"]), d["first_chapter"], d["mentions"],
                       dict(d["mentions_by_chapter"]), degree(g, node), facts, list(d.get("states", [])))


def node_choices(view: GraphView) -> list[tuple[str, str]]:
    """(node id, label) of the drawn nodes, strongest relationships first, then the listed unrelated ones by
    mentions: the page's node picker."""
    rel = view.relations
    nodes = sorted(rel.nodes, key=lambda n: (-strength(rel, n), -rel.nodes[n]["mentions"], n))
    return [(n, view.full.nodes[n]["label"]) for n in [*nodes, *view.isolated]]


def isolated_rows(view: GraphView) -> list[dict[str, Any]]:
    """The entities listed beside the drawing: label, mentions, type, first chapter."""
    return [{"entity": view.full.nodes[n]["label"], "mentions": view.full.nodes[n]["mentions"],
             "type": view.full.nodes[n]["type"], "first": view.full.nodes[n]["first_chapter"]}
            for n in view.isolated]


def timeline_pairs(view: GraphView) -> list[tuple[str, str]]:
    """(node id, label) of the characters with a relationship as of the view's chapter, strongest first: the
    choices of the relationship timeline."""
    rel = view.character_relations
    nodes = sorted((n for n in rel if rel.degree(n) > 0), key=lambda n: (-strength(rel, n), n))
    return [(n, rel.nodes[n]["label"]) for n in nodes]


def strongest_partner(view: GraphView, node: str) -> str | None:
    """The character most strongly related to `node` as of the view's chapter."""
    rel = view.character_relations
    if node not in rel or not rel.degree(node):
        return None
    return max(rel[node], key=lambda m: (rel[node][m]["weight"], m))


def entity_choices(data: GraphData, as_of: int | None) -> list[tuple[str, str]]:
    """(node id, label) of every entity as of a chapter, characters first, then by mentions: the ego view's
    centre picker."""
    graph = graph_as_of(data, as_of)
    nodes = sorted(graph.nodes(data=True), key=lambda nd: (not is_character(nd[1]["type"]), -nd[1]["mentions"], nd[0]))
    return [(n, d["label"]) for n, d in nodes]


def timeline(view: GraphView, a: str, b: str) -> RelationshipTimeline:
    """The relationship of `a` and `b` chapter by chapter, as of the view's chapter."""
    return relationship_timeline(view.full, a, b, view.params.as_of)


def timeline_summary(tl: RelationshipTimeline, label_a: str, label_b: str) -> str:
    """One line: where it starts, how much, where it pauses ("apart in chapters 3-4; apart since chapter 7")."""
    if tl.first_chapter is None:
        return f"{label_a} and {label_b} are not joined in chapters 1-{tl.last}."
    met = sum(1 for c in tl.chapters if c.triples)
    text = (f"{label_a} and {label_b}: together from chapter {tl.first_chapter}, joined {tl.total} "
            f"time{'s' if tl.total != 1 else ''} in {met} chapter{'s' if met != 1 else ''}")
    gaps = [f"since chapter {a}" if b == tl.last else (f"in chapter {a}" if a == b else f"in chapters {a}-{b}")
            for a, b in tl.pauses]
    return text + ("; apart " + ", ".join(gaps) if gaps else "; never apart since") + "."


def timeline_rows(tl: RelationshipTimeline) -> list[dict[str, Any]]:
    """Per chapter with contact: what the text says between the two (labels with counts) and each cited sentence."""
    rows: list[dict[str, Any]] = []
    for c in tl.chapters:
        says = ", ".join(f"{label} ({n})" if n > 1 else label for label, n in c.labels)
        rows.extend({"chapter": c.chapter, "what the text says": says, "label": e["label"],
                     "cited sentence": e["sentence"]} for e in c.evidence)
    return rows


def export_filename(view: GraphView, fmt: str, title: str = "graph") -> tuple[str, str]:
    """(file name, MIME type) of an export, without building it."""
    extension, mime = FORMATS[fmt]
    suffix = "" if view.params.as_of is None else f"_ch{view.params.as_of}"
    safe = "".join(ch if ch.isalnum() else "_" for ch in title).strip("_")[:60] or "graph"
    return f"{safe}{suffix}.{extension}", mime


def export_view(view: GraphView, fmt: str, title: str = "graph",
                lore: dict[str, dict[str, list[str]]] | None = None) -> tuple[bytes, str, str]:
    """(payload, file name, MIME type) for the whole graph as of the view's chapter (filters do not apply). `lore`:
    the story bible's notes and pins by name (bible_service.lore), which the lorebook adds to their entities."""
    name, mime = export_filename(view, fmt, title)
    return export_graph(view.full, fmt, {"title": title, "as_of": view.params.as_of, "lore": lore or {}}), name, mime


def export_work(store: Store, work_id: int, fmt: str, as_of: int | None = None) -> tuple[bytes, str, str]:
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format '{fmt}'; choose one of {', '.join(FORMATS)}.")
    work = store.get_work(work_id)
    view = build_view(load_graph_data(store, work_id), ViewParams(as_of=as_of, top_n=None))
    return export_view(view, fmt, work.title, bible_service.lore(store, work_id) if fmt == "lorebook" else None)
