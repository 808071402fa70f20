"""What the Graph page draws: the character network by default (strongest relationships, unrelated entities listed
beside rather than drawn), the "all" and ego views, one edge per pair in the drawing's data, the timeline texts."""
from __future__ import annotations

import json

from core.kg.graph import GraphData
from core.kg.types import CO_MENTIONED, CO_OCCURS, EntityName, KgEntity, StoredTriple
from core.services import kg_views
from core.viz import LABEL_PX, graph_payload, render_graph_html


def _entity(i: int, name: str, kind: str, first: int, mentions: int) -> KgEntity:
    return KgEntity(i, name, kind, [EntityName(name, first, mentions)], first, mentions)


def _t(i: int, chapter: int, s: str, rel: str, o: str, sentence: str = "") -> StoredTriple:
    return StoredTriple(i, chapter, None, i, s, rel, o, sentence or f"{s} {rel} {o}.", s, o)


def _data() -> GraphData:
    """Five characters (Dave related to no one), a place, an object; Ann-Bob joined by many triples."""
    entities = [_entity(1, "Ann", "character", 1, 40), _entity(2, "Bob", "character", 1, 30),
                _entity(3, "Cy", "character", 2, 10), _entity(4, "Dave", "character", 1, 25),
                _entity(5, "Eve", "character", 3, 5), _entity(6, "Paris", "location", 1, 9),
                _entity(7, "The Ring", "object", 2, 4)]
    counts = {e.label: {e.first_chapter: e.mentions} for e in entities}
    edges = [_t(1, 1, "Ann", "met", "Bob"), _t(2, 1, "Bob", "met", "Ann"), _t(3, 2, "Ann", "wrote to", "Bob"),
             _t(4, 2, "Ann", CO_OCCURS, "Bob"), _t(5, 2, "Cy", "warned", "Ann"), _t(6, 3, "Eve", CO_OCCURS, "Cy"),
             _t(7, 1, "Ann", "lived in", "Paris"), _t(8, 2, "Bob", "lost", "The Ring"),
             StoredTriple(9, 1, None, 9, "Dave", "slept", "", "Dave slept.", "Dave", None)]
    return GraphData(entities, edges, counts, 3)


def _labels(view: kg_views.GraphView, nodes) -> list[str]:  # noqa: ANN001
    return [view.full.nodes[n]["label"] for n in nodes]


def test_default_view_is_the_character_network_with_unrelated_characters_listed() -> None:
    view = kg_views.build_view(_data(), kg_views.ViewParams())
    assert sorted(_labels(view, view.relations)) == ["Ann", "Bob", "Cy", "Eve"]  # no place, no object
    assert _labels(view, view.isolated) == ["Dave"]  # related to no one: listed, not drawn
    assert set(view.graph) == set(view.relations) and view.full.number_of_nodes() == 7
    assert view.relations.number_of_edges() == 3  # Ann-Bob once, whatever its four triples
    assert "4 of 7 entities and 3 relations shown (all chapters;" in view.summary
    assert view.summary.endswith("1 without a relation listed beside")
    assert [label for _, label in kg_views.node_choices(view)] == ["Ann", "Bob", "Cy", "Eve", "Dave"]
    assert kg_views.isolated_rows(view) == [{"entity": "Dave", "mentions": 25, "type": "character", "first": 1}]


def test_character_network_keeps_the_strongest_and_drops_lone_dots() -> None:
    view = kg_views.build_view(_data(), kg_views.ViewParams(top_characters=2))
    assert sorted(_labels(view, view.relations)) == ["Ann", "Bob"]
    view = kg_views.build_view(_data(), kg_views.ViewParams(top_characters=3))
    # Ann, Bob and Cy (Cy-Ann): Eve, related only to Cy, is not among the three strongest
    assert sorted(_labels(view, view.relations)) == ["Ann", "Bob", "Cy"]
    data = _data()  # a second pair, Fay and Gus, stronger than Cy but related only to each other
    data.entities.extend([_entity(8, "Fay", "character", 1, 3), _entity(9, "Gus", "character", 1, 3)])
    data.counts.update({"Fay": {1: 3}, "Gus": {1: 3}})
    data.edges.extend([_t(30, 1, "Fay", "married", "Gus"), _t(31, 2, "Gus", "left", "Fay")])
    data.name_to_entity.update({"Fay": data.entities[-2], "Gus": data.entities[-1]})
    view = kg_views.build_view(data, kg_views.ViewParams(top_characters=3))
    # the top three by strength are Ann, Bob and Fay; Fay's partner is not among them: Cy, related to Ann, instead
    assert sorted(_labels(view, view.relations)) == ["Ann", "Bob", "Cy"]
    view = kg_views.build_view(data, kg_views.ViewParams(top_characters=4))
    assert sorted(_labels(view, view.relations)) == ["Ann", "Bob", "Fay", "Gus"]
    one = kg_views.build_view(_data(), kg_views.ViewParams(as_of=1))
    assert sorted(_labels(one, one.relations)) == ["Ann", "Bob"] and _labels(one, one.isolated) == ["Dave"]
    assert one.relations["e1"]["e2"]["triples"] == 2  # nothing from chapter 2 yet
    searched = kg_views.build_view(_data(), kg_views.ViewParams(search="eve"))
    assert searched.focus == "e5" and sorted(_labels(searched, searched.relations)) == ["Cy", "Eve"]


