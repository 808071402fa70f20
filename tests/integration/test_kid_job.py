"""KID as a background job on the real small model (issue 37): the task row reports tokens done of those asked and
a time left once a rate is measured; Stop ends it at the next word, keeps what was written (the work holds it, marked
stopped), marks the job row stopped, leaves the chapter as it was, and the tokens written are metered once."""
from __future__ import annotations

import time

import pytest

from core.domain import JobStatus, NewChapter, WorkKind
from core.ingest import chunk_text
from core.services import background
from core.services.continuation_job import continuation_params, saved_continuation
from core.services.kg_service import build_graph
from core.write.kid import KidParams

pytestmark = pytest.mark.slow
TEXT = ("Marley was dead, to begin with. Scrooge signed the register of his burial.\n\n"
        "The ghost of Marley came through the heavy door and looked at Scrooge.")
ASKED = 300


def test_a_kid_job_reports_progress_and_stops_keeping_its_text(store, fresh_settings) -> None:  # noqa: ANN001
    fresh_settings.setenv("FABULA_LLM", "local:smollm2")
    work_id = store.create_work("Carol", None, WorkKind.BOOK, {}, [NewChapter("One", TEXT, chunk_text(TEXT))]).id
    build_graph(store, work_id)
    params = continuation_params(mode="kid", tokens=ASKED, temperature=1.0, chapter=1, text=TEXT, revision=1,
                                 kid=KidParams(seed=3, temperature=1.0, max_tokens=ASKED))
    background.submit(store, work_id, "continuation", params)
    seen: list[tuple[int, int, float | None]] = []
    deadline = time.monotonic() + 600   # the float32 copy of the model is made on first need (20-70 s)
    while time.monotonic() < deadline:
        view = background.task_view(store, work_id)
        assert view.state in ("running", "stopping"), (view.state, view.task and view.task.error)
        if view.task and view.task.total:
            seen.append((view.task.done, view.task.total, view.seconds_left))
            if view.task.done >= 6 and view.seconds_left is not None:
                break
        time.sleep(0.2)
    assert seen and seen[-1][1] == ASKED and seen[-1][0] >= 6, seen
    assert seen[-1][2] is not None and seen[-1][2] > 0, "a time left once a rate is measured"
    assert background.request_stop(store, work_id)
    assert background.worker().wait(work_id, 120)
    task = store.get_task(work_id)
    assert task.status.value == "done" and task.message.startswith("Stopped after "), task
    saved = saved_continuation(store, work_id)
    assert saved is not None and saved.result.stopped and saved.result.text
    assert seen[-1][0] <= len(saved.result.steps) < ASKED
    assert store.latest_job(work_id, "continuation").status is JobStatus.STOPPED
    assert store.get_chapter(work_id, 1).revision == 1 and store.get_chapter(work_id, 1).text == TEXT
    usage = store.llm_usage(work_id=work_id)
    assert usage["calls"] == 1 and usage["output_tokens"] == len(saved.result.steps)
