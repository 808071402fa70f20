"""Retention: which characters and relationships a work keeps, chapter by chapter (the Remember Me metrics)."""
from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st
from spacy.language import Language

from core.metrics.extract import load_nlp
from core.metrics.retention import METRIC_LABELS
from core.services import retention_service as retention
from core.wording import counted
from views._shared import get_store, plain, work_picker

KIND_LABELS = {"characters": "Characters", "relationships": "Relationships"}


@st.cache_resource(show_spinner="Loading spaCy…")
def _nlp() -> Language:  # loaded once per server process
    return load_nlp()


def _analyse(work_id: int, params: retention.RetentionParams) -> retention.WorkRetention:
    """The analysis, with a progress bar when some chapters have not been read yet (or were edited)."""
    store = get_store()
    pending = retention.stale_chapters(store, work_id)
    if not pending:
        return retention.analyse_work(store, work_id, params)
    with st.status(f"Reading {len(pending)} chapter(s) for characters and relationships…", expanded=True) as box:
        bar = st.progress(0.0)

        def progress(done: int, total: int, msg: str) -> None:
            bar.progress(done / max(total, 1), text=plain(msg))

        result = retention.analyse_work(store, work_id, params, nlp=_nlp(), on_progress=progress)
        box.update(label=f"Read {len(pending)} chapter(s)", state="complete", expanded=False)
    return result


def _thread(t: object) -> str:
    return t if isinstance(t, str) else " & ".join(t)  # type: ignore[arg-type]


NONE_FOUND = {"characters": "No chapter of this work names a character, so there is nothing to retain yet.",
              "relationships": "No two characters meet in this work's chapters (within the co-occurrence window or "
                               "as subject and object of one verb), so there is no relationship to retain yet."}


def _found(result: retention.WorkRetention, kind: str) -> bool:
    return any(c.row(kind).total for c in result.chapters)


def _lines(frame: pd.DataFrame, metrics: list[str], y_title: str, y_format: str,
           domain: list[float] | None = None) -> alt.Chart:
    """One line per metric over the chapters, the legend below in rows (a legend beside a half-width chart was cut)."""
    long = frame.reset_index().melt("chapter", metrics, "metric", "value").dropna()
    long["metric"] = long["metric"].map(METRIC_LABELS)
    y = alt.Y("value:Q", title=y_title, axis=alt.Axis(format=y_format, tickMinStep=1 if y_format == "d" else 0.1),
              scale=alt.Scale(domain=domain) if domain else alt.Undefined)
    legend = alt.Legend(orient="bottom", columns=2, labelLimit=0)
    # dashes and point shapes by metric too: where two lines coincide (a first chapter's total and new) both show
    return alt.Chart(long).mark_line(point=alt.OverlayMarkDef(size=60, filled=False)).encode(
        x=alt.X("chapter:O", title="chapter", axis=alt.Axis(labelAngle=0)), y=y,
        color=alt.Color("metric:N", title=None, legend=legend),
        strokeDash=alt.StrokeDash("metric:N", title=None, legend=legend),
        shape=alt.Shape("metric:N", title=None, legend=legend),
        tooltip=["chapter", "metric", alt.Tooltip("value:Q", format=".3f" if y_format != "d" else "d")])


def _metric_charts(result: retention.WorkRetention, kind: str) -> None:
    if not _found(result, kind):
        st.info(NONE_FOUND[kind])
        return
    frame = pd.DataFrame([{"chapter": c.index, **c.row(kind).as_dict()} for c in result.chapters]).set_index("chapter")
    frame = frame.astype(float)
    left, right = st.columns(2)
    left.caption(f"{KIND_LABELS[kind]} per chapter")
    left.altair_chart(_lines(frame, ["total", "new"], "count", "d"), width="stretch")
    right.caption("Retention (share, 0-1)")
    right.altair_chart(_lines(frame, ["chapter1", "rolling", "cumulative"], "share", ".1f", [0, 1]), width="stretch")


