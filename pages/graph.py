"""Graph: the knowledge graph as of a chapter (never later): the character network (or every entity, or one entity's
neighbourhood), node details opened by a click, corrections, a relationship timeline of two characters, exports."""
from __future__ import annotations

import time

import streamlit as st

from core.kg.export import FORMATS
from core.kg.types import EXTRACTORS, NODE_TYPES
from core.services import kg_service, kg_views
from pages._graph_component import graph_view
from pages._shared import get_store, plain, work_picker

store = get_store()
st.title("Graph")
work_id = work_picker()
if work_id is None:
    st.stop()


@st.cache_resource(max_entries=4, show_spinner="Loading the graph…")
def graph_data(work_id: int, version: int) -> kg_views.GraphData:  # version: cache key only
    return kg_views.load_graph_data(get_store(), work_id)


def build(extractor: str, force: bool) -> None:
    from core.services import llm_service
    name = None
    with st.status("Building the graph…", expanded=True) as status:
        bar = st.progress(0.0)
        try:
            if extractor != "offline":  # the service builds the model (a missing key is an error to show)
                name = llm_service.resolve_llm_name(store, "extraction")
                before = llm_service.usage_tally(store, name, work_id=work_id)
            report = kg_service.build_graph(store, work_id, extractor=extractor, llm_name=name, force=force,
                                            on_progress=lambda d, t, m: bar.progress(d / max(t, 1), text=m))
        except Exception as exc:  # noqa: BLE001 - shown to the user; the finished chapters are kept
            status.update(label="The build stopped; finished chapters are saved and it can resume", state="error",
                          expanded=True)
            st.error(plain(str(exc)))
            return
        status.update(label=f"{report.entities} entities, {report.edges} edges, {report.facts} facts "
                            f"in {report.seconds:.1f} s", state="complete")
    if changed := report.stats.get("changed_during_build"):
        st.warning(f"{changed} chapter(s) were saved again while the build read them, so they are not in the graph "
                   "yet: build again to bring them in.")
    if name:  # the tally of this build: what the work's usage grew by
        after = llm_service.usage_tally(store, name, work_id=work_id)
        st.caption(f"This build used {after['calls'] - before['calls']} LLM calls, "
                   f"{after['input_tokens'] - before['input_tokens']:,} input and "
                   f"{after['output_tokens'] - before['output_tokens']:,} output tokens with {name}.")


status = kg_service.graph_status(store, work_id)
with st.expander("Build or update the graph", expanded=not status.up_to_date or status.unfinished_job):
    note = st.empty()  # filled after a build on this run, so it never reports the state from before it
    left, middle, right = st.columns([2, 1, 1])
    extractor = left.radio("Extractor", EXTRACTORS, horizontal=True, key="kg_extractor",
                           help="offline: spaCy Open IE, no LLM. llm: KGScore prompt. grapher: Remember Me agent.")
    force = middle.checkbox("Re-read every chapter", key="kg_force")
    if extractor != "offline" and status.chapters:
        est = kg_service.llm_build_estimate(store, work_id, force)
        st.caption(f"Estimate with {est['model']}: {est['chapters']} chapters, ~{est['input_tokens']:,} input and "
                   f"~{est['output_tokens']:,} output tokens: {est['label']}")
    if right.button("Build graph", type="primary", disabled=status.chapters == 0, key="kg_build"):
        build(extractor, force)
        status = kg_service.graph_status(store, work_id)
    if status.chapters == 0:
        note.info("This work has no chapters yet.")
    elif status.pending:
        note.caption(f"{len(status.pending)} of {status.chapters} chapters are not in the graph yet"
                     + (" (an earlier build stopped midway and will resume)." if status.unfinished_job else "."))
    elif status.outdated:
        note.caption(f"{len(status.outdated)} chapters were read by an older offline extractor (no pronoun "
                     "resolution, no interaction edges): build to read them again.")
if not status.built:
    st.info("No graph yet: build it above (the offline extractor needs no LLM).")
    st.stop()

