"""Exports (node-link JSON, GraphML, GEXF, CSV zip, lorebook) and the escaped graph HTML."""
from __future__ import annotations

import io
import json
import zipfile

import networkx as nx

from core.kg.export import export_graph, to_lorebook, to_node_link
from core.kg.graph import GraphData, graph_as_of
from core.kg.types import EntityName, KgEntity, StoredTriple
from core.viz import render_graph_html

XSS = "<img src=x onerror=alert(1)>"


def _graph(chapter: int | None = None) -> nx.MultiDiGraph:
    entities = [KgEntity(1, "Elizabeth", "character", [EntityName("Elizabeth", 1, 5), EntityName("Lizzy", 1, 2)], 1, 7),
                KgEntity(2, "Netherfield", "location", [EntityName("Netherfield", 2, 3)], 2, 3),
                KgEntity(3, XSS, "object", [EntityName(XSS, 2, 1)], 2, 1)]
    edges = [StoredTriple(1, 2, 11, 0, "Elizabeth", "walked to", "Netherfield", "Elizabeth walked to Netherfield.",
                          "Elizabeth", "Netherfield"),
             StoredTriple(2, 1, 10, 0, "Lizzy", "laughed at", "the idea", "Lizzy laughed at the idea.", "Lizzy", None),
             StoredTriple(3, 2, 11, 1, XSS, "haunts", "Netherfield", f"The {XSS} haunts Netherfield.", XSS,
                          "Netherfield")]
    counts = {"Elizabeth": {1: 3, 2: 2}, "Lizzy": {1: 2}, "Netherfield": {2: 3}, XSS: {2: 1}}
    return graph_as_of(GraphData(entities, edges, counts, 2), chapter)


def test_node_link_json_has_the_documented_fields() -> None:
    data = json.loads(export_graph(_graph(), "json", {"title": "P&P"}))
    node = next(n for n in data["nodes"] if n["label"] == "Elizabeth")
    assert set(node) == {"id", "label", "type", "aliases", "first_chapter", "mentions", "states"}
    assert node["aliases"] == ["Elizabeth", "Lizzy"] and node["first_chapter"] == 1 and node["mentions"] == 7
    link = next(lk for lk in data["links"] if lk["predicate"] == "walked to")
    assert set(link) == {"source", "target", "predicate", "chapter", "evidence"}
    assert link["chapter"] == 2 and link["evidence"] == "Elizabeth walked to Netherfield."


def test_as_of_export_has_nothing_later() -> None:
    data = to_node_link(_graph(1))
    assert [n["label"] for n in data["nodes"]] == ["Elizabeth"]
    assert all(lk["chapter"] <= 1 for lk in data["links"])


def test_graphml_and_gexf_read_back() -> None:
    g = nx.read_graphml(io.BytesIO(export_graph(_graph(), "graphml")))
    assert g.number_of_nodes() == 3 and g.nodes["e1"]["aliases"] == "Elizabeth; Lizzy"
    gexf = export_graph(_graph(), "gexf")
    assert b'mode="dynamic"' in gexf
    back = nx.read_gexf(io.BytesIO(gexf))
    assert back.number_of_nodes() == 3 and back.number_of_edges() == 3


def test_csv_zip_has_nodes_and_edges() -> None:
    with zipfile.ZipFile(io.BytesIO(export_graph(_graph(), "csv"))) as archive:
        assert sorted(archive.namelist()) == ["edges.csv", "nodes.csv"]
        nodes = archive.read("nodes.csv").decode().splitlines()
        edges = archive.read("edges.csv").decode().splitlines()
    assert nodes[0] == "id,label,type,aliases,first_chapter,mentions,degree" and len(nodes) == 4
    assert edges[0] == "source,target,predicate,chapter,evidence" and len(edges) == 4


def test_lorebook_is_sillytavern_world_info() -> None:
    book = to_lorebook(_graph(), {"title": "P&P"})
    entry = next(e for e in book["entries"].values() if e["comment"] == "Elizabeth")
    assert entry["key"] == ["Elizabeth", "Lizzy"]
    assert "Elizabeth walked to Netherfield (ch. 2)" in entry["content"]
    assert "Elizabeth laughed at the idea (ch. 1)" in entry["content"]
    assert {"uid", "keysecondary", "constant", "selective", "order", "position", "disable"} <= set(entry)


def test_graph_html_shows_book_text_as_text_only() -> None:
    html = render_graph_html(_graph(), focus="e1")
    assert XSS not in html and "<img" not in html
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in html  # the name is there, as JSON-escaped data
    assert "</script><" not in html.split("vis.DataSet", 1)[1].split("network.once")[0]
    assert '"physics": false' not in html and "setOptions({physics: false})" in html
