"""The panel of the large-file imports running in the background worker (core.services.imports), polled like a job
(views/_jobs.py): the same in every tab and after a reload; each import's progress, then its outcome (Open, Dismiss)."""
from __future__ import annotations

import streamlit as st

from core.domain import JobStatus
from core.services import imports
from core.store import Store
from views._jobs import POLL_S
from views._shared import plain, select_work
from views._state import IMPORTS_SEEN_BUSY, READ_CHAPTER


def import_panel(store: Store) -> None:
    """Draw the imports running in the background (core.services.imports), then their outcomes, polled like a job:
    the same in every tab and after a reload. An import that ended since the last poll redraws the page."""
    busy = any(job.running for job in imports.list_imports(store))

    @st.fragment(run_every=POLL_S if busy else None)
    def panel() -> None:
        jobs = imports.list_imports(store)
        running = any(job.running for job in jobs)
        if IMPORTS_SEEN_BUSY.get() and not running:
            IMPORTS_SEEN_BUSY.set(False)
            st.rerun()
        IMPORTS_SEEN_BUSY.set(running)
        for job in jobs:
            _render_import(store, job)

    panel()


def _render_import(store: Store, job: imports.ImportJob) -> None:
    key = job.key[:16]
    if job.running:
        with st.status(f"Importing {plain(job.name)} — started {imports.ago(job.age_s())} ago", expanded=True,
                       state="running"):
            st.progress(job.fraction, text=plain(job.message) or None)
            st.caption("It goes on if you leave this page, reload it or open another tab.")
        return
    if job.status is JobStatus.DONE:
        with st.status(plain(job.outcome), state="complete", expanded=True):
            left, right = st.columns(2)
            if left.button("Open", key=f"import_open_{key}", type="primary", icon=":material/menu_book:"):
                imports.dismiss(store, job.key)
                select_work(job.work_id)
                READ_CHAPTER.set(1)
                st.switch_page("views/read.py")
            right.button("Dismiss", key=f"import_dismiss_{key}", on_click=imports.dismiss, args=(store, job.key))
        return
    label = ("This file is already in the library" if job.duplicate
             else f"Import of {plain(job.name)} failed: nothing was saved")
    with st.status(label, state="error", expanded=True):
        st.error(plain(job.error or "failed"))
        st.button("Dismiss", key=f"import_dismiss_{key}", on_click=imports.dismiss, args=(store, job.key))
