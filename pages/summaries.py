"""Summaries: write chapter summaries with and without the knowledge graph, read them side by side with the KG lines
the model was given, keep your own edits, and download everything as Markdown."""
from __future__ import annotations

import streamlit as st

from core.services import summary_service as ss
from core.services.guarded_store import is_read_only
from core.services.llm_service import resolve_llm_name
from core.summarize import MODE_LABELS, MODES, SummaryParams
from pages._jobs import job_panel, start_job
from pages._shared import get_store, pick_work_with_chapters, plain

CHOICES = {"both": "Both, side by side", "kg": MODE_LABELS["kg"], "no_kg": MODE_LABELS["no_kg"]}
store = get_store()
st.title("Summaries")
work_id, chapters = pick_work_with_chapters()
titles = {c.index: f"{c.index}. {c.title}" for c in chapters}
has_graph = bool(store.kg_extracted_chapters(work_id))


busy = job_panel(store, work_id, ("summaries",)).busy  # summaries are written in the background
with st.expander("Write summaries", expanded=True):
    left, right = st.columns([3, 2])
    chosen = left.multiselect("Chapters", list(titles), default=[chapters[0].index], format_func=titles.get,
                              key="sum_chapters")
    choice = right.radio("Mode", list(CHOICES), format_func=CHOICES.get, horizontal=True, key="sum_mode",
                         help="With the graph: the facts about the chapter's characters known so far (never from "
                              "later chapters), ranked by the KGScore paper's keywords, fill the room the chapter "
                              "leaves in the context.")
    a, b, c = st.columns(3)
    budget = a.number_input("Context budget (tokens, 0 = the model's window)", 0, 200_000, 0, step=256,
                            key="sum_budget")
    length = b.number_input("Longest summary (tokens)", 32, 2_000, 200, step=16, key="sum_length")
    force = c.checkbox("Regenerate up-to-date summaries", key="sum_force",
                       help="A new version is added; a summary you edited stays the one shown.")
    modes = MODES if choice == "both" else (choice,)
    try:
        params = SummaryParams(context_tokens=int(budget) or None, summary_tokens=int(length))
    except ValueError as exc:
        st.error(plain(str(exc)))
        st.stop()
    llm_name = resolve_llm_name(store, "summarizing")
    blocked = "kg" in modes and not has_graph
    if blocked:
        st.warning("This work has no knowledge graph yet: build it on the Graph page, or choose the chapter text "
                   "only.")
    elif chosen:
        est = ss.estimate(store, work_id, chosen, modes, params, llm_name)
        in_parts = est.detail["hierarchical_chapters"]
        st.caption(f"Estimate with {llm_name}: {est.units} summaries, ~{est.calls} calls, "
                   f"~{est.input_tokens:,} input + {est.output_tokens:,} output tokens: {est.label}"
                   + (f" · chapters {', '.join(map(str, in_parts))} are longer than the context "
                      "and will be summarized in parts" if in_parts else ""))
    if unfinished := ss.unfinished_job(store, work_id):
        st.caption(f"An earlier run stopped after {unfinished['done']} of {unfinished['total']}; running the same "
                   "request again resumes it.")
    if st.button("Summarize", type="primary", key="sum_run",
                 disabled=blocked or not chosen or busy or is_read_only(store, work_id)):
        start_job(store, work_id, "summaries", {"chapters": chosen, "modes": list(modes), "force": force,
                                                "context_tokens": params.context_tokens,
                                                "summary_tokens": params.summary_tokens})

st.dataframe(ss.overview(store, work_id), hide_index=True, height=min(38 + 35 * len(chapters), 300),
             column_config={"kg": MODE_LABELS["kg"], "no_kg": MODE_LABELS["no_kg"]})
index = st.selectbox("Read the summaries of", list(titles), format_func=titles.get, key="sum_read")
view = ss.chapter_view(store, work_id, index)
for column, mode in zip(st.columns(2), MODES):
    with column:
        st.subheader(MODE_LABELS[mode], anchor=False)
        entry = view[mode]
        shown = entry["shown"]
        if shown is None:
            st.info("No summary yet.")
            continue
        by = "edited by you" if shown.user_edited else f"written by {shown.model}"
        st.caption(f"{by} · {shown.created_at:%Y-%m-%d %H:%M} · {entry['versions']} version(s)"
                   + (" · the chapter changed since" if entry["stale"] else ""))
        if entry["newer_generated"]:
            st.caption("A newer generated version exists; your edit stays the one shown.")
        st.markdown(plain(shown.text))
        if mode == "kg":
            with st.expander(f"KG lines given ({len(shown.kg_lines)})"):
                st.code("\n".join(shown.kg_lines) or "(none)", language=None, wrap_lines=True)
        if is_read_only(store, work_id):  # shared read-only: its owner edits
            continue
        with st.expander("Edit"):
            text = st.text_area("Your version", shown.text, height=200, key=f"sum_text_{mode}_{index}_{shown.id}")
            if st.button("Save as my version", key=f"sum_save_{mode}"):
                try:
                    ss.save_edit(store, work_id, index, mode, text)
                except ss.SummaryError as exc:
                    st.error(plain(str(exc)))
                else:
                    st.rerun()

markdown, filename = ss.export_markdown(store, work_id)
st.download_button("Download all summaries (Markdown)", markdown, file_name=filename, mime="text/markdown",
                   key="sum_download")
