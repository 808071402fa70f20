"""The Write page's writer's desk (issue 34), for a story: its manuscript, its plan, its story bible and the rewriting
of a passage, one view at a time (a radio rather than tabs, so only the open view is computed on each rerun: the bible
reads the whole graph, the manuscript renders three exports)."""
from __future__ import annotations

import streamlit as st

from core.store import Store
from views._desk_common import show_done
from views._desk_bible import bible_view
from views._desk_manuscript import manuscript_view
from views._desk_plan import plan_view
from views._desk_rewrite import rewrite_view

VIEWS = {"manuscript": "Manuscript", "plan": "Plan", "bible": "Story bible", "rewrite": "Rewrite a passage"}


def desk_section(store: Store, work_id: int, *, busy: bool = False) -> None:
    st.subheader("Writer's desk", anchor=False)
    view = st.radio("Desk", list(VIEWS), format_func=VIEWS.get, horizontal=True, key="desk_view",
                    label_visibility="collapsed")
    show_done()
    if view == "manuscript":
        manuscript_view(store, work_id)
    elif view == "plan":
        plan_view(store, work_id, busy=busy)
    elif view == "bible":
        bible_view(store, work_id)
    else:
        rewrite_view(store, work_id, busy=busy)
