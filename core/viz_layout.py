"""Where each node of a drawn graph goes: every connected part laid out on its own, then the parts packed side by
side, largest first, in rows about as wide as the drawing.

Left to vis-network's physics, a graph of one large tangle and a few small separate parts (a pair of names related
only to each other) drifts apart: the repulsion pushes the small parts far away, and the fit that keeps everything
on screen shrinks the tangle into a corner. Packed parts cannot drift. Positions are computed here, in Python, so the
drawing is the same on every load, and the browser only draws (no physics run on the page).

Graphs of more than MAX_NODES nodes are left to the browser's physics (a force layout in Python grows with the
square of the nodes); the Graph page draws at most a few hundred.
"""
from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import networkx as nx

MAX_NODES = 400
SPACING = 150.0        # the typical distance between related nodes, in vis-network's units (pixels at scale 1)
GAP = 120.0            # the margin between two packed parts
ASPECT = 1.8           # the drawing's width over its height: rows of parts are packed to about this shape
SEED = 7


def _part(graph: nx.Graph, nodes: list[Hashable]) -> dict[Hashable, tuple[float, float]]:
    """One connected part laid out around (0, 0): a force layout scaled so neighbours are about SPACING apart."""
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    if len(nodes) == 2:
        return {nodes[0]: (-SPACING / 2, 0.0), nodes[1]: (SPACING / 2, 0.0)}
    sub = graph.subgraph(nodes)
    pos = nx.spring_layout(sub, seed=SEED, iterations=80)
    lengths = [math.dist(pos[u], pos[v]) for u, v in sub.edges() if u != v]
    typical = sorted(lengths)[len(lengths) // 2] if lengths else 1.0
    scale = SPACING / max(typical, 1e-6)
    return {n: (float(x) * scale, float(y) * scale) for n, (x, y) in pos.items()}


def _box(pos: dict[Hashable, tuple[float, float]]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    return min(xs), min(ys), max(xs), max(ys)


def packed_layout(graph: nx.Graph) -> dict[Hashable, tuple[float, float]]:
    """{node: (x, y)} for every node of `graph` (module docstring), deterministic for a given graph. Parts are ordered
    by size (then by their smallest node), the largest first, each in its own box, boxes in rows (shelf packing)."""
    undirected = graph.to_undirected(as_view=True) if graph.is_directed() else graph
    parts = sorted((sorted(c, key=str) for c in nx.connected_components(undirected)),
                   key=lambda c: (-len(c), str(c[0])))
    if not parts:
        return {}
    laid = [_part(undirected, part) for part in parts]
    boxes = [_box(p) for p in laid]
    sizes = [(x1 - x0 + GAP, y1 - y0 + GAP) for x0, y0, x1, y1 in boxes]
    area = sum(w * h for w, h in sizes)
    row_width = max(sizes[0][0], math.sqrt(area * ASPECT))
    out: dict[Hashable, tuple[float, float]] = {}
    x = y = row_height = 0.0
    for pos, (x0, y0, _, _), (w, h) in zip(laid, boxes, sizes):
        if x > 0 and x + w > row_width:
            x, y, row_height = 0.0, y + row_height, 0.0
        for node, (px, py) in pos.items():
            out[node] = (round(x + px - x0, 1), round(y + py - y0, 1))
        x += w
        row_height = max(row_height, h)
    return out


def parts_extent(graph: nx.Graph, pos: dict[Hashable, tuple[float, float]]) -> list[dict[str, Any]]:
    """Each connected part's node count and bounding box under `pos`, largest part first (tests, diagnostics)."""
    undirected = graph.to_undirected(as_view=True) if graph.is_directed() else graph
    parts = sorted(nx.connected_components(undirected), key=lambda c: -len(c))
    return [{"nodes": len(c), "box": _box({n: pos[n] for n in c})} for c in parts]
