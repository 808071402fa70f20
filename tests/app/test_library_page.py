"""AppTest on the Library page: upload, list, rename, delete; a bad file shows a message and changes nothing."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.conftest import page

STORY = ("Chapter 1\n\nAnna walked to the harbour and watched the boats. " * 30 +
         "\n\nChapter 2\n\nThe storm came in the night, and Anna lit the lamp. " * 30).encode()


def _open(timeout: float = 30) -> AppTest:
    at = AppTest.from_file(page("library.py"), default_timeout=timeout)
    at.run()
    assert not at.exception, at.exception
    return at


def _store():
    from pages._shared import get_store
    return get_store()


def test_upload_lists_the_book(app_db: str) -> None:
    at = _open()
    assert any("No works yet" in i.value for i in at.info)
    at.file_uploader[0].upload("harbour_story.txt", STORY, "text/plain")
    at.text_input[0].input("The Harbour")
    submit = [b for b in at.button if b.label == "Import"][0]
    submit.click().run()
    assert not at.exception, at.exception
    works = _store().list_works()
    assert [w.title for w in works] == ["The Harbour"]
    assert works[0].chapter_count == 2
    assert any("The Harbour" in m.value for m in at.markdown)
    assert any("2 chapters" in c.value for c in at.caption)


def test_bad_upload_shows_error_and_saves_nothing(app_db: str) -> None:
    at = _open()
    before = _store().table_counts()
    at.file_uploader[0].upload("cover.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20, "text/plain")
    [b for b in at.button if b.label == "Import"][0].click().run()
    assert not at.exception, at.exception
    assert len(at.error) == 1 and "cover" in at.error[0].value and "PNG image" in at.error[0].value
    assert _store().table_counts() == before


def test_rename_and_delete_with_confirmation(app_db: str) -> None:
    from core.services import library
    work = library.import_book(_store(), "story.txt", STORY, title="Old Title")
    at = _open()
    at.text_input(key=f"title_{work.id}").input("New Title")
    at.button(key=f"rename_{work.id}").click().run()
    assert _store().get_work(work.id).title == "New Title"
    at.button(key=f"delete_{work.id}").click().run()
    assert _store().list_works(), "nothing is deleted before the confirmation"
    at.button(key="confirm_delete").click().run()
    assert not at.exception, at.exception
    assert _store().list_works() == []
