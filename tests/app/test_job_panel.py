"""AppTest on the background-job panel (views/_jobs.py) as the Graph and Ask pages show it: a build another server
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
    from views._shared import get_store
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


class Slow(FakeLLM):
    """Streams its reply a word every 0.1 s, so a Stop can land midway."""

    def stream(self, messages, options=None, **overrides):  # noqa: ANN001, ANN003, ANN201
        import time

        from core.llm.base import TextStream
        inner = super().stream(messages, options, **overrides)

        def pieces():  # noqa: ANN202
            for piece in inner:
                time.sleep(0.1)
                yield piece
        return TextStream(pieces(), self.name)


def test_a_chapter_is_written_in_the_background_and_stop_keeps_the_text_so_far(app_db: str) -> None:
    """The Write page's next chapter streams into the job's row; Stop ends it with the text so far kept as the draft,
    which a new session (a reload, another tab) opens in the editor; Accept stores it and drops the draft."""
    from core.services import background
    from core.services.write_service import start_story
    from core.write import WriteParams
    words = " ".join(f"word{n}" for n in range(200))
    register_provider("slowfake", lambda model, **kw: Slow(lambda messages, options: words, model=model))
    try:
        store = _store()
        work_id = start_story(store, "Slow", WriteParams("A premise", "Cinderella", use_kg=False,
                                                         llm="slowfake:x")).id
        at = _open("write.py", work_id)
        assert any(c.value.startswith("Estimate with slowfake:x: ~") and "output tokens for the chapter:" in c.value
                   for c in at.caption), [c.value for c in at.caption]  # no graph: no grapher call
        at.button(key="write_next").click().run()
        assert not at.exception, at.exception
        deadline = 0
        while not (store.get_task(work_id).message or "").startswith("word0 word1"):
            deadline += 1
            assert deadline < 300, "the draft never reached the task row"
            background.worker().wait(work_id, 0.1)
        at.run()
        assert any(label.startswith("Writing the next chapter…") for label in _labels(at)), _labels(at)
        at.button(key=f"job_stop_{work_id}").click().run()
        finish_jobs(at)
        kept = store.get_work(work_id).settings["draft"]
        assert kept["stopped"] and kept["text"].startswith("word0 word1") and len(kept["text"]) < len(words)
        again = _open("write.py", work_id)                                # a new session finds the draft
        assert again.text_area(key="write_text").value == kept["text"]
        assert any("partial chapter is kept as a draft" in i.value for i in again.info)
        finish_jobs(again.button(key="write_accept").click().run())
        assert not again.exception, again.exception
        assert store.get_chapter(work_id, 1).text == kept["text"].strip()
        assert store.get_work(work_id).settings.get("draft") is None              # accepted: no draft left
        assert "write_draft" not in again.session_state
    finally:
        unregister_provider("slowfake")
