"""Retention's charts (the Remember Me metrics): each kind's counts and retention shares over the chapters, and the
presence heatmap of the most mentioned threads."""
from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from core.metrics.retention import METRIC_LABELS
from core.services import retention_service as retention

KIND_LABELS = {"characters": "Characters", "relationships": "Relationships"}


def thread_name(t: object) -> str:
    return t if isinstance(t, str) else " & ".join(t)  # type: ignore[arg-type]


NONE_FOUND = {"characters": "No chapter of this work names a character, so there is nothing to retain yet.",
              "relationships": "No two characters meet in this work's chapters (within the co-occurrence window or "
                               "as subject and object of one verb), so there is no relationship to retain yet."}


def found(result: retention.WorkRetention, kind: str) -> bool:
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


def metric_charts(result: retention.WorkRetention, kind: str) -> None:
    if not found(result, kind):
        st.info(NONE_FOUND[kind])
        return
    frame = pd.DataFrame([{"chapter": c.index, **c.row(kind).as_dict()} for c in result.chapters]).set_index("chapter")
    frame = frame.astype(float)
    left, right = st.columns(2)
    left.caption(f"{KIND_LABELS[kind]} per chapter")
    left.altair_chart(_lines(frame, ["total", "new"], "count", "d"), width="stretch")
    right.caption("Retention (share, 0-1)")
    right.altair_chart(_lines(frame, ["chapter1", "rolling", "cumulative"], "share", ".1f", [0, 1]), width="stretch")


def heatmap(result: retention.WorkRetention, kind: str, top: int) -> None:
    presence = result.presence(kind, top=top)
    if not presence.threads:
        st.info(f"No {kind} found.")
        return
    names = [thread_name(t) for t in presence.threads]
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
