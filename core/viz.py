"""Interactive graph HTML (vis-network through pyvis), safe for any text a book contains.

pyvis builds the node and edge records and ships the vis-network script; the page itself comes from a small
template here instead of pyvis's, because that one pulls Bootstrap from a CDN and writes the heading unescaped.
Every string from the book reaches the browser only as JSON data inside the script (`tojson` escapes <, > and &),
and vis-network draws labels on a canvas and sets tooltips with innerText: a name like `<img src=x onerror=...>` is
shown as text, never parsed as HTML.

Large graphs stay usable: physics runs only until the layout stabilises (a bounded number of iterations) and is then
switched off; vis's costly initial layout is skipped past 100 nodes; edge labels are drawn up to a limit and live in
tooltips beyond it.
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import networkx as nx
from jinja2 import Environment

TYPE_COLORS = {"character": "#4e79a7", "location": "#59a14f", "organization": "#f28e2b", "object": "#b07aa1",
               "event": "#e15759"}
EDGE_LABEL_LIMIT = 500
PREDICATE_CHARS = 40

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
  var nodes = new vis.DataSet({{ nodes | tojson }});
  var edges = new vis.DataSet({{ edges | tojson }});
  var options = {{ options | tojson }};
  var network = new vis.Network(document.getElementById("graph"), {nodes: nodes, edges: edges}, options);
  network.once("stabilizationIterationsDone", function () {
    network.setOptions({physics: false});
    document.getElementById("status").textContent = "";
  });
  {% if focus %}network.once("stabilizationIterationsDone", function () {
    network.focus({{ focus | tojson }}, {scale: 1.0});
    network.selectNodes([{{ focus | tojson }}]);
  });{% endif %}
</script>
</body></html>
"""


@lru_cache(maxsize=1)
def _vis_script() -> str:
    import pyvis
    return (Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js").read_text(
        encoding="utf-8")


@lru_cache(maxsize=1)
def _template() -> Any:
    return Environment(autoescape=True).from_string(_TEMPLATE)


def _options(n_nodes: int) -> dict[str, Any]:
    big = n_nodes > 100
    return {
        "autoResize": True,
        "layout": {"improvedLayout": not big, "randomSeed": 7},
        "interaction": {"hover": True, "tooltipDelay": 150, "hideEdgesOnDrag": big, "navigationButtons": False},
        "nodes": {"shape": "dot", "font": {"size": 14}, "scaling": {"label": {"enabled": True, "min": 10,
                                                                              "max": 26, "drawThreshold": 6}}},
        "edges": {"arrows": {"to": {"enabled": True, "scaleFactor": 0.5}}, "font": {"size": 10, "align": "middle"},
                  "smooth": {"enabled": not big, "type": "dynamic"}, "color": {"inherit": False, "color": "#999"}},
        "physics": {"enabled": True, "solver": "barnesHut",
                    "barnesHut": {"gravitationalConstant": -6000 if big else -3000, "springLength": 140,
                                  "avoidOverlap": 0.1},
                    "stabilization": {"enabled": True, "iterations": 150 if n_nodes > 1000 else 400,
                                      "updateInterval": 50, "fit": True}},
    }


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


def render_graph_html(graph: nx.MultiDiGraph, *, height: int = 650, focus: str | None = None,
                      status: str = "Laying out the graph…") -> str:
    """A self-contained HTML page drawing `graph` (nodes need label/type/mentions; edges predicate/chapter/evidence).
    Self-loops (descriptions) are not drawn; they belong in node details."""
    from pyvis.network import Network

    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line")
    for node, data in graph.nodes(data=True):
        net.add_node(node, label=str(data["label"]), title=node_tooltip(data),
                     color=TYPE_COLORS.get(data.get("type", ""), "#999999"),
                     size=8 + 4 * math.log1p(max(int(data.get("mentions", 0)), 0)))
    links = [(u, v, d) for u, v, d in graph.edges(data=True) if u != v]
    with_labels = len(links) <= EDGE_LABEL_LIMIT
    # Appended directly: pyvis's add_edge checks node membership in a list, quadratic at thousands of edges.
    for u, v, d in links:
        edge = {"from": u, "to": v, "title": f"{d['predicate']} (chapter {d['chapter']})\n{d.get('evidence', '')}"}
        if with_labels:
            edge["label"] = _short(str(d["predicate"]))
        net.edges.append(edge)
    nodes, edges, _, _, _, _ = net.get_network_data()
    return _template().render(nodes=nodes, edges=edges, options=_options(len(nodes)), height=height,
                              vis_js=_vis_script(), focus=focus if focus in graph else None, status=status)
