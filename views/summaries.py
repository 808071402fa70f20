"""Summaries: a chapter in the book's own words (extractive: its salient sentences, chosen with the knowledge graph),
or written by the summarizing model with and without the graph; read them with what they were made from, keep your
own edits, score them (KGScore, and ROUGE against a reference summary), and download everything as Markdown."""
from __future__ import annotations

import streamlit as st

from core.services import summary_service as ss
from core.services.guarded_store import is_read_only
from core.services.llm_service import resolve_llm_name
from core.summarize import EXTRACTIVE, MODEL_MODES, SummaryParams, target_words
from views._jobs import job_panel, start_job
from views._shared import get_store, pick_work_with_chapters, plain
from views._summaries_view import (CHOICES, EMBEDDED_NOTE, EXTRACTIVE_NOTE, default_choice, render_scores,
                                   render_summary)

store = get_store()
st.title("Summaries")
work_id, chapters = pick_work_with_chapters()
titles = {c.index: f"{c.index}. {c.title}" for c in chapters}


def label(index: object) -> str:
    """A chapter's title; a value left from another work (a browser tab's stale choice) is shown as it is."""
    return titles.get(index, str(index)) if isinstance(index, int) else str(index)


has_graph = bool(store.kg_extracted_chapters(work_id))
llm_name = resolve_llm_name(store, "summarizing")
read_only = is_read_only(store, work_id)

busy = job_panel(store, work_id, ("summaries",)).busy  # summaries are written in the background
with st.expander("Write summaries", expanded=True):
    left, right = st.columns([3, 2])
    picked = left.multiselect("Chapters", list(titles), default=[chapters[0].index], format_func=label,
                              key=f"sum_chapters_{work_id}")
    chosen = [c for c in picked if isinstance(c, int) and c in titles]  # only this work's chapters
    options = list(CHOICES)
    choice = right.radio("Summary", options, index=options.index(default_choice(llm_name, has_graph)),
                         format_func=CHOICES.get, key=f"sum_mode_{work_id}",
                         help="The book's own words need no model. With the graph: the facts about the chapter's "
                              "characters known so far (never from later chapters), ranked by the KGScore paper's "
                              "keywords, fill the room the chapter leaves in the model's context.")
    extractive = choice == EXTRACTIVE
    modes = (EXTRACTIVE,) if extractive else MODEL_MODES if choice == "both" else (choice,)
    a, b, c = st.columns(3)
    length = a.number_input("Longest summary (tokens)", 32, 2_000, 200, step=16, key="sum_length")
    budget = b.number_input("Context budget (tokens, 0 = the model's window)", 0, 200_000, 0, step=256,
                            key="sum_budget", disabled=extractive, help="For the model's summaries only.")
    force = c.checkbox("Regenerate up-to-date summaries", key="sum_force",
                       help="A new version is added; a summary you edited stays the one shown.")
    try:
        params = SummaryParams(context_tokens=int(budget) or None, summary_tokens=int(length))
    except ValueError as exc:
        st.error(plain(str(exc)))
        st.stop()
    blocked = "kg" in modes and not has_graph
    if extractive:
        st.caption(f"{EXTRACTIVE_NOTE} At most {target_words(params.summary_tokens)} words a chapter."
                   + ("" if has_graph else " This work has no graph yet, so sentences are chosen by salience "
                      "alone: build it on the Graph page to prefer the main characters' events."))
    elif blocked:
        st.warning("This work has no knowledge graph yet: build it on the Graph page, or choose the chapter text "
                   "only.")
    elif chosen:
        est = ss.estimate(store, work_id, chosen, modes, params, llm_name)
        in_parts = est.detail["hierarchical_chapters"]
        st.caption(f"Estimate with {llm_name}: {est.units} summaries, ~{est.calls} calls, "
                   f"~{est.input_tokens:,} input + {est.output_tokens:,} output tokens: {est.label}"
                   + (f" · chapters {', '.join(map(str, in_parts))} are longer than the context "
                      "and will be summarized in parts" if in_parts else ""))
    if not extractive and ss.embedded(llm_name):
        st.warning(EMBEDDED_NOTE.format(model=llm_name), icon=":material/warning:")
    if not busy and (unfinished := ss.unfinished_job(store, work_id)):  # a running job is not "an earlier run"
        st.caption(f"An earlier run stopped after {unfinished['done']} of {unfinished['total']} summaries; running "
                   "the same request again resumes it.")
    if st.button("Summarize", type="primary", key="sum_run",
                 disabled=blocked or not chosen or busy or read_only):
        start_job(store, work_id, "summaries", {"chapters": chosen, "modes": list(modes), "force": force,
                                                "context_tokens": params.context_tokens,
                                                "summary_tokens": params.summary_tokens})

st.dataframe(ss.overview(store, work_id), hide_index=True, height=min(38 + 35 * len(chapters), 300),
             column_config={m: name for m, name in CHOICES.items() if m != "both"})
index = st.selectbox("Read the summaries of", list(titles), format_func=label, key=f"sum_read_{work_id}")
index = index if index in titles else chapters[0].index
view = ss.chapter_view(store, work_id, index)
render_summary(work_id, index, EXTRACTIVE, view[EXTRACTIVE], read_only)
if any(view[m]["shown"] for m in MODEL_MODES):
    for column, mode in zip(st.columns(2), MODEL_MODES):
        with column:
            render_summary(work_id, index, mode, view[mode], read_only)
else:
    st.caption("No model-written summary of this chapter yet (choose a “Model, …” summary above).")
render_scores(work_id, index, read_only)

markdown, filename = ss.export_markdown(store, work_id)
st.download_button("Download all summaries (Markdown)", markdown, file_name=filename, mime="text/markdown",
                   key="sum_download")
