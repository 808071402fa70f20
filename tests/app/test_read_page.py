"""AppTest on the Read page: a chapter is shown, next/previous move through the book, book text stays text."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from tests.app.conftest import page


def _store():
    from views._shared import get_store
    return get_store()


def test_read_and_navigate(app_db: str) -> None:
    chapters = [NewChapter(title=f"Chapter {i}", text=f"Para one of chapter {i}.\n\nPara two <b>{i}</b> *x*.",
                           chunks=[f"Para one of chapter {i}."]) for i in (1, 2, 3)]
    work = _store().create_work("Three", None, WorkKind.BOOK, {}, chapters)
    at = AppTest.from_file(page("read.py"), default_timeout=30)
    at.session_state["work_id"] = work.id
    at.run()
    assert not at.exception, at.exception
    assert any("Para one of chapter 1" in m.value for m in at.markdown)
    at.button(key="next_chapter").click().run()
    assert any("Para one of chapter 2" in m.value for m in at.markdown)
    # markup in book text is escaped, never interpreted
    assert any("\\<b\\>2\\</b\\>" in m.value for m in at.markdown)
    # but *emphasis* (the italics a Word import keeps) is shown as italics
    assert any("\\</b\\> *x*\\." in m.value for m in at.markdown)
    at.button(key="prev_chapter").click().run()
    assert any("Para one of chapter 1" in m.value for m in at.markdown)


def _editing(work_id: int) -> AppTest:
    at = AppTest.from_file(page("read.py"), default_timeout=30)
    at.session_state["work_id"] = work_id
    at.run()
    at.toggle(key="read_editing").set_value(True).run()
    assert not at.exception, at.exception
    return at


def _texts(work_id: int, index: int) -> list[str]:
    return [text for _, _, text in _store().chapter_revisions(work_id, index)]


def test_edit_a_chapter_in_place_keeps_every_revision(app_db: str) -> None:
    original = "The first paragraph.\n\nThe second paragraph."
    work = _store().create_work("Editable", None, WorkKind.BOOK, {},
                                [NewChapter("One", original, [original]), NewChapter("Two", "Other.", ["Other."])])
    at = _editing(work.id)
    editor = at.text_area(key=f"read_edit_text_{work.id}_1")
    assert editor.value == original  # the editor opens on the saved text
    edited = "The first paragraph, rewritten.\n\nA new ending with Zebulon."
    editor.input(edited)
    at.button(key="read_edit_save").click().run()
    assert not at.exception, at.exception
    chapter = _store().get_chapter(work.id, 1)
    assert chapter.text == edited and chapter.revision == 2
    assert _texts(work.id, 1) == [original, edited]  # the earlier text stays in the history
    assert [c.text for c in _store().list_chunks(work.id) if c.chapter_id == chapter.id] == [
        "The first paragraph, rewritten.\n\nA new ending with Zebulon."]  # passages re-cut from the new text
    assert any("Saved as revision 2" in s.value for s in at.success)
    assert not at.toggle(key="read_editing").value  # the editor closed; the reader shows the new text
    assert any("A new ending with Zebulon" in m.value for m in at.markdown)
    assert "revision 2" in " ".join(c.value for c in at.caption)


def test_a_save_from_a_stale_copy_is_refused_and_the_typed_text_kept(app_db: str) -> None:
    work = _store().create_work("Shared", None, WorkKind.BOOK, {}, [NewChapter("One", "Base text.", ["Base text."])])
    at = _editing(work.id)
    key = f"read_edit_text_{work.id}_1"
    at.text_area(key=key).input("My careful edit.").run()
    other = _store().update_chapter(work.id, 1, "Their edit.", ["Their edit."], expected_revision=1)  # another tab
    assert other.revision == 2
    at.button(key="read_edit_save").click().run()
    assert not at.exception, at.exception
    errors = " ".join(e.value for e in at.error)
    assert "changed since you opened it" in errors and "revision 2" in errors
    assert at.text_area(key=key).value == "My careful edit."  # nothing typed is lost
    assert _store().get_chapter(work.id, 1).text == "Their edit."  # the first save is kept
    assert _texts(work.id, 1) == ["Base text.", "Their edit."]
    at.run()  # a later rerun still warns before a second try, and still keeps the text
    assert at.text_area(key=key).value == "My careful edit."
    assert any("saved elsewhere since you started editing" in w.value for w in at.warning)
    at.button(key="read_edit_reload").click().run()
    assert at.text_area(key=key).value == "Their edit."
    at.text_area(key=key).input("Their edit, then mine.")
    at.button(key="read_edit_save").click().run()
    assert _texts(work.id, 1) == ["Base text.", "Their edit.", "Their edit, then mine."]


def test_an_unopened_editor_follows_a_save_made_elsewhere(app_db: str) -> None:
    work = _store().create_work("Shared", None, WorkKind.BOOK, {}, [NewChapter("One", "Base text.", ["Base text."])])
    at = _editing(work.id)
    _store().update_chapter(work.id, 1, "Their edit.", ["Their edit."], expected_revision=1)
    at.run()  # nothing typed yet: the editor shows the new revision, and saving from it works
    key = f"read_edit_text_{work.id}_1"
    assert at.text_area(key=key).value == "Their edit." and not at.warning
    at.text_area(key=key).input("Mine on top.")
    at.button(key="read_edit_save").click().run()
    assert _store().get_chapter(work.id, 1).text == "Mine on top."


def test_an_empty_edit_is_refused(app_db: str) -> None:
    work = _store().create_work("Keep", None, WorkKind.BOOK, {}, [NewChapter("One", "Keep me.", ["Keep me."])])
    at = _editing(work.id)
    at.text_area(key=f"read_edit_text_{work.id}_1").input("  \n\n ")
    at.button(key="read_edit_save").click().run()
    assert any("empty" in e.value for e in at.error)
    assert _texts(work.id, 1) == ["Keep me."]


def _book(title: str, n: int = 3) -> int:
    chapters = [NewChapter(title=f"Chapter {i}", text=f"{title} text of chapter {i}.", chunks=[f"{title} {i}."])
                for i in range(1, n + 1)]
    return _store().create_work(title, None, WorkKind.BOOK, {}, chapters).id


def test_the_open_work_and_chapter_live_in_the_url_so_a_reload_keeps_them(app_db: str) -> None:
    """Issue 37, rough edge 3: a reload forgot the open work (every page went back to the sample book)."""
    first, second = _book("Alpha"), _book("Beta")
    at = AppTest.from_file(page("read.py"), default_timeout=30)
    at.run()
    at.selectbox(key="picker_Work").set_value(second).run()
    at.button(key="next_chapter").click().run()
    assert at.query_params["work"] == str(second) and at.query_params["chapter"] == "2"
    # a reload: a new session (no state) on the same URL opens Beta at chapter 2, on any page
    for name in ("read.py", "ask.py", "graph.py", "summaries.py", "write.py", "dashboard.py"):
        again = AppTest.from_file(page(name), default_timeout=30)
        again.query_params.update({"work": str(second), "chapter": "2"})
        again.run()
        assert not again.exception, (name, again.exception)
        assert again.selectbox(key="picker_Work").value == second, name
        assert again.session_state["work_id"] == second, name
    reread = AppTest.from_file(page("read.py"), default_timeout=30)
    reread.query_params.update({"work": str(second), "chapter": "2"})
    reread.run()
    assert any("Beta text of chapter 2" in m.value for m in reread.markdown)
    # once open, the session's own choice rules: picking another work is not undone by the old URL
    reread.selectbox(key="picker_Work").set_value(first).run()
    assert reread.session_state["work_id"] == first and reread.query_params["work"] == str(first)
    # a link to a work that is not there says so and opens another
    stale = AppTest.from_file(page("ask.py"), default_timeout=30)
    stale.query_params["work"] = "999"
    stale.run()
    assert any("not in your library" in w.value for w in stale.warning)


def test_a_work_opened_by_code_logs_no_session_state_warning(app_db: str, state_warnings: list[str]) -> None:
    """A work opened by code (an import, a new story) and then the picker drawn printed Streamlit's "created with a
    default value but also had its value set via the Session State API" warning, with a stack, in the server log."""
    first, second = _book("Alpha"), _book("Beta")
    at = AppTest.from_file(page("read.py"), default_timeout=30)
    at.run()
    assert at.selectbox(key="picker_Work").value == first
    at.session_state["_work_picked"] = second   # what views._shared.select_work does
    at.session_state["work_id"] = second
    at.run()
    assert not at.exception
    assert at.selectbox(key="picker_Work").value == second
    assert not state_warnings
