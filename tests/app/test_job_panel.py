"""AppTest on the background-job panel (pages/_jobs.py) as the Graph and Ask pages show it: a build another server
runs (progress, Build disabled, a Stop that reaches the database), one whose server died (interrupted; Resume builds
the rest), and a NARCO build started from Ask that runs in the background to its outcome."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM, register_provider, unregister_provider
from core.tasks import utcnow
from tests.app.conftest import finish_jobs, page

CHAPTERS = ["Anna Grey met Thomas Reed at the harbour of Millbrook.\n\nThomas Reed gave Anna Grey a letter.",
            "Captain Hale sailed north with Anna Grey.\n\nAnna Grey wrote to Thomas Reed from the ship.",
            "Thomas Reed waited at the harbour.\n\nCaptain Hale brought Anna Grey home in the spring."]


def _store():  # noqa: ANN202 - the page's own SqlStore
    from pages._shared import get_store
    return get_store()


def _work() -> int:
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(CHAPTERS, start=1)]
    return _store().create_work("The Harbour", None, WorkKind.BOOK, {}, chapters).id


def _open(name: str, work_id: int) -> AppTest:
    at = AppTest.from_file(page(name), default_timeout=90)
    at.session_state["work_id"] = work_id
    at.run()
    assert not at.exception, at.exception
    return at


def _labels(at: AppTest) -> list[str]:
    return [s.label for s in at.status]


def test_a_build_another_server_runs_shows_progress_and_stops(app_db: str) -> None:
    work_id = _work()
    store = _store()
    store.claim_task(work_id, "kg_build", "other-server", {"extractor": "offline"}, utcnow())
    store.beat_task(work_id, "other-server", done=0, total=3, message="3 chapters to read")
    store.beat_task(work_id, "other-server", done=1, total=3, message="Chapter 1: 4 edges, 2 facts")
    at = _open("graph.py", work_id)
    assert any(label.startswith("Building the graph… 1 of 3 chapters") for label in _labels(at)), _labels(at)
    assert at.button(key="kg_build").disabled                                 # one job on a work at a time
    at.button(key=f"job_stop_{work_id}").click().run()
    assert not at.exception, at.exception
    assert store.get_task(work_id).stop_requested                             # the other server reads it
    assert any("Stopping at the next safe point" in c.value for c in at.caption)
    assert store.beat_task(work_id, "other-server") is True                   # its next check: stop


def test_a_build_whose_server_died_is_interrupted_and_resumes(app_db: str) -> None:
    from storage.models_tasks import WorkTaskRow
    work_id = _work()
    store = _store()
    store.claim_task(work_id, "kg_build", "dead-server", {"extractor": "offline"}, utcnow())
    store.beat_task(work_id, "dead-server", done=1, total=3, message="Chapter 1")
    with store.session() as s:
        s.execute(update(WorkTaskRow).values(heartbeat_at=utcnow() - timedelta(minutes=2)))
    at = _open("graph.py", work_id)
    assert "Graph build was interrupted at 1 of 3 chapters" in _labels(at), _labels(at)
    assert not at.button(key="kg_build").disabled                            # a dead job holds nothing
    at.button(key=f"job_resume_{work_id}").click().run()
    finish_jobs(at)
    assert not at.exception, at.exception
    assert any(" entities, " in label and " facts in " in label for label in _labels(at)), _labels(at)
    assert set(store.kg_extracted_chapters(work_id)) == {1, 2, 3}


@pytest.fixture
def narco_llm(app_db: str, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    from core.config import get_settings
    register_provider("jobtest", lambda model, **kw: FakeLLM(lambda messages, options: "no questions", model=model))
    monkeypatch.setenv("FABULA_LLM", "jobtest:x")
    get_settings.cache_clear()
    yield
    unregister_provider("jobtest")


def test_a_narco_build_from_ask_runs_in_the_background(narco_llm: None) -> None:
    work_id = _work()
    at = _open("ask.py", work_id)
    at.button(key="narco_build").click().run()
    assert not at.exception, at.exception
    finish_jobs(at)
    assert not at.exception, at.exception
    assert any("questions kept of" in label for label in _labels(at)), _labels(at)
    task = _store().get_task(work_id)
    assert task.kind == "narco" and task.status.value == "done" and task.params["llm_name"] == "jobtest:x"
