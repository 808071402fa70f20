"""Retention's tables: the prominent threads that went missing, and the comparison with a second work."""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from core.services import retention_service as retention
from core.wording import counted
from views._dashboard_charts import KIND_LABELS, found, thread_name
from views._shared import get_store, plain


def dropped(result: retention.WorkRetention, kind: str) -> None:
    c1, c2, c3 = st.columns(3)
    k = c1.slider("Absent for more than K chapters", 1, max(2, len(result.chapters)), min(5, len(result.chapters)),
                  key="dropped_k")
    min_chapters = c2.number_input("Prominent: in at least … chapters", 1, 100, 3, key="dropped_chapters")
    min_mentions = c3.number_input("… or mentioned at least … times", 1, 10_000, 10, key="dropped_mentions")
    rows = [{"thread": thread_name(d.thread), "first seen": d.first_seen, "last seen": d.last_seen,
             "absent for": d.absent_for, "came back in": d.returned_at, "chapters present": d.chapters_present,
             "mentions": d.mentions} for d in result.dropped(k, kind, int(min_chapters), int(min_mentions))]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    else:
        st.success(f"No prominent {kind} went missing for more than {counted(k, 'chapter')}.")


def comparison(result: retention.WorkRetention, params: retention.RetentionParams,
               analyse: Callable[[int, retention.RetentionParams], retention.WorkRetention]) -> None:
    """Table 1 and 2 of the paper against a second work (analysed by `analyse`, the page's, with its progress)."""
    others = {w.id: w.title for w in get_store().list_works() if w.id != result.work_id and w.chapter_count}
    if not others:
        st.caption("Import or write a second work to compare with.")
        return
    other = st.selectbox("Compare with", list(others), format_func=lambda i: f"{others[i]} (#{i})",
                         index=None, placeholder="Choose a work", key="compare_with")
    if other is None:
        return
    other_result = analyse(other, params)
    compared = retention.compare_results([result], [other_result])
    st.caption(f"A = {plain(result.title)}, B = {plain(others[other])}. Welch t-test over chapters; Cohen's d "
               "with the pooled SD; * p < 0.05, ** p < 0.01.")
    three_places = {c: st.column_config.NumberColumn(format="%.3f")
                    for c in ("M (A)", "SD (A)", "M (B)", "SD (B)", "t", "p", "Cohen's d")}
    for number, kind in enumerate(retention.KINDS, start=1):
        st.markdown(f"**Table {number}: {KIND_LABELS[kind][:-1]} Retention**")
        if missing := [r.title for r in (result, other_result) if not found(r, kind)]:
            st.info(f"Nothing to compare: {plain(' and '.join(missing))} has no {kind}.")
            continue
        st.dataframe(pd.DataFrame(compared.table(kind)), hide_index=True, column_config=three_places)
    st.download_button("Download comparison (CSV)", compared.csv(), file_name="retention_comparison.csv",
                       mime="text/csv", key="download_comparison")
