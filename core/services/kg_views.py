"""What the Graph page (and the CLI's export) shows: the graph as of a chapter, filtered, drawn, detailed, exported.

    data = load_graph_data(store, work_id)                    # cache this per graph_version(store, work_id)
    view = build_view(data, ViewParams(as_of=10, top_n=150, search="Lizzy"))
    html = render_view(view)                                  # pyvis / vis-network, escaped
    details = node_details(view, view.focus)
    payload, filename, mime = export_view(view, "gexf", title="Pride and Prejudice")

Filters apply in this order: chapter (nothing later), node type, minimum mentions, KGScore pruning (minimum degree,
repeated; a view, never a deletion), search (the best match and its neighbourhood), top-N by degree.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from core.kg.export import FORMATS, export_graph
from core.kg.graph import (GraphData, degree, find_nodes, graph_as_of, neighbourhood, prune_low_degree,
                           top_by_degree, verbalize)


@dataclass(frozen=True)
class ViewParams:
    as_of: int | None = None             # last chapter shown; None = all
    types: tuple[str, ...] = ()          # node types kept; empty = all
    min_mentions: int = 1
    prune: bool = False                  # KGScore's low-degree pruning
    min_degree: int = 2
    search: str = ""                     # centre on the best-matching entity
    radius: int = 1
    top_n: int | None = 150


@dataclass
class GraphView:
    graph: nx.MultiDiGraph               # what is drawn
    full: nx.MultiDiGraph                # everything as of the chapter (details and exports use it)
    params: ViewParams
    focus: str | None = None
    matches: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        shown = self.graph.number_of_nodes()
        links = sum(1 for u, v in self.graph.edges() if u != v)
        chapter = "all chapters" if self.params.as_of is None else f"chapters 1-{self.params.as_of}"
        return (f"{shown} of {self.full.number_of_nodes()} entities and {links} relations shown ({chapter}; "
                f"{self.full.number_of_edges()} edges and descriptions in all)")


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


def load_graph_data(store: Any, work_id: int) -> GraphData:
    """Entities, edge triples and mention counts of a work (one read; views are computed from it in memory)."""
    counts: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for c in store.kg_name_counts(work_id):
        counts[c.name][c.chapter_index] += c.count
    extracted = store.kg_extracted_chapters(work_id)
    return GraphData(store.kg_entities(work_id), store.kg_triples(work_id, kind="edges"),
                     {k: dict(v) for k, v in counts.items()}, max(extracted, default=0))


def graph_version(store: Any, work_id: int) -> int:
    """Changes whenever the work's graph changes: a cache key for load_graph_data."""
    state = store.kg_state(work_id)
    return state.version if state else 0


def build_view(data: GraphData, params: ViewParams) -> GraphView:
    full = graph_as_of(data, params.as_of)
    graph = full
    if params.types:
        graph = graph.subgraph([n for n, d in graph.nodes(data=True) if d["type"] in params.types])
    if params.min_mentions > 1:
        graph = graph.subgraph([n for n, d in graph.nodes(data=True) if d["mentions"] >= params.min_mentions])
    if params.prune:
        graph = prune_low_degree(nx.MultiDiGraph(graph), params.min_degree)
    matches = find_nodes(graph, params.search) if params.search else []
    focus = matches[0] if matches else None
    if focus:
        graph = neighbourhood(graph, focus, params.radius)
    if params.top_n is not None and graph.number_of_nodes() > params.top_n:
        graph = top_by_degree(graph, params.top_n, keep=[focus] if focus else [])
    return GraphView(nx.MultiDiGraph(graph), full, params, focus, matches)


def render_view(view: GraphView, height: int = 650) -> str:
    from core.viz import render_graph_html
    return render_graph_html(view.graph, height=height, focus=view.focus)


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
                       dict(d["mentions_by_chapter"]), degree(g, node), facts)


def node_choices(view: GraphView) -> list[tuple[str, str]]:
    """(node id, label) of the drawn nodes, most connected first: the page's node picker."""
    nodes = sorted(view.graph.nodes, key=lambda n: (-degree(view.graph, n), -view.graph.nodes[n]["mentions"]))
    return [(n, view.graph.nodes[n]["label"]) for n in nodes]


def export_filename(view: GraphView, fmt: str, title: str = "graph") -> tuple[str, str]:
    """(file name, MIME type) of an export, without building it."""
    extension, mime = FORMATS[fmt]
    suffix = "" if view.params.as_of is None else f"_ch{view.params.as_of}"
    safe = "".join(ch if ch.isalnum() else "_" for ch in title).strip("_")[:60] or "graph"
    return f"{safe}{suffix}.{extension}", mime


def export_view(view: GraphView, fmt: str, title: str = "graph") -> tuple[bytes, str, str]:
    """(payload, file name, MIME type) for the whole graph as of the view's chapter (filters do not apply)."""
    name, mime = export_filename(view, fmt, title)
    return export_graph(view.full, fmt, {"title": title, "as_of": view.params.as_of}), name, mime


def export_work(store: Any, work_id: int, fmt: str, as_of: int | None = None) -> tuple[bytes, str, str]:
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format '{fmt}'; choose one of {', '.join(FORMATS)}.")
    work = store.get_work(work_id)
    view = build_view(load_graph_data(store, work_id), ViewParams(as_of=as_of, top_n=None))
    return export_view(view, fmt, work.title)
