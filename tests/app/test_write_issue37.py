"""AppTest on the Write page (issue 37): a KID continuation runs as a background job (progress in tokens, a Stop that
keeps what was written and says so, the result waiting in the work for a later visit); rough edges 2 (a double click
on Start made two stories and the form stayed filled), 4 (the Chapter box kept another work's value, so a book was
continued after its chapter 1) and 12 (jargon: "kg-block", KID's Hops/Steps/Variant, "local:smollm2" unexplained)."""
from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM, register_provider, unregister_provider
from tests.app.conftest import finish_jobs, page
from tests.app.test_write_page import writing  # noqa: F401 - the fixture
from tests.support.tiny_lm import TinyLocalLLM, walking_table

BOOK = ["The dog went home and the man ran to the sled.", "The man said the dog was in the snow.",
        "The dog went home and the man"]


def _store():  # noqa: ANN202 - the page's own SqlStore
    from views._shared import get_store
    return get_store()


def _book(title: str = "Snow", chapters: list[str] = BOOK) -> int:
    return _store().create_work(title, None, WorkKind.BOOK, {}, [
        NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(chapters, start=1)]).id


def _open(work_id: int | None = None) -> AppTest:
    at = AppTest.from_file(page("write.py"), default_timeout=90)
    if work_id is not None:
        at.session_state["work_id"] = work_id
    at.run()
    assert not at.exception, at.exception
    return at


def _until(check, what: str, timeout: float = 60) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


# ---- rough edge 2: Start -------------------------------------------------------------------------------------------

def test_a_double_click_on_start_makes_one_story_and_the_next_form_is_empty(
        writing: list[FakeLLM]) -> None:  # noqa: F811
    at = _open()
    at.text_input(key="new_title").input("Maps")
    at.text_area(key="new_own").input("A cartographer's maps redraw themselves at night.")
    at.button(key="new_start").click().run()
    for again in [b for b in at.button if b.key == "new_start"]:  # the double click's second click, if it can land
        again.click().run()
    assert not at.exception, at.exception
    assert [w.title for w in _store().list_works()] == ["Maps"]
    assert any("Started “Maps”" in s.value for s in at.success)
    at.button(key="write_start_another").click().run()
    assert at.text_input(key="new_title").value == "" and at.text_area(key="new_own").value == ""


# ---- rough edge 4: per-work controls -------------------------------------------------------------------------------

def test_the_chapter_to_continue_follows_the_work(writing: list[FakeLLM]) -> None:  # noqa: F811
    from core.services.write_service import start_story
    from core.write import WriteParams
    store = _store()
    story = start_story(store, "The Egg", WriteParams("1", "Cinderella"))
    store.add_chapter(story.id, NewChapter("Chapter 1", "Elena Voss found the egg.", ["Elena Voss found the egg."]))
    book = _book()
    at = _open(story.id)
    assert next(s for s in at.selectbox if s.label == "Chapter").value == 1
    at.selectbox(key="picker_Work").set_value(book).run()
    assert not at.exception, at.exception
    assert next(s for s in at.selectbox if s.label == "Chapter").value == 3, "a book is continued at its end"
    assert at.text_area(key="cont_text").value == BOOK[2]
    at.button(key="cont_go").click().run()       # plain mode: streamed in the page, after chapter 3
    at.button(key="cont_save").click().run()
    assert not at.exception, at.exception
    assert [r[0] for r in store.chapter_revisions(book, 3)] == [1, 2]
    assert [r[0] for r in store.chapter_revisions(book, 1)] == [1]


# ---- rough edge 12: plain words ------------------------------------------------------------------------------------

def test_writer_facing_controls_have_plain_labels_and_help(writing: list[FakeLLM]) -> None:  # noqa: F811
    at = _open(_book())
    mode = at.radio(key="cont_mode")
    assert not {"plain", "kg-prompt", "kg-block", "kid"} & set(mode.options), mode.options
    assert "Remember Me" in mode.help and "Andrus" in mode.help and "background" in mode.help
    mode.set_value("kid").run()
    kid = [w for w in [*at.number_input, *at.selectbox] if w.key and w.key.startswith("kid_")]
    assert len(kid) == 5 and all(w.help for w in kid)
    assert not {"Hops", "Steps", "Variant", "Strength"} & {w.label for w in kid}, [w.label for w in kid]
    assert at.selectbox(key="kid_variant").options == ["Word choices (fast)", "Model memory (much slower)"]
    assert any("apptest:writer" in w.value and "Settings" in w.value for w in at.warning)  # a chat model: no KID
    assert at.button(key="cont_go").disabled
    model = at.text_input(key="new_model")
    assert model.label == "Model that writes" and "local:smollm2" in model.help and "Settings" in model.help


# ---- item 4: KID in the background ---------------------------------------------------------------------------------

@pytest.fixture
def tiny(app_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writing model: a tiny bigram "local model" that KID can drive (logits), 50 ms a token."""
    from core.config import get_settings
    register_provider("tinytest", lambda model, **kw: TinyLocalLLM(walking_table(), delay=0.05, model=model),
                      embedded=True)
    monkeypatch.setenv("FABULA_LLM", "tinytest:lm")
    get_settings.cache_clear()
    yield
    unregister_provider("tinytest")


def test_a_kid_continuation_runs_in_the_background_stops_and_waits_in_the_work(tiny: None) -> None:
    from core.services import background
    from core.services.continuation_job import saved_continuation
    store = _store()
    work_id = _book()
    at = _open(work_id)
    at.radio(key="cont_mode").set_value("kid").run()
    at.number_input(key="write_tokens").set_value(2000).run()
    at.button(key="cont_go").click().run()
    assert not at.exception, at.exception
    _until(lambda: (t := store.get_task(work_id)) is not None and t.done >= 5, "five tokens")
    at.run()
    running = [s.label for s in at.status if s.label.startswith("Continuing the text…")]
    assert running and " of 2000 tokens" in running[0], [s.label for s in at.status]
    assert at.button(key="cont_go").disabled                 # one job on a work at a time
    at.button(key=f"job_stop_{work_id}").click().run()
    finish_jobs(at)
    assert not at.exception, at.exception
    task = store.get_task(work_id)
    assert task.kind == "continuation" and task.message.startswith("Stopped after ")
    saved = saved_continuation(store, work_id)
    assert saved is not None and saved.result.stopped and 5 <= len(saved.result.steps) < 2000
    assert saved.result.text and saved.chapter == 3 and saved.kept == BOOK[2]
    assert store.latest_job(work_id, "continuation").status.value == "stopped"
    assert any("stopped before the end" in i.value for i in at.info)
    assert store.get_chapter(work_id, 3).revision == 1       # nothing is saved into the chapter by itself

    later = _open(work_id)                                    # another visit (a new session): the result is there
    assert any("stopped before the end" in i.value for i in later.info)
    assert "kid-overlay" in later.get("html")[-1].proto.body
    later.button(key="cont_save").click().run()
    assert not later.exception, later.exception
    chapter = store.get_chapter(work_id, 3)
    assert chapter.revision == 2 and chapter.text == f"{BOOK[2]} {saved.result.text}"
    assert saved_continuation(store, work_id) is None         # saved: no longer waiting
    assert background.task_view(store, work_id).state == "done"
