"""The "All entities" drawing (issue 37): each connected part laid out on its own and the parts packed, so one
separate pair never squeezes the rest into a corner; a legend for every line style drawn; positions computed here,
so the page runs no physics (and graphs too large to lay out here keep vis's)."""
from __future__ import annotations

import math

import networkx as nx

from core.kg.graph import GraphData
from core.kg.types import CO_OCCURS, EntityName, KgEntity, StoredTriple
from core.services import kg_views
from core.viz import LINE_DASHED, LINE_SELECTED, LINE_SOLID, graph_payload
from core.viz_layout import MAX_NODES, SPACING, packed_layout, parts_extent


def _hairball_and_a_pair() -> nx.Graph:
    g = nx.gnm_random_graph(40, 160, seed=3)
    g = nx.relabel_nodes(g, {n: f"n{n}" for n in g})
    g.add_edge("pair_a", "pair_b")
    return g


def _area(box: tuple[float, float, float, float]) -> float:
    return max(box[2] - box[0], 1.0) * max(box[3] - box[1], 1.0)


def test_a_separate_pair_is_packed_beside_the_tangle_not_flung_away() -> None:
    g = _hairball_and_a_pair()
    pos = packed_layout(g)
    assert set(pos) == set(g) and packed_layout(g) == pos      # every node, the same on every load
    tangle, pair = parts_extent(g, pos)
    xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
    whole = (min(xs), min(ys), max(xs), max(ys))
    assert _area(tangle["box"]) >= 0.5 * _area(whole)          # the tangle fills most of the drawing
    assert math.dist(pos["pair_a"], pos["pair_b"]) == SPACING  # the pair keeps its own spacing
    gap = max(pair["box"][0] - tangle["box"][2], tangle["box"][1] - pair["box"][3], pair["box"][1] - tangle["box"][3])
    assert gap <= 2 * SPACING                                   # right next to it


def test_related_nodes_are_spread_about_the_spacing_and_never_on_top_of_each_other() -> None:
    g = _hairball_and_a_pair()
    pos = packed_layout(g)
    lengths = sorted(math.dist(pos[u], pos[v]) for u, v in g.edges())
    assert 0.5 * SPACING <= lengths[len(lengths) // 2] <= 1.5 * SPACING
    assert len({pos[n] for n in g}) == g.number_of_nodes()


def _rel(edges: list[tuple[str, str, bool]]) -> nx.Graph:
    rel = nx.Graph()
    for u, v, interaction in edges:
        for n in (u, v):
            rel.add_node(n, label=n.upper(), type="character", mentions=3, first_chapter=1, aliases=[n.upper()])
        rel.add_edge(u, v, weight=1.0, interaction_only=interaction, labels=[("met", 1)], label="met", triples=1,
                     chapters=[1], evidence=[])
    return rel


def test_the_drawing_is_positioned_and_the_browser_runs_no_physics() -> None:
    payload = graph_payload(_rel([("a", "b", False), ("c", "d", True)]))
    assert all({"x", "y"} <= set(n) for n in payload["nodes"])
    assert payload["options"]["physics"] == {"enabled": False}
    big = nx.path_graph(MAX_NODES + 1)
    nx.set_node_attributes(big, {n: {"label": str(n), "type": "object", "mentions": 1, "first_chapter": 1}
                                 for n in big})
    nx.set_edge_attributes(big, {e: {"weight": 1.0, "labels": [("x", 1)], "label": "x", "triples": 1,
                                     "chapters": [1], "evidence": []} for e in big.edges})
    large = graph_payload(big)
    assert "x" not in large["nodes"][0] and large["options"]["physics"]["enabled"] is True


def test_the_legend_names_each_line_style_drawn() -> None:
    both = graph_payload(_rel([("a", "b", False), ("c", "d", True)]), selected="a")
    assert [(i["style"], i["text"]) for i in both["line_legend"]] == [
        ("solid", LINE_SOLID), ("dashed", LINE_DASHED), ("solid", LINE_SELECTED)]
    assert both["line_legend"][2]["color"] == both["options"]["edges"]["color"]["highlight"]  # the dark line
    assert both["line_legend"][0]["color"] == both["options"]["edges"]["color"]["color"]      # the grey one
    only_dashed = graph_payload(_rel([("c", "d", True)]))
    assert [i["style"] for i in only_dashed["line_legend"]] == ["dashed"]                     # nothing selected
    assert graph_payload(nx.Graph())["line_legend"] == []


def _entity(i: int, name: str, kind: str, mentions: int) -> KgEntity:
    return KgEntity(i, name, kind, [EntityName(name, 1, mentions)], 1, mentions)


def test_the_all_entities_view_of_a_tangle_and_a_separate_pair() -> None:
    names = [f"Person {i}" for i in range(12)]
    entities = [_entity(i + 1, n, "character", 10) for i, n in enumerate(names)]
    entities += [_entity(50, "Skeet", "character", 4), _entity(51, "Nig", "character", 4)]
    edges = [StoredTriple(k, 1, None, k, a, "met", b, f"{a} met {b}.", a, b)
             for k, (a, b) in enumerate((names[i], names[j]) for i in range(12) for j in range(i + 1, 12)
                                        if (i * j) % 3 == 0)]
    edges.append(StoredTriple(999, 1, None, 999, "Skeet", CO_OCCURS, "Nig", "Skeet and Nig.", "Skeet", "Nig"))
    data = GraphData(entities, edges, {e.label: {1: e.mentions} for e in entities}, 1)
    view = kg_views.build_view(data, kg_views.ViewParams(mode="all"))
    payload = kg_views.view_payload(view)
    pos = {n["label"]: (n["x"], n["y"]) for n in payload["nodes"]}
    tangle = [pos[n] for n in names]
    width = max(p[0] for p in pos.values()) - min(p[0] for p in pos.values())
    assert max(p[0] for p in tangle) - min(p[0] for p in tangle) >= 0.5 * width
    assert {i["style"] for i in payload["line_legend"]} == {"solid", "dashed"}
