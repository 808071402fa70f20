"""Exports of a graph as of a chapter: node-link JSON, GraphML, GEXF, CSV (a zip of nodes.csv and edges.csv) and a
SillyTavern World Info lorebook.

Node-link JSON: nodes {id, label, type, aliases, first_chapter, mentions, states (the continuity states established
as of the chapter: kind, state, chapter, sentence, offsets)}, links {source, target, predicate, chapter,
evidence}. GraphML and GEXF need scalar attributes, so aliases are joined with "; ", and hold only characters XML
allows (`xml_text`). GEXF is written in dynamic mode (nodes start at their first chapter, edges at theirs) so Gephi's
timeline replays the book. CSV cells that a spreadsheet would run as a formula are marked as text (`csv_cell`). The
lorebook has one entry per entity: its names are the trigger keys, its facts (with chapter numbers) the content.
"""
from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Callable
from typing import Any

import networkx as nx

from core.kg.graph import degree, verbalize

FORMATS: dict[str, tuple[str, str]] = {   # name -> (file extension, MIME type)
    "json": ("json", "application/json"),
    "graphml": ("graphml", "application/xml"),
    "gexf": ("gexf", "application/xml"),
    "csv": ("zip", "application/zip"),
    "lorebook": ("lorebook.json", "application/json"),
}
LOREBOOK_FACTS = 12
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _nodes(graph: nx.MultiDiGraph) -> list[dict[str, Any]]:
    return [{"id": n, "label": d["label"], "type": d["type"], "aliases": list(d["aliases"]),
             "first_chapter": d["first_chapter"], "mentions": d["mentions"], "states": list(d.get("states", []))}
            for n, d in graph.nodes(data=True)]


def states_text(states: list[dict[str, Any]]) -> str:
    """A node's established states as one line (GraphML, GEXF): "Spitz is dead (chapter 3); ..."."""
    return "; ".join(f"{s['state']} (chapter {s['chapter']})" for s in states)


def _links(graph: nx.MultiDiGraph) -> list[dict[str, Any]]:
    return [{"source": u, "target": v, "predicate": d["predicate"], "chapter": d["chapter"],
             "evidence": d["evidence"]} for u, v, d in graph.edges(data=True)]


def to_node_link(graph: nx.MultiDiGraph, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"directed": True, "multigraph": True, "graph": dict(meta or {}), "nodes": _nodes(graph),
            "links": _links(graph)}


def xml_text(value: Any) -> Any:
    """A string without the characters XML 1.0 cannot hold (control characters, U+FFFE/U+FFFF, lone surrogates);
    other values unchanged. Whatever a book or a model put into a name, the GraphML and GEXF stay parseable."""
    return _NOT_XML.sub("", value) if isinstance(value, str) else value


def _scalar_graph(graph: nx.MultiDiGraph, dynamic: bool = False) -> nx.MultiDiGraph:
    flat = nx.MultiDiGraph()
    ids: dict[str, str] = {}
    for n in _nodes(graph):
        attrs = {k: xml_text(v) for k, v in n.items() if k not in ("id", "states")} | {
            "aliases": xml_text("; ".join(n["aliases"])), "states": xml_text(states_text(n["states"]))}
        if dynamic:
            attrs["start"] = n["first_chapter"]
        node = xml_text(n["id"])
        while node in flat:  # two ids that differ only in dropped characters stay two nodes
            node += "_"
        ids[n["id"]] = node
        flat.add_node(node, **attrs)
    for i, (u, v, d) in enumerate(graph.edges(data=True)):
        attrs = {"predicate": xml_text(d["predicate"]), "chapter": d["chapter"], "evidence": xml_text(d["evidence"]),
                 "label": xml_text(d["predicate"])}
        if dynamic:
            attrs["start"] = d["chapter"]
        flat.add_edge(ids[u], ids[v], key=i, **attrs)
    return flat


def to_graphml(graph: nx.MultiDiGraph) -> bytes:
    return "\n".join(nx.generate_graphml(_scalar_graph(graph))).encode("utf-8")


def to_gexf(graph: nx.MultiDiGraph) -> bytes:
    flat = _scalar_graph(graph, dynamic=True)
    flat.graph["mode"] = "dynamic"
    return "\n".join(nx.generate_gexf(flat, version="1.2draft")).encode("utf-8")


def csv_cell(value: Any) -> Any:
    """A cell a spreadsheet shows as text: a string starting with = + - @ (or a tab or carriage return) would be run
    as a formula by Excel, LibreOffice and Google Sheets (=HYPERLINK(...) in a name or a quoted sentence), so it gets
    a leading apostrophe, the spreadsheets' own mark for literal text. Numbers are left as they are."""
    if isinstance(value, str) and value[:1] in _FORMULA_STARTS:
        return "'" + value
    return value


