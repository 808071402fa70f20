"""AppTest on the Write page's writer's desk (issue 34): start a story, write chapter 1, edit chapter 2's plan and see
its beat reach the writer's prompt, pin a fact on a character card, rewrite a chosen paragraph and keep it, see the
manuscript with both chapters and their word counts, download the .docx; and the refusals that store nothing (a
stale save keeps the writer's text, a failing model leaves the chapter as it was)."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from core.llm import FakeLLM, LLMError, register_provider, unregister_provider
from tests.app.conftest import finish_jobs, page, writer_provider

ONE = "Elena Voss found the dragon egg in her field.\n\nShe carried it home to Millbrook through the rain."
TWO = "The egg cracked at midnight.\n\nElena Voss named the dragon Ash and hid him in the barn."
SHORTER = "She ran home with it."
BEAT = "Elena names the dragon Ash"


def _reply(messages, options) -> str:  # noqa: ANN001 - the FakeLLM reply function
    system, user = messages[0].content, messages[-1].content
    if "KNOWLEDGE-GRAPH AGENT" in system:
        return json.dumps({"nodes": [{"id": "Elena_Voss", "label": "Elena Voss", "type": "character"}], "edges": []})
    if "PASSAGE TO REVISE" in user:
        return f"Here is the shorter passage:\n{SHORTER}"
    return TWO + "\nSTORY STATUS: CONTINUE"


@pytest.fixture
def writing(app_db: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[FakeLLM]]:
    with writer_provider(monkeypatch, _reply) as built:
        yield built


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """The bytes each download button of the page was given, by file name (the AppTest runtime's media store)."""
    got: dict[str, bytes] = {}
    keep = MemoryMediaFileStorage.load_and_get_id

    def spy(self, path_or_data, mimetype, kind, filename=None):  # noqa: ANN001, ANN202
        if isinstance(path_or_data, bytes) and filename:
            got[filename] = path_or_data
        return keep(self, path_or_data, mimetype, kind, filename)
    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    return got


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def _story_with_one_chapter(plan: bool = False) -> tuple[AppTest, int]:
    """A story started on the page, its chapter 1 written by hand (two paragraphs), stored through the job."""
    from views._shared import get_store
    at = AppTest.from_file(page("write.py"), default_timeout=60)
    _ok(at.run())
    at.text_input(key="new_title").input("The Egg")
    at.number_input(key="new_max").set_value(3)
    at.checkbox(key="new_plan").set_value(plan)
    _ok(at.button(key="new_start").click().run())
    work = next(w for w in get_store().list_works() if w.title == "The Egg")
    at.text_area(key="own_text").input(ONE)
    _ok(finish_jobs(at.button(key="own_save").click().run()))
    assert get_store().get_chapter(work.id, 1).text == ONE
    return at, work.id


def test_plan_bible_rewrite_manuscript_and_docx(writing: list[FakeLLM], downloads: dict[str, bytes]) -> None:
    from views._shared import get_store
    store = get_store()
    at, work_id = _story_with_one_chapter()

    # the plan of chapter 2 (the next one), edited and saved as the writer's; the writer's prompt carries its beat
    _ok(at.radio(key="desk_view").set_value("plan").run())
    assert at.selectbox(key=f"desk_plan_chapter_{work_id}").value == 2
    at.text_area(key=f"desk_plan_beats_{work_id}_2").input(f"The egg cracks\n{BEAT}")
    at.text_input(key=f"desk_plan_chars_{work_id}_2").input("Elena Voss")
    _ok(at.button(key="desk_plan_save").click().run())
    plan = store.plan_get(work_id, 2)
    assert plan is not None and plan.source == "writer" and plan.beats == ("The egg cracks", BEAT)
    assert any("plan of chapter 2 is saved" in s.value for s in at.success)
    _ok(finish_jobs(at.button(key="write_next").click().run()))
    prompt = next(c.prompt for c in writing[-1].calls if c.streamed)
    assert BEAT in prompt and "PLAN FOR THIS CHAPTER" in prompt
    _ok(finish_jobs(at.button(key="write_accept").click().run()))
    assert [c.index for c in store.list_chapters(work_id)] == [1, 2]

    # a fact pinned on Elena Voss's card (the grapher put her in the graph)
    _ok(at.radio(key="desk_view").set_value("bible").run())
    assert at.selectbox(key=f"desk_bible_card_{work_id}").value == "Elena Voss"
    at.text_input(key=f"desk_pin_new_{work_id}_Elena Voss").input("Elena Voss has green eyes.")
    _ok(at.button(key=f"desk_pin_add_{work_id}_Elena Voss").click().run())
    (pin,) = [e for e in store.bible_list(work_id) if e.kind == "pin"]
    assert (pin.entity, pin.text) == ("Elena Voss", "Elena Voss has green eyes.")
    assert at.text_input(key=f"desk_pin_{pin.id}").value == "Elena Voss has green eyes."

    # chapter 1's second paragraph, shortened with an instruction, old and new side by side, kept as revision 2
    _ok(at.radio(key="desk_view").set_value("rewrite").run())
    at.selectbox(key=f"desk_rw_chapter_{work_id}").set_value(1)
    _ok(at.run())
    at.selectbox(key=f"desk_rw_from_{work_id}_1").set_value(2)
    at.selectbox(key=f"desk_rw_to_{work_id}_1").set_value(2)
    at.radio(key="desk_rw_kind").set_value("shorten")
    at.text_input(key="desk_rw_instruction").input("keep the rain out")
    _ok(at.button(key="desk_rw_go").click().run())
    asked = writing[-1].calls[-1].prompt
    assert "She carried it home to Millbrook through the rain." in asked and "keep the rain out" in asked
    assert "Elena Voss found the dragon egg" not in asked.split("PASSAGE TO REVISE")[1].split(">>>")[0]
    assert at.text_area(key="desk_rw_new").value == SHORTER    # the model's preamble is gone
    assert any("She carried it home to Millbrook" in m.value for m in at.markdown)   # the old text beside it
    assert store.get_chapter(work_id, 1).revision == 1          # nothing stored before Keep
    _ok(at.button(key="desk_rw_keep").click().run())
    assert store.get_chapter(work_id, 1).text == f"Elena Voss found the dragon egg in her field.\n\n{SHORTER}"
    assert [r[0] for r in store.chapter_revisions(work_id, 1)] == [1, 2]
    assert store.chapter_revisions(work_id, 1)[0][2] == ONE     # the earlier revision kept, word for word
    assert any("now revision 2" in s.value for s in at.success)

    # the manuscript: both chapters with their word counts, and the story as .docx
    _ok(at.radio(key="desk_view").set_value("manuscript").run())
    table = at.table[0].value
    assert list(table["Chapter"]) == [1, 2] and list(table["Status"]) == ["accepted", "accepted"]
    assert list(table["Words"]) == [len(store.get_chapter(work_id, n).text.split()) for n in (1, 2)]
    assert [b.label for b in at.get("download_button")][:3] == ["Markdown", "EPUB", "Word (.docx)"]
    docx = next(v for k, v in downloads.items() if k.endswith(".docx"))
    assert docx[:2] == b"PK" and len(docx) > 1000

    # the rewrite undone: revision 1 restored from the manuscript as revision 3
    at.selectbox(key=f"desk_ms_chapter_{work_id}").set_value(1)
    _ok(at.run())
    _ok(at.selectbox(key=f"desk_ms_rev_{work_id}_1").set_value(1).run())
    _ok(at.button(key="desk_ms_restore").click().run())
    assert (store.get_chapter(work_id, 1).revision, store.get_chapter(work_id, 1).text) == (3, ONE)

    # chapter 3: Elena is in play, so her pinned fact is in the writer's prompt; its draft is in the manuscript
    _ok(finish_jobs(at.button(key="write_next").click().run()))
    prompt = [c.prompt for c in writing[-1].calls if c.streamed][-1]
    assert "CANON" in prompt and "Elena Voss has green eyes." in prompt
    assert list(at.table[0].value["Status"]) == ["accepted", "accepted", "draft"]


def test_restore_and_a_stale_save_keeps_the_text(writing: list[FakeLLM]) -> None:
    from core.ingest import chunk_text
    from views._shared import get_store
    store = get_store()
    at, work_id = _story_with_one_chapter(plan=True)   # the manuscript is the desk's first view
    assert store.get_work(work_id).settings["plan"] is True              # planned from the start
    assert store.plan_get(work_id, 2) is not None                        # the planner outlined chapter 2 already
    box = f"desk_ms_text_{work_id}_1"
    assert at.text_area(key=box).value == ONE
    at.text_area(key=box).input(ONE + "\n\nA third paragraph.")
    _ok(at.button(key="desk_ms_save").click().run())
    assert store.get_chapter(work_id, 1).revision == 2
    assert any("saved as revision 2" in s.value for s in at.success)

    # this tab edits revision 2 while another tab saves revision 3: the save is refused, the text kept in the box
    at.text_area(key=box).input("My edit.")
    store.update_chapter(work_id, 1, "Elsewhere.", chunk_text("Elsewhere."), 2)
    _ok(at.button(key="desk_ms_save").click().run())
    assert any("Not saved" in e.value for e in at.error)
    assert any("saved elsewhere since you opened it" in w.value for w in at.warning)
    assert at.text_area(key=box).value == "My edit."
    assert store.get_chapter(work_id, 1).text == "Elsewhere."

    # Reload, then restore revision 1 as revision 4
    _ok(at.button(key="desk_ms_reload").click().run())
    assert at.text_area(key=box).value == "Elsewhere."
    at.selectbox(key=f"desk_ms_rev_{work_id}_1").set_value(1)
    _ok(at.button(key="desk_ms_restore").click().run())
    chapter = store.get_chapter(work_id, 1)
    assert (chapter.revision, chapter.text) == (4, ONE)
    assert at.text_area(key=box).value == ONE   # the box shows the restored text


def test_a_failing_model_or_an_empty_plan_stores_nothing(app_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    from views._shared import get_store

    def reply(messages, options) -> str:  # noqa: ANN001
        if "PASSAGE TO REVISE" in messages[-1].content or "planner" in messages[0].content:
            raise LLMError("The model is down.", provider="apptest")
        return ONE
    register_provider("apptest", lambda model, **kw: FakeLLM(reply, model=model), embedded=True)
    monkeypatch.setenv("FABULA_LLM", "apptest:writer")
    get_settings.cache_clear()
    try:
        store = get_store()
        at, work_id = _story_with_one_chapter()
        _ok(at.radio(key="desk_view").set_value("rewrite").run())
        _ok(at.button(key="desk_rw_go").click().run())
        assert any("could not rewrite" in e.value and "nothing was changed" in e.value for e in at.error)
        assert store.get_chapter(work_id, 1).revision == 1

        _ok(at.radio(key="desk_view").set_value("plan").run())
        _ok(at.button(key="desk_plan_replan").click().run())
        assert any("The model is down" in e.value for e in at.error) and store.plan_get(work_id, 2) is None
        assert any("embedded model apptest:writer" in c.value and "Settings" in c.value for c in at.caption)
        _ok(at.button(key="desk_plan_save").click().run())   # empty boxes
        assert any("The plan is empty" in e.value for e in at.error) and store.plan_get(work_id, 2) is None
        at.toggle(key=f"desk_plan_auto_{work_id}").set_value(True)
        _ok(at.run())
        assert store.get_work(work_id).settings["plan"] is True
    finally:
        unregister_provider("apptest")


@pytest.mark.slow   # MiniLM reads the chapter against each beat
def test_a_written_chapter_checked_against_its_plan(writing: list[FakeLLM]) -> None:
    from core.services import plan_service
    at, work_id = _story_with_one_chapter()
    from views._shared import get_store
    plan_service.edit_plan(get_store(), work_id, 1, beats="Elena finds a dragon egg in her field\n"
                                                         "A storm destroys the lighthouse", characters="Elena Voss")
    _ok(at.radio(key="desk_view").set_value("plan").run())
    _ok(at.selectbox(key=f"desk_plan_chapter_{work_id}").set_value(1).run())
    _ok(at.button(key="desk_plan_check").click().run())
    shown = "\n".join(m.value for m in at.markdown)
    assert "found — Elena finds a dragon egg in her field" in shown
    assert "missing — A storm destroys the lighthouse" in shown
    assert any("1 of 2 beats found, 1 of 1 characters present" in c.value for c in at.caption)


def test_bible_search_new_card_and_seed_from_another_work(writing: list[FakeLLM]) -> None:
    from core.domain import NewChapter, WorkKind
    from core.services import bible_service
    from views._shared import get_store
    store = get_store()
    book = store.create_work("The First Book", None, WorkKind.BOOK, {},
                             [NewChapter("One", "Mara Quill sailed north.", ["Mara Quill sailed north."])])
    bible_service.pin(store, book.id, "Mara Quill", "Mara Quill has a scar on her left hand.")
    at, work_id = _story_with_one_chapter()
    _ok(at.radio(key="desk_view").set_value("bible").run())
    at.text_input(key="desk_bible_new_name").input("  Tomas   Voss ")
    at.text_input(key="desk_bible_new_fact").input("")
    _ok(at.button(key="desk_bible_new_pin").click().run())
    assert any("empty" in e.value for e in at.error) and not store.bible_list(work_id)   # nothing stored
    at.text_input(key="desk_bible_new_fact").input("Tomas Voss is Elena's brother.")
    _ok(at.button(key="desk_bible_new_pin").click().run())
    assert [(e.entity, e.text) for e in store.bible_list(work_id)] == [("Tomas Voss", "Tomas Voss is Elena's brother.")]

    at.selectbox(key="desk_seed_from").set_value(book.id)
    _ok(at.button(key="desk_seed_go").click().run())
    assert any("1 card seeded from “The First Book”" in s.value for s in at.success)
    seeded = {(e.entity, e.kind) for e in store.bible_list(work_id)}
    assert {("Mara Quill", "note"), ("Mara Quill", "pin")} <= seeded
    at.text_input(key="desk_bible_q").input("quill")
    _ok(at.run())
    assert at.selectbox(key=f"desk_bible_card_{work_id}").options == ["Mara Quill"]
    (pin,) = [e for e in store.bible_list(work_id, "Mara Quill") if e.kind == "pin"]
    assert at.text_input(key=f"desk_pin_{pin.id}").value == "Mara Quill has a scar on her left hand."


def test_paragraphs_are_cut_at_blank_lines_else_at_lines() -> None:
    from views._desk_rewrite import paragraphs
    text = "  First one.\nstill first.\n\n\n  Second.  \n"
    assert [text[a:b] for a, b in paragraphs(text)] == ["First one.\nstill first.", "Second."]
    lines = "One line.\nAnother line.\nA third."
    assert [lines[a:b] for a, b in paragraphs(lines)] == ["One line.", "Another line.", "A third."]
    assert paragraphs("   \n\n ") == [] and [("x"[a:b]) for a, b in paragraphs("x")] == ["x"]
