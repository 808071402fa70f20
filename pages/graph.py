"""Graph: the knowledge graph as of a chapter (never later), its filters, node details, corrections and exports."""
from __future__ import annotations

import time

import streamlit as st

from core.kg.export import FORMATS
from core.kg.types import EXTRACTORS, NODE_TYPES
from core.services import kg_service, kg_views
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
    llm = name = None
    with st.status("Building the graph…", expanded=True) as status:
        bar = st.progress(0.0)
        try:
            if extractor != "offline":
                from core.llm import get_llm
                name = llm_service.resolve_llm_name(store, "extraction")
                llm = get_llm(name)  # a missing key or package is an error to show, like any other
                before = llm_service.usage_tally(store, name, work_id=work_id)
            report = kg_service.build_graph(store, work_id, extractor=extractor, llm=llm, llm_name=name, force=force,
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

c1, c2, c3, c4, c5 = st.columns([3, 1, 1, 1, 2])
types = c1.multiselect("Types", NODE_TYPES, default=list(NODE_TYPES), key="kg_types")
min_mentions = c2.number_input("Min. mentions", 1, 10_000, 1, key="kg_min_mentions")
top_n = c3.number_input("Top N", 10, 5_000, 150, step=10, key="kg_top_n", help="Most connected entities shown")
prune = c4.checkbox("Prune", key="kg_prune", help="KGScore: hide entities with fewer than 2 links, repeatedly")
search = c5.text_input("Search an entity", key="kg_search", placeholder="e.g. Lizzy")
params = kg_views.ViewParams(as_of=as_of, types=tuple(types), min_mentions=int(min_mentions), prune=prune,
                             search=search, top_n=int(top_n))
view = kg_views.build_view(data, params)
if search and not view.focus:
    st.warning("No entity matches that search in these chapters.")
st.caption(view.summary)
st.iframe(kg_views.render_view(view, height=620), height=640)

choices = kg_views.node_choices(view)
if choices:
    ids = [c[0] for c in choices]
    labels = dict(choices)
    index = ids.index(view.focus) if view.focus in ids else 0
    node = st.selectbox("Entity details", ids, index=index, format_func=lambda n: labels[n],
                        key=f"kg_node_{view.focus}")  # a new search focuses the details on its match
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
