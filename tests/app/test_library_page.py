"""AppTest on the Library page: upload, list, rename, delete; a bad file shows a message and changes nothing."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.conftest import ROOT, page

STORY = ("Chapter 1\n\nAnna walked to the harbour and watched the boats. " * 30 +
         "\n\nChapter 2\n\nThe storm came in the night, and Anna lit the lamp. " * 30).encode()


def _open(timeout: float = 30) -> AppTest:
    at = AppTest.from_file(page("library.py"), default_timeout=timeout)
    at.run()
    assert not at.exception, at.exception
    return at


def _store():
    from views._shared import get_store
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


def _upload(at: AppTest, name: str, data: bytes) -> None:
    at.file_uploader[0].upload(name, data, "text/plain")
    [b for b in at.button if b.label == "Import"][0].click().run()
    assert not at.exception, at.exception


def test_importing_the_same_file_again_asks_to_open_it_or_import_a_copy(app_db: str) -> None:
    # Through app.py, so that "Open the existing work" can switch to the Read page (the sample book is seeded too).
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/library.py").run()  # the app opens on Home
    assert not at.exception, at.exception
    before = len(_store().list_works())
    _upload(at, "harbour_story.txt", STORY)
    first = _store().list_works()[-1]
    _upload(at, "harbour_story.txt", STORY)
    assert len(_store().list_works()) == before + 1, "nothing is imported before the user chooses"
    question = [w.value for w in at.warning if "already in the library" in w.value]
    assert question and f"#{first.id}" in question[0]
    at.button(key="duplicate_copy").click().run()
    assert not at.exception, at.exception
    works = _store().list_works()
    assert len(works) == before + 2 and works[-1].chapter_count == first.chapter_count
    assert not [w for w in at.warning if "already in the library" in w.value]

    _upload(at, "harbour_story.txt", STORY)  # once more: cancel keeps the library as it is
    at.button(key="duplicate_cancel").click().run()
    assert len(_store().list_works()) == before + 2 and "pending_import" not in at.session_state
    assert not [w for w in at.warning if "already in the library" in w.value]

    _upload(at, "copy of the harbour.txt", STORY)  # another name, the same bytes: still the same book
    at.button(key="duplicate_open").click().run()
    assert not at.exception, at.exception
    assert at.session_state["work_id"] == first.id and len(_store().list_works()) == before + 2
    assert not [b for b in at.button if b.label == "Import"], "the Read page is shown, not the Library"


def test_a_different_file_is_imported_without_a_question(app_db: str) -> None:
    at = _open()
    _upload(at, "harbour_story.txt", STORY)
    _upload(at, "harbour_story_2.txt", STORY + b"\n\nOne more line at the end of the book.")
    assert len(_store().list_works()) == 2
    assert not [w for w in at.warning if "already in the library" in w.value]


def test_a_large_import_runs_in_the_background_and_its_work_appears(app_db: str, monkeypatch) -> None:  # noqa: ANN001
    """A large file imports in the background worker: the page (and a second tab) shows it running, then its
    outcome with the new work listed and an Open button that opens it in the reader."""
    import threading

    from core.services import imports, library
    from tests.app.conftest import finish_jobs
    gate, real_run = threading.Event(), imports._run

    def gated_run(*args):  # noqa: ANN002, ANN202 - holds the import until the test has looked at it
        assert gate.wait(30), "the test never let the import go"
        real_run(*args)

    monkeypatch.setattr(imports, "LARGE_BYTES", 0)   # this small file counts as large
    monkeypatch.setattr(imports, "_run", gated_run)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/library.py").run()
    at.file_uploader[0].upload("harbour_story.txt", STORY, "text/plain")
    at.text_input[0].input("The Harbour")
    [b for b in at.button if b.label == "Import"][0].click().run()
    assert not at.exception, at.exception
    running = [s.label for s in at.status if s.label.startswith(r"Importing harbour\_story\.txt — started")]
    assert running, [s.label for s in at.status]   # the name as plain() escapes it for markdown
    assert "The Harbour" not in [w.title for w in _store().list_works()]
    tab = _open()   # a second tab sees the same import
    assert any(s.label.startswith("Importing harbour") for s in tab.status)

    gate.set()
    finish_jobs(at)
    assert not at.exception, at.exception
    work = [w for w in _store().list_works() if w.title == "The Harbour"][0]
    assert any(s.label.startswith("Imported “The Harbour”: 2 chapters") for s in at.status)
    assert any("The Harbour" in m.value for m in at.markdown)
    at.button(key=f"import_open_{library.content_hash(STORY)[:16]}").click().run()
    assert not at.exception, at.exception
    assert at.session_state["work_id"] == work.id
    assert not [b for b in at.button if b.label == "Import"], "the Read page is shown, not the Library"
    assert imports.list_imports(_store()) == [], "opened: the outcome is dismissed"


def test_a_large_file_that_fails_shows_its_message_and_saves_nothing(app_db: str, monkeypatch) -> None:  # noqa: ANN001
    from core.services import imports
    from tests.app.conftest import finish_jobs
    monkeypatch.setattr(imports, "LARGE_BYTES", 0)
    at = _open()
    before = _store().table_counts()
    _upload(at, "cover.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20)
    finish_jobs(at)
    assert not at.exception, at.exception
    assert any(s.label.startswith("Import of cover") and "nothing was saved" in s.label for s in at.status)
    assert len(at.error) == 1 and "PNG image" in at.error[0].value
    assert _store().table_counts() == before
    [b for b in at.button if b.label == "Dismiss"][0].click().run()
    assert not at.status and imports.list_imports(_store()) == []
