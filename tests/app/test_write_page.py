"""AppTest on the Write page: start a story, generate a chapter (streamed) and edit it before accepting, write a
chapter yourself, continue from the cursor as a new revision (the old one kept), start the no-KG twin, download."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from core.llm import FakeLLM, LLMError, register_provider, unregister_provider
from core.llm.base import TextStream
from tests.app.conftest import finish_jobs, page, writer_provider

CHAPTER_ONE = "Elena Voss found the dragon egg in her field.\n\nShe carried it home to Millbrook."


def _reply(messages, options) -> str:  # noqa: ANN001 - the FakeLLM reply function
    system, user = messages[0].content, messages[-1].content
    if "KNOWLEDGE-GRAPH AGENT" in system:
        return json.dumps({"nodes": [{"id": "Elena_Voss", "label": "Elena Voss", "type": "character"}], "edges": []})
    if "Continue this text" in user:
        return "The egg cracked at midnight."
    return CHAPTER_ONE + "\nSTORY STATUS: CONTINUE"


@pytest.fixture
def writing(app_db: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[FakeLLM]]:
    with writer_provider(monkeypatch, _reply) as built:
        yield built


def _run() -> AppTest:
    at = AppTest.from_file(page("write.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def test_start_generate_edit_accept_continue_and_download(writing: list[FakeLLM]) -> None:
    from views._shared import get_store
    at = _run()
    at.text_input(key="new_title").input("The Egg")
    at.selectbox(key="new_arc").set_value("Icarus")
    at.number_input(key="new_max").set_value(3)
    at.button(key="new_start").click().run()
    assert not at.exception, at.exception
    store = get_store()
    (work,) = store.list_works()
    assert work.title == "The Egg" and work.settings["arc"] == "Icarus" and work.settings["max_chapters"] == 3
    assert work.settings["llm"] == "apptest:writer" and work.settings["use_kg"] is True

    finish_jobs(at.button(key="write_next").click().run())  # written in the background
    assert not at.exception, at.exception
    assert at.text_area(key="write_text").value == CHAPTER_ONE  # the marker line is gone from the draft
    assert not store.list_chapters(work.id)                      # a draft is not stored until accepted
    at.text_area(key="write_text").input(CHAPTER_ONE + "\n\nMy own last line.")
    finish_jobs(at.button(key="write_accept").click().run())  # written in the background
    assert not at.exception, at.exception
    (chapter,) = store.list_chapters(work.id)
    assert store.get_chapter(work.id, 1).text.endswith("My own last line.")  # the user's edit is what is stored
    assert any("KNOWLEDGE-GRAPH AGENT" in c.prompt for c in writing[-1].calls)  # the grapher read it
    assert [e.label for e in store.kg_entities(work.id)] == ["Elena Voss"]

    # continue from the cursor: the text area keeps the user's text; the continuation becomes revision 2
    at.text_area(key="cont_text").input("Elena Voss found the dragon egg in her field.")
    at.radio(key="cont_mode").set_value("kg-block")
    at.button(key="cont_go").click().run()
    assert not at.exception, at.exception
    assert "The egg cracked at midnight\\." in "\n".join(m.value for m in at.markdown)  # shown as escaped text
    assert "KNOWLEDGE GRAPH" in at.code[0].value and "Elena Voss (character)" in at.code[0].value
    at.button(key="cont_save").click().run()
    assert not at.exception, at.exception
    revisions = store.chapter_revisions(work.id, 1)
    assert [r[0] for r in revisions] == [1, 2]
    assert revisions[0][2].endswith("My own last line.")  # the earlier revision is kept, word for word
    assert revisions[1][2] == "Elena Voss found the dragon egg in her field. The egg cracked at midnight."

    at.button(key="write_twin").click().run()
    assert not at.exception, at.exception
    twin = store.get_work(store.get_work(work.id).settings["twin"])
    assert twin.settings["use_kg"] is False and twin.settings["premise"] == work.settings["premise"]
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Markdown", "EPUB", "Word (.docx)"]   # a story's downloads: its manuscript on the desk


def test_write_own_chapter_is_stored_as_written(writing: list[FakeLLM]) -> None:
    from core.services.write_service import start_story
    from core.write import WriteParams
    from views._shared import get_store
    store = get_store()
    work = start_story(store, "Mine", WriteParams("2", "Cinderella", use_kg=False))
    at = AppTest.from_file(page("write.py"), default_timeout=60)
    at.session_state["work_id"] = work.id
    at.run()
    at.text_area(key="own_text").input("The keeper's lamp went dark.\n\nNobody in town slept.")
    finish_jobs(at.button(key="own_save").click().run())  # written in the background
    assert not at.exception, at.exception
    (chapter,) = store.list_chapters(work.id)
    assert chapter.source.value == "written" and store.get_chapter(work.id, 1).text.startswith("The keeper's lamp")
    assert not any("KNOWLEDGE-GRAPH AGENT" in c.prompt for f in writing for c in f.calls)  # no graph: no grapher


class BreaksMidway(FakeLLM):
    """Streams the first words of its reply, then the connection drops (as a provider timing out midway does)."""

    def stream(self, messages, options=None, **overrides):  # noqa: ANN001, ANN003, ANN201
        inner = super().stream(messages, options, **overrides)

        def pieces():  # noqa: ANN202
            for n, piece in enumerate(inner):
                if n == 6:
                    raise LLMError("The connection to the model dropped.", provider="apptest")
                yield piece
        return TextStream(pieces(), self.name)


def test_a_continuation_that_fails_midway_keeps_its_partial_text_to_save(app_db: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    from core.services.library import import_book
    from views._shared import get_store
    register_provider("apptest", lambda model, **kw: BreaksMidway(
        lambda m, o: "The egg cracked at midnight and a small wet dragon blinked at the lamp.", model=model))
    monkeypatch.setenv("FABULA_LLM", "apptest:writer")
    get_settings.cache_clear()
    try:
        work = import_book(get_store(), "egg.txt", ("CHAPTER I.\n\n" + CHAPTER_ONE).encode())
        at = _run()
        at.button(key="cont_go").click().run()
        assert not at.exception, at.exception
        assert "The connection to the model dropped" in at.error[0].value
        assert any("stopped before the end" in i.value for i in at.info)
        shown = "\n".join(m.value for m in at.markdown)
        assert shown.count("The egg cracked at midnight and") == 1  # kept once, not twice
        at.button(key="cont_save").click().run()
        assert not at.exception, at.exception
        saved = get_store().get_chapter(work.id, 1).text
        assert saved.endswith("The egg cracked at midnight and") and saved.startswith("Elena Voss")
    finally:
        unregister_provider("apptest")


def test_a_story_started_after_a_book_gets_its_chapter_length(writing: list[FakeLLM]) -> None:
    """The continuation form's 150 tokens must not follow the user to a new story (a chapter came out at 120
    words), and the writer is asked for at least the lower word count."""
    from core.domain import NewChapter, WorkKind
    from views._shared import get_store
    store = get_store()
    text = "Marley was dead, to begin with.\n\nScrooge signed the register."
    book = store.create_work("A book", None, WorkKind.BOOK, {}, [NewChapter("One", text, text.split("\n\n"))])
    at = AppTest.from_file(page("write.py"), default_timeout=60)
    at.session_state["work_id"] = book.id
    at.run()
    assert at.number_input(key="write_tokens").value == 150  # continuing a book: a short continuation
    at.text_input(key="new_title").input("The Egg")
    at.button(key="new_start").click().run()
    assert not at.exception, at.exception
    finish_jobs(at.button(key="write_next").click().run())  # written in the background
    assert not at.exception, at.exception
    options = next(c.options for c in writing[-1].calls if c.streamed)
    assert options.max_tokens == int(1200 * 1.4) + 20  # the story's 800-1,200 words, not the book's 150 tokens
    assert options.min_words == 800 and options.min_tokens == 0


@pytest.mark.parametrize("embedded", [True, False])
def test_a_draft_by_an_embedded_writer_says_what_to_expect(app_db: str, monkeypatch: pytest.MonkeyPatch,
                                                           embedded: bool) -> None:
    """Honest next to the result: a draft from an embedded model says it is a placeholder and points to Settings;
    a draft from any other model gets no such note."""
    from core.config import get_settings
    register_provider("apptest", lambda model, **kw: FakeLLM(_reply, model=model), embedded=embedded)
    monkeypatch.setenv("FABULA_LLM", "apptest:writer")
    get_settings.cache_clear()
    try:
        at = _run()
        at.text_input(key="new_title").input("The Egg")
        at.button(key="new_start").click().run()
        finish_jobs(at.button(key="write_next").click().run())
        assert not at.exception, at.exception
        assert at.text_area(key="write_text").value == CHAPTER_ONE
        notes = [c.value for c in at.caption if "embedded model apptest:writer" in c.value]
        assert bool(notes) is embedded
        assert not notes or "Settings" in notes[0]
    finally:
        unregister_provider("apptest")