data = graph_data(work_id, kg_views.graph_version(store, work_id))
last = max(data.chapters, 1)
if st.session_state.pop("kg_step", False) and st.session_state.get("kg_play"):  # Play's next frame: move the
    st.session_state["kg_as_of"] = min(int(st.session_state.get("kg_as_of", 1)) + 1, last)  # slider before it exists
if st.session_state.get("kg_play") and int(st.session_state.get("kg_as_of", last)) >= last:
    st.session_state["kg_play"] = False  # this is the last frame
if int(st.session_state.get("kg_as_of", last)) > last or "kg_as_of" not in st.session_state:
    st.session_state["kg_as_of"] = last  # the slider's value lives in session state (Play moves it)



def toggle_play() -> None:
    """A button callback (runs before the rerun, when widget state may still be set): start over at the end."""
    st.session_state["kg_play"] = not st.session_state.get("kg_play", False)
    if st.session_state["kg_play"] and int(st.session_state.get("kg_as_of", last)) >= last:
        st.session_state["kg_as_of"] = 1


as_of = 1
if last > 1:  # a one-chapter work has nothing to step through
    top = st.columns([6, 1])
    as_of = top[0].slider("Graph as of chapter", 1, last, key="kg_as_of",
                          help="Nothing from later chapters is shown.")
    top[1].button("⏸ Pause" if st.session_state.get("kg_play") else "▶ Play", key="kg_play_button",
                  on_click=toggle_play)

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
    center = c1.selectbox("Centre", list(everyone), format_func=everyone.get, key="kg_center")
    radius = c3.radio("Hops", (1, 2), horizontal=True, key="kg_radius")
min_mentions = c2.number_input("Min. mentions", 1, 10_000, 1, key="kg_min_mentions")
prune = c4.checkbox("Prune", key="kg_prune", help="KGScore: hide entities with fewer than 2 links, repeatedly",
                    disabled=mode == "ego")
edge_labels = c4.checkbox("Edge labels", key="kg_edge_labels", help="The most frequent label on each line")
search = c5.text_input("Search an entity", key="kg_search", placeholder="e.g. Lizzy", disabled=mode == "ego")
params = kg_views.ViewParams(as_of=as_of, mode=mode, types=tuple(types), min_mentions=int(min_mentions), prune=prune,
                             search="" if mode == "ego" else search, top_n=int(top_n), radius=int(radius),
                             top_characters=int(top_characters), center=center)
view = kg_views.build_view(data, params)
if search and mode != "ego" and not view.focus:
    st.warning("No entity matches that search in these chapters.")
st.caption(view.summary)

choices = kg_views.node_choices(view)
ids = [c[0] for c in choices]
labels = dict(choices)
details_key = f"kg_node_{view.focus}"  # a new search focuses the details on its match
if (opened := st.session_state.pop("kg_open_node", None)) in ids:  # a click in the drawing or the list
    st.session_state[details_key] = opened
elif ids and st.session_state.get(details_key) not in ids:
    st.session_state[details_key] = view.focus if view.focus in ids else ids[0]


def open_clicked() -> None:
    st.session_state["kg_open_node"] = (st.session_state.get("kg_graph") or {}).get("node")


def open_listed(isolated: list[str]) -> None:
    rows = st.session_state["kg_isolated"].selection.rows
    st.session_state["kg_open_node"] = isolated[rows[0]] if rows else None


drawing, beside = st.columns([4, 1]) if view.isolated else (st.container(), None)
with drawing:
    graph_view(kg_views.view_payload(view, edge_labels, st.session_state.get(details_key)), height=600,
               key="kg_graph", on_click=open_clicked)
if beside is not None:
    beside.caption(f"Related to no one shown ({len(view.isolated)}): click one for its details")
    beside.dataframe(kg_views.isolated_rows(view), hide_index=True, height=min(560, 35 * len(view.isolated) + 40),
                     key="kg_isolated",
                     on_select=lambda: open_listed(view.isolated), selection_mode="single-row")

