"""Graph: the knowledge graph as of a chapter (never later): the character network (or every entity, or one entity's
neighbourhood), node details opened by a click, corrections, a relationship timeline of two characters, exports."""
from __future__ import annotations

import time
from dataclasses import replace

import streamlit as st

from core.kg.export import FORMATS
from core.kg.types import NODE_TYPES
from core.services import bible_service, kg_views
from views._graph_component import graph_view
from views._graph_sections import build_section, details_section, timeline_section
from views._jobs import job_panel
from views._position import past_place_warning, place_caption
from views._shared import get_store, work_picker
from views._state import (
    KG_AS_OF,
    KG_DRAWING,
    KG_EXPORT_FORMAT,
    KG_HIGHLIGHT,
    KG_ISOLATED,
    KG_OPEN_NODE,
    KG_PLACED,
    KG_PLAY,
    KG_SLIDER_END,
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
# The slider follows the graph's last chapter as a build adds chapters (or another work is opened) unless the user
# moved it back: it sat at chapter 1 after a build whose first chapters were drawn while it ran.
ended = KG_SLIDER_END.get()  # (work, last chapter) when the slider was last put at the end
if ended != (work_id, last):
    if ended is None or ended[0] != work_id or (KG_AS_OF.get() or last) >= ended[1]:
        KG_AS_OF.set(last)
    KG_SLIDER_END.set((work_id, last))
place = place_caption(store, work_id)  # the slider starts at the reader's place when it is set or moved (issue 33)
if place is not None and KG_PLACED.get() != (work_id, place.chapter):
    KG_AS_OF.set(min(place.chapter, last))
    KG_PLACED.set((work_id, place.chapter))
if KG_STEP.pop() and KG_PLAY.get():  # Play's next frame: move the slider before it exists
    KG_AS_OF.set(min((KG_AS_OF.get() or 1) + 1, last))
if KG_PLAY.get() and (KG_AS_OF.get() or last) >= last:
    KG_PLAY.set(False)  # this is the last frame
if not KG_AS_OF.is_set() or (KG_AS_OF.get() or last) > last:
    KG_AS_OF.set(last)  # the slider's value lives in session state (Play moves it)
highlight = KG_HIGHLIGHT.get()  # set by Ask's "Show in graph": the subgraph an answer walked
if highlight and highlight.work_id == work_id:
    if highlight.fresh:  # arriving from Ask: the graph as of the reader's chapter, never later
        KG_AS_OF.set(min(highlight.upto, last))
        KG_HIGHLIGHT.set(replace(highlight, fresh=False))
else:
    highlight = None


def toggle_play() -> None:
    """A button callback (runs before the rerun, when widget state may still be set): start over at the end."""
    KG_PLAY.set(not KG_PLAY.get())
    if KG_PLAY.get() and (KG_AS_OF.get() or last) >= last:
        KG_AS_OF.set(1)


as_of = 1
if last > 1:  # a one-chapter work has nothing to step through
    top = st.columns([6, 1])
    as_of = top[0].slider("Graph as of chapter", 1, last, key=KG_AS_OF.key,
                          help="Nothing from later chapters is shown.")
    top[1].button("⏸ Pause" if KG_PLAY.get() else "▶ Play", key="kg_play_button",
                  on_click=toggle_play)
    past_place_warning(store, work_id, as_of, place, key="kg_move_place")

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
search = c5.text_input("Search an entity", key="kg_search", placeholder="e.g. Lizzy", disabled=mode == "ego")
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

fmt_col, button_col = st.columns([1, 3])
# Re-assert the choice each run: after a work without a graph (no box drawn) the box came back showing "json"
# while its state, and so the download, was still the format chosen before.
KG_EXPORT_FORMAT.set(KG_EXPORT_FORMAT.get())
fmt = fmt_col.selectbox("Export format", list(FORMATS), key=KG_EXPORT_FORMAT.key,
                        help="The whole graph as of this chapter (filters do not apply).")
title = store.get_work(work_id).title
file_name, mime = kg_views.export_filename(view, fmt, title)
exported: int = work_id  # the lambda runs later: a plain int, narrowed here, for the checker
button_col.download_button(f"Download {file_name}", data=lambda: kg_views.export_view(
    view, fmt, title, bible_service.lore(store, exported) if fmt == "lorebook" else None)[0],   # + the bible's notes
                           file_name=file_name, mime=mime, key="kg_download")

if KG_PLAY.get():
    time.sleep(0.8)
    KG_STEP.set(True)
    st.rerun()