def _heatmap(result: retention.WorkRetention, kind: str, top: int) -> None:
    presence = result.presence(kind, top=top)
    if not presence.threads:
        st.info(f"No {kind} found.")
        return
    names = [_thread(t) for t in presence.threads]
    # absent cells are left blank, so a gap in a row is a chapter without the thread
    cells = pd.DataFrame([{"thread": n, "chapter": ch, "mentions": v} for n, row in zip(names, presence.counts)
                          for ch, v in zip(presence.chapters, row) if v])
    height = max(160, 22 * len(names))
    chart = alt.Chart(cells).mark_rect().encode(
        x=alt.X("chapter:O", title="chapter", scale=alt.Scale(domain=presence.chapters)),
        y=alt.Y("thread:N", sort=names, title=None, axis=alt.Axis(labelOverlap=False)),
        color=alt.Color("mentions:Q", scale=alt.Scale(scheme="blues"),  # counts: whole numbers, also for one value
                        legend=alt.Legend(format="d", tickMinStep=1)),
        tooltip=["thread", "chapter", "mentions"])
    st.altair_chart(chart.properties(height=height), width="stretch", height=height)


def _dropped(result: retention.WorkRetention, kind: str) -> None:
    c1, c2, c3 = st.columns(3)
    k = c1.slider("Absent for more than K chapters", 1, max(2, len(result.chapters)), min(5, len(result.chapters)),
                  key="dropped_k")
    min_chapters = c2.number_input("Prominent: in at least … chapters", 1, 100, 3, key="dropped_chapters")
    min_mentions = c3.number_input("… or mentioned at least … times", 1, 10_000, 10, key="dropped_mentions")
    rows = [{"thread": _thread(d.thread), "first seen": d.first_seen, "last seen": d.last_seen,
             "absent for": d.absent_for, "came back in": d.returned_at, "chapters present": d.chapters_present,
             "mentions": d.mentions} for d in result.dropped(k, kind, int(min_chapters), int(min_mentions))]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    else:
        st.success(f"No prominent {kind} went missing for more than {counted(k, 'chapter')}.")


def _comparison(result: retention.WorkRetention, params: retention.RetentionParams) -> None:
    others = {w.id: w.title for w in get_store().list_works() if w.id != result.work_id and w.chapter_count}
    if not others:
        st.caption("Import or write a second work to compare with.")
        return
    other = st.selectbox("Compare with", list(others), format_func=lambda i: f"{others[i]} (#{i})",
                         index=None, placeholder="Choose a work", key="compare_with")
    if other is None:
        return
    other_result = _analyse(other, params)
    comparison = retention.compare_results([result], [other_result])
    st.caption(f"A = {plain(result.title)}, B = {plain(others[other])}. Welch t-test over chapters; Cohen's d "
               "with the pooled SD; * p < 0.05, ** p < 0.01.")
    three_places = {c: st.column_config.NumberColumn(format="%.3f")
                    for c in ("M (A)", "SD (A)", "M (B)", "SD (B)", "t", "p", "Cohen's d")}
    for number, kind in enumerate(retention.KINDS, start=1):
        st.markdown(f"**Table {number}: {KIND_LABELS[kind][:-1]} Retention**")
        if missing := [r.title for r in (result, other_result) if not _found(r, kind)]:
            st.info(f"Nothing to compare: {plain(' and '.join(missing))} has no {kind}.")
            continue
        st.dataframe(pd.DataFrame(comparison.table(kind)), hide_index=True, column_config=three_places)
    st.download_button("Download comparison (CSV)", comparison.csv(), file_name="retention_comparison.csv",
                       mime="text/csv", key="download_comparison")


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
                _metric_charts(result, kind)
        st.subheader("Presence")
        kind = st.radio("Show", retention.KINDS, format_func=KIND_LABELS.get, horizontal=True, key="kind")
        _heatmap(result, kind, st.slider("How many", 5, 60, 20, key="top"))
        st.subheader("Dropped threads")
        _dropped(result, kind)
        st.download_button("Download per-chapter metrics (CSV)", retention.retention_csv(result),
                           file_name=f"retention_work_{work_id}.csv", mime="text/csv", key="download_metrics")
        st.subheader("Compare with another work")
        _comparison(result, params)
