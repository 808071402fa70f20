"""The background-job panel every page that starts a long job shows (core.services.background runs the jobs).

`job_panel` draws the selected work's job from the database, so it is the same after leaving the page, a reload or
in a second tab: while it runs, its progress, the time left at the measured rate and a Stop button, redrawn every
POLL_S seconds by a fragment (no polling when nothing runs); when it has ended, its outcome; when its server died,
"interrupted" with a Resume button. `start_job` submits a job and reports a refusal (the work is busy).
views/_jobs_imports.py does the same for the large-file imports running in the worker (core.services.imports).
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.services import background
from core.services.guarded_store import is_read_only
from core.store import NotFound, Store
from views._shared import plain
from views._state import job_seen_busy

POLL_S = 2.0
RUNNING = {"kg_build": "Building the graph", "narco": "Connecting passages", "summaries": "Writing summaries",
           "story_chapter": "Writing the next chapter", "story_accept": "Storing the chapter",
           "continuation": "Continuing the text"}
STREAMED = {"story_chapter", "continuation"}   # the message is the text written so far
FAILED = {"kg_build": "The build stopped; finished chapters are saved and it can resume",
          "narco": "Stopped; finished passages are saved and the build resumes",
          "summaries": "Stopped; finished summaries are saved and the next run resumes",
          "story_chapter": "The chapter stopped midway; the text so far is kept as a draft",
          "story_accept": "The chapter could not be stored",
          "continuation": "The continuation failed; your chapter is unchanged"}
STOP_HELP = {"continuation": "Ends it at the next word; what was written is kept, to save or discard.",
             "story_chapter": "Ends it now; the text so far is kept as a draft."}


def start_job(store: Store, work_id: int, kind: str, params: dict[str, Any]) -> None:
    """Submit a job for the selected work and redraw the page (its panel then polls); a busy work is a message."""
    try:
        background.submit(store, work_id, kind, params)
    except (background.JobRefused, NotFound) as exc:
        st.error(plain(str(exc)))
        return
    job_seen_busy(work_id).set(True)
    st.rerun()


def job_panel(store: Store, work_id: int, kinds: tuple[str, ...]) -> background.TaskView:
    """Draw the work's background job (its outcome only when it is one of this page's `kinds`); the view as this
    run found it, so the page can disable its start button while a job holds the work."""
    view = background.task_view(store, work_id)

    @st.fragment(run_every=POLL_S if view.busy else None)
    def panel() -> None:
        now = background.task_view(store, work_id)
        seen = job_seen_busy(work_id)
        if seen.get() and not now.busy:  # it ended since the last poll: redraw the page
            seen.set(False)
            st.rerun()
        seen.set(now.busy)
        _render(store, work_id, now, kinds)

    panel()
    return view


def _progress_text(view: background.TaskView) -> str:
    task = view.task
    assert task is not None
    parts = [f"{task.done} of {task.total} {view.unit}" if task.total else "starting"]
    if left := background.time_left(view.seconds_left):
        parts.append(left)
    return " · ".join(parts)


def _render(store: Store, work_id: int, view: background.TaskView, kinds: tuple[str, ...]) -> None:
    task = view.task
    if task is None or (task.kind not in kinds and not view.busy and view.state != "interrupted"):
        return
    running = RUNNING.get(task.kind, view.label)
    if view.busy:
        with st.status(f"{running}… {_progress_text(view)}", expanded=True, state="running"):
            streamed = task.kind in STREAMED  # the message is the text so far (a chapter being written)
            st.progress(task.fraction,
                        text=None if streamed else plain(task.message) or None)
            if streamed and task.message:
                st.markdown(plain(task.message))
            if task.kind not in kinds:
                st.caption(f"{view.label} is running on this work; other jobs on it can start when it ends.")
            if view.state == "stopping":
                st.caption("Stopping at the next safe point; everything finished is kept.")
            elif not is_read_only(store, work_id):  # a reader watches the owner's job, and cannot stop it
                st.button("Stop", key=f"job_stop_{work_id}", icon=":material/stop_circle:",
                          on_click=_request_stop, args=(store, work_id),
                          help=STOP_HELP.get(task.kind,
                                             "Ends the job after the unit in progress; everything finished is kept."))
        return
    if view.state == "interrupted":
        with st.status(f"{view.label} was interrupted at {task.done} of {task.total} {view.unit}", expanded=True,
                       state="error"):
            st.caption("The server stopped while it ran. Everything it finished is kept; Resume continues it.")
            _resume_button(store, work_id)
        return
    first, _, rest = (task.message or view.label).partition("\n")
    if view.state == "done":
        with st.status(first, state="complete", expanded=bool(rest)):
            for line in rest.splitlines():
                st.caption(plain(line))
    elif view.state == "stopped":
        with st.status(f"{view.label} stopped at {task.done} of {task.total} {view.unit}", state="error",
                       expanded=True):
            st.caption("Stopped as asked; everything finished is kept. Resume continues it.")
            _resume_button(store, work_id)
    else:
        with st.status(FAILED.get(task.kind, f"{view.label} failed"), state="error", expanded=True):
            st.error(plain(task.error or "failed"))
            _resume_button(store, work_id)


def _request_stop(store: Store, work_id: int) -> None:
    """Stop's callback (Streamlit wants one that returns nothing; whether a job was running shows on rerun)."""
    background.request_stop(store, work_id)


def _resume_button(store: Store, work_id: int) -> None:
    if is_read_only(store, work_id):
        return
    if st.button("Resume", key=f"job_resume_{work_id}", icon=":material/play_arrow:"):
        try:
            background.resume(store, work_id)
        except (background.JobRefused, NotFound) as exc:
            st.error(plain(str(exc)))
            return
        job_seen_busy(work_id).set(True)
        st.rerun()
