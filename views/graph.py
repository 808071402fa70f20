"""Graph: the knowledge graph as of a chapter (never later): the character network (or every entity, or one entity's
neighbourhood), node details opened by a click, corrections, a relationship timeline of two characters, exports."""
from __future__ import annotations

import time

import streamlit as st

from core.kg.types import NODE_TYPES
from core.services import kg_views
from views._graph_component import graph_view
from views._graph_export import export_section
from views._graph_sections import build_section, details_section, timeline_section
from views._graph_slider import chapter_slider
from views._jobs import job_panel
from views._shared import get_store, work_picker
from views._state import (
    KG_DRAWING,
    KG_HIGHLIGHT,
    KG_ISOLATED,
    KG_OPEN_NODE,
    KG_PLAY,
    KG_STEP,
    kg_details,
)

store = get_store()
st.title("Graph")
work_id = work_picker()
if work_id is None:
    st.stop()


@st.cache_resource(max_entries=4, show_spinner="Loading the graph…")
def graph_data(work_id: int, version: int) -> kg_views.GraphData:  # version: cache key only
    return kg_views.load_graph_data(get_store(), work_id)


busy = job_panel(store, work_id, ("kg_build",)).busy  # a build runs in the background: its progress, Stop, outcome
status = build_section(store, work_id, busy)
if not status.built:
    st.info("No graph yet: build it above (the offline extractor needs no LLM).")
    st.stop()

data = graph_data(work_id, kg_views.graph_version(store, work_id))
last = max(data.chapters, 1)
as_of, highlight = chapter_slider(store, work_id, last)

MODE_LABELS = {"characters": "Characters", "all": "All entities", "ego": "Around one entity"}
mode = st.radio("View", kg_views.MODES, format_func=MODE_LABELS.get, horizontal=True, key="kg_mode",
                help="Characters: who is related to whom. All entities: every kind, with filters. "
                     "Around one entity: an entity and its neighbours.")
c1, c2, c3, c4, c5 = st.columns([3, 1, 1, 1.4, 2])
types: list[str] = list(NODE_TYPES)
top_n = top_characters = 150
center, radius = None, 1
if mode == "characters":
    top_characters = c1.number_input("Characters shown", 5, 500, 30, step=5, key="kg_top_characters",
                                     help="The characters with the strongest relationships")
elif mode == "all":
    types = c1.multiselect("Types", NODE_TYPES, default=list(NODE_TYPES), key="kg_types")
    top_n = c3.number_input("Top N", 10, 5_000, 150, step=10, key="kg_top_n", help="Most connected entities shown")
else:
    everyone = dict(kg_views.entity_choices(data, as_of))
    center = c1.selectbox("Centre", list(everyone), format_func=everyone.__getitem__, key="kg_center")
    radius = c3.radio("Hops", (1, 2), horizontal=True, key="kg_radius")
min_mentions = c2.number_input("Min. mentions", 1, 10_000, 1, key="kg_min_mentions")
prune = c4.checkbox("Prune", key="kg_prune", help="KGScore: hide entities with fewer than 2 links, repeatedly",
                    disabled=mode == "ego")
edge_labels = c4.checkbox("Edge labels", key="kg_edge_labels", help="The most frequent label on each line")
first = next(iter(kg_views.entity_choices(data, as_of)), None)   # this book's most mentioned character, not Lizzy
search = c5.text_input("Search an entity", key="kg_search", placeholder=f"e.g. {first[1]}" if first else "a name",
                       disabled=mode == "ego")
if highlight:  # the button on its own line: squeezed into a sixth of the page its label was cut
    st.info(f"Showing the {len(highlight.entity_ids)} entities that graph mode walked for "
            f"“{highlight.question}” and the relationships among them.")
    st.button("Show the whole graph", key="kg_clear_highlight", on_click=KG_HIGHLIGHT.clear)
params = kg_views.ViewParams(as_of=as_of, mode=mode, types=tuple(types), min_mentions=int(min_mentions), prune=prune,
                             search="" if mode == "ego" else search, top_n=int(top_n), radius=int(radius),
                             top_characters=int(top_characters), center=center,
                             highlight=highlight.entity_ids if highlight else ())
view = kg_views.build_view(data, params)
if search and mode != "ego" and not view.focus:
    st.warning("No entity matches that search in these chapters.")
st.caption(view.summary)

choices = kg_views.node_choices(view)
ids = [c[0] for c in choices]
labels = dict(choices)
details = kg_details(view.focus)  # a new search focuses the details on its match
if (opened := KG_OPEN_NODE.pop()) in ids:  # a click in the drawing or the list
    details.set(opened)
elif ids and details.get() not in ids:
    details.set(view.focus if view.focus in ids else ids[0])


ISOLATED_COLUMNS = {"entity": st.column_config.TextColumn("entity", width="large"),
                    "mentions": st.column_config.NumberColumn("mentions", width="small"),
                    "type": st.column_config.TextColumn("type", width="small"),
                    "first": st.column_config.NumberColumn("first chapter", width="small")}


def open_clicked() -> None:
    KG_OPEN_NODE.set((KG_DRAWING.get() or {}).get("node"))


def open_listed(isolated: list[str]) -> None:
    rows = KG_ISOLATED.get().selection.rows
    KG_OPEN_NODE.set(isolated[rows[0]] if rows else None)


graph_view(kg_views.view_payload(view, edge_labels, details.get()), height=600, key=KG_DRAWING.key,
           on_click=open_clicked)
if view.isolated:  # below the drawing, full width: in a fifth of the page beside it the columns were cut
    st.caption(f"Related to no one shown ({len(view.isolated)}): click one for its details")
    st.dataframe(kg_views.isolated_rows(view), hide_index=True, height=min(320, 35 * len(view.isolated) + 40),
                 key=KG_ISOLATED.key, on_select=lambda: open_listed(view.isolated), selection_mode="single-row",
                 column_config=ISOLATED_COLUMNS)

if ids:
    details_section(store, work_id, view, ids, labels, details.key)

timeline_section(view)

export_section(store, work_id, view)

if KG_PLAY.get():
    time.sleep(0.8)
    KG_STEP.set(True)
    st.rerun()
