"""Interactive graph drawing (vis-network, shipped inside pyvis's package), safe for any text a book contains.

`graph_payload(rel)` turns a relationship graph (core.kg.graph.relationships: one edge per related pair) into the
plain records vis-network draws: nodes sized by mentions and coloured by type, one edge per pair with its width by
weight and its labels, chapters and cited sentences in a tooltip, vis options and a legend of the types. The Graph
page hands that payload to its component (assets/graph_component: vis-network plus a click reporter);
`render_graph_html` puts the same payload in a self-contained page (bench, tests, any iframe).

Every string from the book reaches the browser only as data: JSON inside the script (`tojson` escapes <, > and &) or
the component's JSON arguments; vis-network draws labels on a canvas and sets tooltips with innerText, the legend
is written with textContent: a name like `<img src=x onerror=...>` is shown as text, never parsed as HTML.

Readable at first sight: in graphs of up to FIXED_LABEL_NODES nodes the component keeps every label at least
LABEL_PX pixels high on screen whatever the zoom (the view draws fewer nodes rather than unreadable ones); parallel
triples never overlap, as a pair has one edge with at most one short label (off by default; all labels in the
tooltip). Positions come from core.viz_layout (each connected part laid out on its own, the parts packed side by
side), so a small separate pair never squeezes the rest into a corner and the browser runs no physics; graphs of more
than viz_layout.MAX_NODES nodes are left to vis's physics, which runs only until the layout stabilises (a bounded
number of iterations) and is then switched off; vis's costly initial layout is skipped past 100 nodes.

The legend says what every mark means: a dot's colour (its type) and each line style drawn (`line_legend`: solid, a
verb joins the two; dashed, they are only seen together; dark, a line of the selected entity).
"""
from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import networkx as nx
from jinja2 import Environment

from core.kg.types import NODE_TYPES
from core.viz_layout import MAX_NODES as LAYOUT_MAX_NODES
from core.viz_layout import packed_layout

TYPE_COLORS = {"character": "#4e79a7", "location": "#59a14f", "organization": "#f28e2b", "object": "#b07aa1",
               "event": "#e15759"}
OTHER_COLOR = "#999999"
EDGE_LABEL_LIMIT = 500          # past this many drawn edges, no edge labels even when asked for
PREDICATE_CHARS = 40
EDGE_LABEL_CHARS = 24
LABEL_PX = 14                   # the smallest on-screen label size the component keeps
FIXED_LABEL_NODES = 200         # up to this many nodes, labels keep LABEL_PX at any zoom; past it they scale
TOOLTIP_SENTENCE_CHARS = 220
EDGE_COLOR = "#a0a4aa"
EDGE_SELECTED_COLOR = "#333333"
# What each line style means, in the order the legend lists them (core.kg.graph.relationships: a pair is
# `interaction_only` when no verb triple joins it, only appearing together, speaking to each other or being named
# near each other).
LINE_SOLID = "a verb joins them (thicker: more often)"
LINE_DASHED = "only seen together: one sentence, a conversation, named nearby"
LINE_SELECTED = "a line of the selected entity"

_TEMPLATE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<style>
html, body { margin: 0; padding: 0; font-family: sans-serif; }
#graph { width: 100%; height: {{ height }}px; border: 1px solid #ddd; }
#status { position: absolute; top: 6px; left: 8px; font-size: 12px; color: #666; }
div.vis-tooltip { position: absolute; visibility: hidden; padding: 6px; white-space: pre-wrap; max-width: 420px;
  font-size: 13px; background: #fffbe6; border: 1px solid #aaa; border-radius: 3px; pointer-events: none;
  z-index: 5; }