if ids:
    node = st.selectbox("Entity details", ids, format_func=lambda n: labels[n], key=details_key)
    details = kg_views.node_details(view, node)
    st.subheader(plain(details.label), anchor=False)
    st.caption(f"{details.type} · first appears in chapter {details.first_chapter} · {details.mentions} mentions · "
               f"{details.degree} links")
    others = [a for a in details.aliases if a != details.label]
    if others:
        st.markdown("**Also called:** " + plain(", ".join(others)))
    left, right = st.columns([1, 2])
    left.bar_chart({"mentions": details.mentions_by_chapter}, x_label="chapter", height=220)
    right.dataframe([{"chapter": f["chapter"], "fact": f["fact"], "source sentence": f["sentence"]}
                     for f in details.facts], hide_index=True, height=220)
    with st.expander("Correct this entity"):
        entity_id = view.full.nodes[node]["entity_id"]
        new_label = st.text_input("Rename to", value=details.label, key=f"kg_rename_{node}")
        if st.button("Rename", key="kg_rename") and new_label.strip() and new_label != details.label:
            kg_service.rename_entity(store, work_id, entity_id, new_label)
            st.rerun()
        new_type = st.selectbox("Type", NODE_TYPES, key=f"kg_type_{node}",
                                index=NODE_TYPES.index(details.type) if details.type in NODE_TYPES else 0)
        if st.button("Change type", key="kg_retype", disabled=new_type == details.type):
            kg_service.retype_entity(store, work_id, entity_id, new_type)
            st.rerun()
        others_ids = st.multiselect("Merge with", [i for i in ids if i != node], format_func=lambda n: labels[n],
                                    key="kg_merge_with")
        if st.button("Merge", key="kg_merge", disabled=not others_ids):
            kg_service.merge_entities(store, work_id, [entity_id, *(view.full.nodes[i]["entity_id"]
                                                                    for i in others_ids)])
            st.rerun()
        moved = st.multiselect("Split off these names", details.aliases, key="kg_split_names")
        if st.button("Split", key="kg_split", disabled=not moved or len(moved) == len(details.aliases)):
            kg_service.split_entity(store, work_id, entity_id, moved)
            st.rerun()

st.subheader("Relationship timeline", anchor=False)
pairs = kg_views.timeline_pairs(view)
pair_labels = dict(pairs)
if len(pairs) < 2:
    st.caption("No two characters are related yet in these chapters.")
else:
    a_col, b_col = st.columns(2)
    a = a_col.selectbox("Relationship of", list(pair_labels), format_func=pair_labels.get, key="kg_tl_a")
    partners = [n for n in pair_labels if n != a]
    partner = kg_views.strongest_partner(view, a)
    b = b_col.selectbox("with", partners, format_func=pair_labels.get, key=f"kg_tl_b_{a}",
                        index=partners.index(partner) if partner in partners else 0)
    tl = kg_views.timeline(view, a, b)
    summary = plain(kg_views.timeline_summary(tl, pair_labels[a], pair_labels[b]))
    if tl.first_chapter is None:
        st.info(summary)
    else:
        st.caption(summary)
        st.bar_chart({"together": tl.counts}, x_label="chapter", y_label="times joined", height=200)
        st.dataframe(kg_views.timeline_rows(tl), hide_index=True, height=240)

fmt_col, button_col = st.columns([1, 3])
fmt = fmt_col.selectbox("Export format", list(FORMATS), key="kg_export_format",
                        help="The whole graph as of this chapter (filters do not apply).")
title = store.get_work(work_id).title
file_name, mime = kg_views.export_filename(view, fmt, title)
button_col.download_button(f"Download {file_name}", data=lambda: kg_views.export_view(view, fmt, title)[0],
                           file_name=file_name, mime=mime, key="kg_download")

if st.session_state.get("kg_play"):
    time.sleep(0.8)
    st.session_state["kg_step"] = True
    st.rerun()
