"""Retention: which characters and relationships a work keeps, chapter by chapter (the Remember Me metrics)."""
from __future__ import annotations

import streamlit as st
from spacy.language import Language

from core.metrics.extract import load_nlp
from core.services import retention_service as retention
from views._dashboard_charts import KIND_LABELS, heatmap, metric_charts
from views._dashboard_tables import comparison, dropped
from views._shared import get_store, plain, work_picker
from views._text import counted


@st.cache_resource(show_spinner="Loading spaCy…")
def _nlp() -> Language:  # loaded once per server process
    return load_nlp()


def _analyse(work_id: int, params: retention.RetentionParams) -> retention.WorkRetention:
    """The analysis, with a progress bar when some chapters have not been read yet (or were edited)."""
    store = get_store()
    pending = retention.stale_chapters(store, work_id)
    if not pending:
        return retention.analyse_work(store, work_id, params)
    reading = f"Reading {counted(len(pending), 'chapter')} for characters and relationships…"
    with st.status(reading, expanded=True) as box:
        bar = st.progress(0.0)

        def progress(done: int, total: int, msg: str) -> None:
            bar.progress(done / max(total, 1), text=plain(msg))

        result = retention.analyse_work(store, work_id, params, nlp=_nlp(), on_progress=progress)
        total = len(result.chapters)
        before = f" (the other {counted(total - len(pending), 'chapter')} read before)" if len(pending) < total else ""
        box.update(label=f"Read {counted(len(pending), 'chapter')}{before}", state="complete", expanded=False)
    return result


st.title("Retention")
st.caption("Which characters and relationships the story keeps, chapter by chapter: the metrics of *Remember Me* "
           "(Tan et al.), from the graph's characters, co-occurrence windows and verb links.")
work_id = work_picker()
if work_id is not None:
    with st.expander("Relationship settings"):
        window = st.slider("Co-occurrence window (sentences)", 1, 10, retention.RetentionParams.window_sentences)
        verbs = st.checkbox("Also link subject and object of the same verb", value=True)
        min_pairs = st.number_input("Ignore relationships seen fewer times per chapter than", 1, 50, 1)
    params = retention.RetentionParams(window_sentences=window, verb_links=verbs, min_pair_count=int(min_pairs))
    result = _analyse(work_id, params)
    if result.from_graph:
        st.caption("Characters are the knowledge graph's characters, counted as the Graph page counts them.")
    elif result.chapters:
        st.info("This work has no knowledge graph yet, so characters are the names spaCy labels as people; build "
                "the graph on the Graph page and Retention counts the same characters the Graph page shows.")
    if not result.chapters:
        st.info("This work has no chapters yet.")
    else:
        tabs = st.tabs([KIND_LABELS[k] for k in retention.KINDS])
        for tab, kind in zip(tabs, retention.KINDS):
            with tab:
                metric_charts(result, kind)
        st.subheader("Presence")
        kind = st.radio("Show", retention.KINDS, format_func=KIND_LABELS.get, horizontal=True, key="kind")
        heatmap(result, kind, st.slider("How many", 5, 60, 20, key="top"))
        st.subheader("Dropped threads")
        dropped(result, kind)
        st.download_button("Download per-chapter metrics (CSV)", retention.retention_csv(result),
                           file_name=f"retention_work_{work_id}.csv", mime="text/csv", key="download_metrics")
        st.subheader("Compare with another work")
        comparison(result, params, _analyse)