</style>
<script>{{ vis_js | safe }}</script>
</head><body>
<div id="status">{{ status }}</div>
<div id="graph"></div>
<script>
  var payload = {{ payload | tojson }};
  var nodes = new vis.DataSet(payload.nodes);
  var edges = new vis.DataSet(payload.edges);
  var network = new vis.Network(document.getElementById("graph"), {nodes: nodes, edges: edges}, payload.options);
  function done() {
    network.setOptions({physics: false});
    document.getElementById("status").textContent = "";
    if (payload.focus) {
      network.selectNodes([payload.focus]);
    }
  }
  if (payload.options.physics.enabled) {
    network.once("stabilizationIterationsDone", done);
  } else {
    done();  // positioned by core.viz_layout: nothing to settle
  }
</script>
</body></html>
"""


@lru_cache(maxsize=1)
def vis_script_path() -> Path:
    import pyvis
    return Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js"


@lru_cache(maxsize=1)
def _vis_script() -> str:
    return vis_script_path().read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _template() -> Any:
    return Environment(autoescape=True).from_string(_TEMPLATE)


def vis_options(n_nodes: int, positioned: bool = False) -> dict[str, Any]:
    """vis-network options; `positioned`: every node carries its x and y (core.viz_layout), so physics is off."""
    big = n_nodes > 100
    options: dict[str, Any] = {
        "autoResize": True,
        "layout": {"improvedLayout": not big, "randomSeed": 7},
        "interaction": {"hover": True, "tooltipDelay": 150, "hideEdgesOnDrag": big, "navigationButtons": False},
        "nodes": {"shape": "dot", "font": {"size": LABEL_PX, "strokeWidth": 3, "strokeColor": "#ffffff"}},
        "edges": {"font": {"size": 11, "align": "middle", "strokeWidth": 3, "strokeColor": "#ffffff"},
                  "smooth": {"enabled": not big, "type": "continuous"},
                  "color": {"inherit": False, "color": EDGE_COLOR, "highlight": EDGE_SELECTED_COLOR,
                            "hover": "#555555"}},
        "physics": {"enabled": True, "solver": "barnesHut",
                    "barnesHut": {"gravitationalConstant": -6000 if big else -4000, "springLength": 150,
                                  "avoidOverlap": 0.1 if big else 0.4},
                    "stabilization": {"enabled": True, "iterations": 150 if n_nodes > 1000 else 400,
                                      "updateInterval": 50, "fit": True}},
    }
    if positioned:
        options["physics"] = {"enabled": False}
        options["layout"] = {"improvedLayout": False, "randomSeed": 7}
    return options


def line_legend(graph: nx.Graph, selected: str | None) -> list[dict[str, str]]:
    """The line styles this drawing uses, each with what it means: [{"style", "color", "text"}]."""
    styles = {bool(d.get("interaction_only")) for _, _, d in graph.edges(data=True)}
    items = []
    if False in styles:
        items.append({"style": "solid", "color": EDGE_COLOR, "text": LINE_SOLID})
    if True in styles:
        items.append({"style": "dashed", "color": EDGE_COLOR, "text": LINE_DASHED})
    if styles and selected is not None and graph.degree(selected):
        items.append({"style": "solid", "color": EDGE_SELECTED_COLOR, "text": LINE_SELECTED})
    return items


def _short(text: str, limit: int = PREDICATE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def node_tooltip(data: dict[str, Any]) -> str:
    """Plain text (vis sets it with innerText): label, type, other names, first chapter, mentions."""
    others = [a for a in data.get("aliases", []) if a != data["label"]]
    lines = [data["label"],
             f"{data['type']} · first in chapter {data['first_chapter']} · {data['mentions']} mentions"]
    if others:
        lines.append("also: " + ", ".join(others[:12]) + (" …" if len(others) > 12 else ""))
    return "\n".join(lines)


def _chapters_text(chapters: list[int]) -> str:
    """[1, 2, 3, 5] -> "1-3, 5"."""
    runs: list[list[int]] = []
    for ch in chapters:
        if runs and ch == runs[-1][1] + 1:
            runs[-1][1] = ch
        else:
            runs.append([ch, ch])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def relationship_tooltip(label_u: str, label_v: str, data: dict[str, Any]) -> str:
    """Plain text: the pair, its labels with counts, its chapters, a few cited sentences."""
    chapters = data["chapters"]
    lines = [f"{label_u} – {label_v}",
             " · ".join(f"{label} ({n})" if n > 1 else label for label, n in data["labels"][:8])
             + (" …" if len(data["labels"]) > 8 else ""),
             f"{data['triples']} mention{'s' if data['triples'] != 1 else ''} together · chapter"
             f"{'s' if len(chapters) > 1 else ''} {_chapters_text(chapters)}"]
    for e in data.get("evidence", []):
        sentence = _short(" ".join(str(e["sentence"]).split()), TOOLTIP_SENTENCE_CHARS)
        lines.append(f"ch. {e['chapter']}: “{sentence}”")
    return "\n".join(lines)


def edge_width(weight: float) -> float:
    return round(min(1.0 + 1.6 * math.log2(1.0 + weight), 12.0), 2)


def _node_size(mentions: Any) -> float:
    return round(8 + 4 * math.log1p(max(int(mentions or 0), 0)), 2)


def graph_payload(graph: nx.Graph, *, focus: str | None = None, selected: str | None = None,
                  edge_labels: bool = False) -> dict[str, Any]:
    """vis-network records for a relationship graph (a MultiDiGraph of triples is folded into one first):
    nodes, edges, options, legend [{type, color}], focus, selected, fixed_labels, label_px, and `digest`, a digest of
    what is drawn (the component redraws only when it changes)."""
    if graph.is_multigraph():
        from core.kg.graph import relationships
        graph = relationships(graph)
    nodes = [{"id": n, "label": str(d["label"]), "title": node_tooltip(d),
              "color": TYPE_COLORS.get(d.get("type", ""), OTHER_COLOR), "size": _node_size(d.get("mentions"))}
             for n, d in graph.nodes(data=True)]
    with_labels = edge_labels and graph.number_of_edges() <= EDGE_LABEL_LIMIT
    edges = []
    for u, v, d in graph.edges(data=True):
        edge = {"id": f"{u}~{v}", "from": u, "to": v, "width": edge_width(d["weight"]),
                "title": relationship_tooltip(str(graph.nodes[u]["label"]), str(graph.nodes[v]["label"]), d)}
        if d.get("interaction_only"):
            edge["dashes"] = True
        if with_labels:
            edge["label"] = _short(str(d["label"]), EDGE_LABEL_CHARS)
        edges.append(edge)
    positioned = 0 < len(nodes) <= LAYOUT_MAX_NODES
    if positioned:
        layout = packed_layout(graph)
        for node in nodes:
            node["x"], node["y"] = layout[node["id"]]
    present = {d.get("type", "") for _, d in graph.nodes(data=True)}
    legend = [{"type": t, "color": TYPE_COLORS.get(t, OTHER_COLOR)}
              for t in [*NODE_TYPES, *sorted(present - set(NODE_TYPES))] if t in present]
    options = vis_options(len(nodes), positioned)
    key = hashlib.sha1(json.dumps([nodes, edges, options], sort_keys=True).encode()).hexdigest()[:16]
    shown = selected if selected in graph else focus if focus in graph else None
    return {"nodes": nodes, "edges": edges, "options": options, "legend": legend,
            "line_legend": line_legend(graph, shown), "digest": key,
            "focus": focus if focus in graph else None, "selected": selected if selected in graph else None,
            "fixed_labels": len(nodes) <= FIXED_LABEL_NODES, "label_px": LABEL_PX}


def render_graph_html(graph: nx.Graph, *, height: int = 650, focus: str | None = None,
                      status: str = "Laying out the graph…", edge_labels: bool = False) -> str:
    """A self-contained HTML page drawing `graph`: a relationship graph, or a MultiDiGraph of triples (folded into
    relationships; self-loops, the descriptions, are not drawn: they belong in node details)."""
    payload = graph_payload(graph, focus=focus, edge_labels=edge_labels)
    return _template().render(payload=payload, height=height, vis_js=_vis_script(), status=status)
