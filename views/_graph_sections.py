"""The Graph page's sections (views/graph.py composes them): build or update the graph, an entity's details and
corrections, the relationship timeline of two characters. Each reads its widgets, calls kg_service / kg_views and
renders; the widget keys are the page's."""
from __future__ import annotations

import streamlit as st

from core.kg.types import EXTRACTORS, NODE_TYPES
from core.services import kg_service, kg_views
from core.services.guarded_store import is_read_only
from core.store import Store
from views._jobs import start_job
from views._shared import plain


def build_section(store: Store, work_id: int, busy: bool = False) -> kg_service.GraphStatus:
    """The "Build or update the graph" expander (its button starts a background build; disabled while `busy`, a job
    holding the work); the graph's status."""
    status = kg_service.graph_status(store, work_id)
    with st.expander("Build or update the graph", expanded=not status.up_to_date or status.unfinished_job):
        note = st.empty()  # filled after a build on this run, so it never reports the state from before it
        left, middle, right = st.columns([2, 1, 1])
        extractor = left.radio("Extractor", EXTRACTORS, horizontal=True, key="kg_extractor",
                               help="offline: spaCy Open IE, no LLM. llm: KGScore prompt. grapher: Remember Me agent.")
        force = middle.checkbox("Re-read every chapter", key="kg_force")
        if extractor != "offline" and status.chapters:
            est = kg_service.llm_build_estimate(store, work_id, force)
            st.caption(f"Estimate with {est.model}: {est.units} chapters, ~{est.input_tokens:,} input and "
                       f"~{est.output_tokens:,} output tokens: {est.label}")
        read_only = is_read_only(store, work_id)  # shared with the user read-only: only its owner builds
        if right.button("Build graph", type="primary", disabled=status.chapters == 0 or busy or read_only,
                        key="kg_build", help="Only the work's owner can build its graph." if read_only else None):
            start_job(store, work_id, "kg_build", {"extractor": extractor, "force": force})
        if status.chapters == 0:
            note.info("This work has no chapters yet.")
        elif status.pending:
            note.caption(f"{len(status.pending)} of {status.chapters} chapters are not in the graph yet"
                         + (" (an earlier build stopped midway and will resume)."
                            if status.unfinished_job and not busy else "."))
        elif status.outdated:
            note.caption(f"{len(status.outdated)} chapters were read by an older offline extractor (its entity "
                         "types and names are less reliable): build to read them again.")
    return status


def details_section(store: Store, work_id: int, view: kg_views.GraphView, ids: list[str], labels: dict[str, str],
                    details_key: str) -> None:
    """The chosen entity's details (names, mentions per chapter, facts with their sentences) and corrections."""
    node = st.selectbox("Entity details", ids, format_func=lambda n: labels[n], key=details_key)
    details = kg_views.node_details(view, node)
    st.subheader(plain(details.label), anchor=False)
    st.caption(f"{details.type} · first appears in chapter {details.first_chapter} · {details.mentions} mentions · "
               f"{details.degree} links")
    others = [a for a in details.aliases if a != details.label]
    if others:
        st.markdown("**Also called:** " + plain(", ".join(others)))
    if details.states:   # continuity (issue 32): what the story has established about it, as of the slider
        as_of = view.params.as_of
        st.markdown(f"**As of chapter {as_of}:**" if as_of else "**Established:**")
        st.markdown("\n".join(f"- {plain(s['state'])} (chapter {s['chapter']})" for s in details.states))
    left, right = st.columns([1, 2])
    left.bar_chart({"mentions": details.mentions_by_chapter}, x_label="chapter", height=220)
    right.dataframe([{"chapter": f["chapter"], "fact": f["fact"], "source sentence": f["sentence"]}
                     for f in details.facts], hide_index=True, height=220)
    if is_read_only(store, work_id):  # corrections change the graph: its owner's
        return
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


def timeline_section(view: kg_views.GraphView) -> None:
    """Two characters chapter by chapter: how often the text joins them, what it says, where it starts and pauses."""
    st.subheader("Relationship timeline", anchor=False)
    pairs = kg_views.timeline_pairs(view)
    pair_labels = dict(pairs)
    if len(pairs) < 2:
        st.caption("No two characters are related yet in these chapters.")
    else:
        a_col, b_col = st.columns(2)
        a = a_col.selectbox("Relationship of", list(pair_labels), format_func=pair_labels.__getitem__, key="kg_tl_a")
        partners = [n for n in pair_labels if n != a]
        partner = kg_views.strongest_partner(view, a)
        b = b_col.selectbox("with", partners, format_func=pair_labels.__getitem__, key=f"kg_tl_b_{a}",
                            index=partners.index(partner) if partner in partners else 0)
        tl = kg_views.timeline(view, a, b)
        summary = plain(kg_views.timeline_summary(tl, pair_labels[a], pair_labels[b]))
        if tl.first_chapter is None:
            st.info(summary)
        else:
            st.caption(summary)
            st.bar_chart({"together": tl.counts}, x_label="chapter", y_label="times joined", height=200)
            st.dataframe(kg_views.timeline_rows(tl), hide_index=True, height=240)