def to_csv_zip(graph: nx.MultiDiGraph) -> bytes:
    """nodes.csv (id, label, type, aliases, first_chapter, mentions, degree) and edges.csv in one zip; every text cell
    goes through `csv_cell`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        nodes = io.StringIO()
        writer = csv.writer(nodes)
        writer.writerow(["id", "label", "type", "aliases", "first_chapter", "mentions", "degree"])
        for n in _nodes(graph):
            writer.writerow([csv_cell(v) for v in (n["id"], n["label"], n["type"], "; ".join(n["aliases"]),
                                                   n["first_chapter"], n["mentions"], degree(graph, n["id"]))])
        archive.writestr("nodes.csv", nodes.getvalue())
        edges = io.StringIO()
        writer = csv.writer(edges)
        writer.writerow(["source", "target", "predicate", "chapter", "evidence"])
        for link in _links(graph):
            writer.writerow([csv_cell(link[k]) for k in ("source", "target", "predicate", "chapter", "evidence")])
        archive.writestr("edges.csv", edges.getvalue())
    return buffer.getvalue()


def entity_facts(graph: nx.MultiDiGraph, node: str, limit: int | None = None) -> list[tuple[int, str]]:
    """(chapter, sentence-like fact) for every edge at `node`, in reading order: "Elizabeth walked to Netherfield"."""
    incoming = [(u, v, d) for u, v, d in graph.in_edges(node, data=True) if u != v]
    facts = [(d["chapter"], verbalize(graph, u, v, d)) for u, v, d in [*graph.out_edges(node, data=True), *incoming]]
    facts = sorted(set(facts))
    return facts[:limit] if limit else facts


def to_lorebook(graph: nx.MultiDiGraph, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """SillyTavern World Info: {"entries": {"0": {uid, key, keysecondary, comment, content, ...}}}. `meta["lore"]`:
    the story bible's notes and pinned facts by name (core.services.bible_service.lore), added to their entity."""
    entries: dict[str, Any] = {}
    lore: dict[str, dict[str, list[str]]] = (meta or {}).get("lore") or {}
    ranked = sorted(graph.nodes, key=lambda n: (-graph.nodes[n]["mentions"], graph.nodes[n]["label"]))
    for uid, node in enumerate(ranked):
        d = graph.nodes[node]
        facts = entity_facts(graph, node, LOREBOOK_FACTS)
        others = [a for a in d["aliases"] if a != d["label"]]
        lines = [f"{d['label']} ({d['type']}; first appears in chapter {d['first_chapter']})."]
        if others:
            lines.append("Also called: " + ", ".join(others) + ".")
        lines += [f"- {text} (ch. {chapter})" for chapter, text in facts]
        lines += _lore_lines(lore.get(d["label"]) or next((lore[a] for a in d["aliases"] if a in lore), None))
        entries[str(uid)] = {
            "uid": uid, "key": list(dict.fromkeys([d["label"], *d["aliases"]])), "keysecondary": [],
            "comment": d["label"], "content": "\n".join(lines), "constant": False, "selective": True,
            "selectiveLogic": 0, "addMemo": True, "order": 100, "position": 0, "disable": False,
            "excludeRecursion": False, "preventRecursion": False, "probability": 100, "useProbability": True,
            "depth": 4, "group": "", "scanDepth": None, "caseSensitive": None, "matchWholeWords": None,
            "displayIndex": uid}
    return {"name": (meta or {}).get("title", "Fabula lorebook"), "entries": entries}


def _lore_lines(entry: dict[str, list[str]] | None) -> list[str]:
    """The writer's notes and pinned facts (canon) of one entity, as lines of its lorebook entry."""
    if not entry:
        return []
    notes = [f"Writer's note: {n}" for n in entry.get("notes", []) if n.strip()]
    return notes + [f"- Canon: {p}" for p in entry.get("pins", []) if p.strip()]


def _json(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, indent=2).encode("utf-8")


WRITERS: dict[str, Callable[[nx.MultiDiGraph, dict[str, Any]], bytes]] = {
    "json": lambda g, meta: _json(to_node_link(g, meta)),
    "graphml": lambda g, meta: to_graphml(g),
    "gexf": lambda g, meta: to_gexf(g),
    "csv": lambda g, meta: to_csv_zip(g),
    "lorebook": lambda g, meta: _json(to_lorebook(g, meta)),
}


def export_graph(graph: nx.MultiDiGraph, fmt: str, meta: dict[str, Any] | None = None) -> bytes:
    if fmt not in WRITERS:
        raise ValueError(f"Unknown export format '{fmt}'; choose one of {', '.join(WRITERS)}.")
    return WRITERS[fmt](graph, meta or {})