def test_all_entities_and_ego_views() -> None:
    everything = kg_views.build_view(_data(), kg_views.ViewParams(mode="all"))
    assert sorted(_labels(everything, everything.relations)) == ["Ann", "Bob", "Cy", "Eve", "Paris", "The Ring"]
    assert _labels(everything, everything.isolated) == ["Dave"]  # a description is not a relation
    places = kg_views.build_view(_data(), kg_views.ViewParams(mode="all", types=("location",)))
    assert not places.relations.number_of_nodes() and _labels(places, places.isolated) == ["Paris"]
    ego = kg_views.build_view(_data(), kg_views.ViewParams(mode="ego", center="e2"))
    assert ego.focus == "e2" and sorted(_labels(ego, ego.relations)) == ["Ann", "Bob", "The Ring"]
    two = kg_views.build_view(_data(), kg_views.ViewParams(mode="ego", center="e2", radius=2))
    assert sorted(_labels(two, two.relations)) == ["Ann", "Bob", "Cy", "Paris", "The Ring"]
    assert not kg_views.build_view(_data(), kg_views.ViewParams(mode="ego")).relations.number_of_nodes()
    assert [label for _, label in kg_views.entity_choices(_data(), 1)] == ["Ann", "Bob", "Dave", "Paris"]


def test_drawing_data_has_one_edge_per_pair_a_legend_and_no_markup() -> None:
    data = _data()
    data.edges.append(_t(20, 3, "Ann", "kissed", "Bob", "<img src=x onerror=alert(1)> said Ann."))
    view = kg_views.build_view(data, kg_views.ViewParams())
    payload = kg_views.view_payload(view, selected="e2")
    ab = [e for e in payload["edges"] if {e["from"], e["to"]} == {"e1", "e2"}]
    assert len(ab) == 1 and "label" not in ab[0]  # no edge labels unless asked for
    assert ab[0]["title"].startswith("Ann – Bob\nmet (2) · kissed · wrote to · appears with")
    assert "chapters 1-3" in ab[0]["title"] and "<img src=x onerror=alert(1)> said Ann." in ab[0]["title"]
    cy_eve = next(e for e in payload["edges"] if {e["from"], e["to"]} == {"e3", "e5"})
    assert cy_eve["dashes"] is True and ab[0]["width"] > cy_eve["width"]
    assert payload["legend"] == [{"type": "character", "color": "#4e79a7"}]
    assert payload["selected"] == "e2" and payload["fixed_labels"] and payload["label_px"] == LABEL_PX
    labelled = kg_views.view_payload(view, edge_labels=True)
    assert next(e for e in labelled["edges"] if e["id"] == ab[0]["id"])["label"] == "met"
    assert labelled["digest"] != payload["digest"]
    html = kg_views.render_view(view)
    assert "<img" not in html.split("</script>", 1)[1] and "\\u003cimg src=x" in html
    assert json.loads(json.dumps(payload)) == payload  # plain JSON: what the component receives
    everything = graph_payload(view.full)  # a MultiDiGraph of triples is folded into relationships first
    assert len(everything["edges"]) == 5 and {d["type"] for d in everything["legend"]} == {
        "character", "location", "object"}
    assert render_graph_html(view.full.__class__())  # the empty page renders


def test_timeline_texts() -> None:
    view = kg_views.build_view(_data(), kg_views.ViewParams())
    assert [label for _, label in kg_views.timeline_pairs(view)][:2] == ["Ann", "Bob"]
    assert kg_views.strongest_partner(view, "e1") == "e2" and kg_views.strongest_partner(view, "e4") is None
    tl = kg_views.timeline(view, "e1", "e3")
    assert kg_views.timeline_summary(tl, "Ann", "Cy") == (
        "Ann and Cy: together from chapter 2, joined 1 time in 1 chapter; apart since chapter 3.")
    tl = kg_views.timeline(view, "e1", "e2")
    assert kg_views.timeline_summary(tl, "Ann", "Bob").endswith("joined 4 times in 2 chapters; apart since chapter 3.")
    rows = kg_views.timeline_rows(tl)
    assert [r["chapter"] for r in rows] == [1, 1, 2, 2] and rows[2]["what the text says"] == "wrote to, appears with"
    none = kg_views.timeline(view, "e1", "e4")
    assert kg_views.timeline_summary(none, "Ann", "Dave") == "Ann and Dave are not joined in chapters 1-3."


def test_a_pair_only_mentioned_near_each_other_is_not_drawn_among_characters() -> None:
    data = _data()
    data.edges.append(_t(10, 3, "Dave", CO_MENTIONED, "Eve"))
    view = kg_views.build_view(data, kg_views.ViewParams())
    assert "Dave" in _labels(view, view.isolated)                 # still related to no one in the reader's network
    everything = kg_views.build_view(data, kg_views.ViewParams(mode="all"))
    dave = next(n for n in everything.relations if everything.full.nodes[n]["label"] == "Dave")
    assert everything.relations.degree(dave) == 1                 # the "all entities" view keeps it
