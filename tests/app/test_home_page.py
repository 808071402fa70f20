"""AppTest on the first page, through app.py: what Fabula is, the three starts, which features need a stronger model
(with the way to Settings), and the uploader's limit that the import really applies."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.conftest import ROOT, page


def _app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def _store():  # noqa: ANN202
    from views._shared import get_store
    return get_store()


def test_home_is_the_first_page_with_three_starts(app_db: str) -> None:
    at = _app()
    assert [t.value for t in at.title] == ["Fabula"]
    assert "Welcome" in at.markdown[0].value
    labels = {b.label for b in at.button}
    assert {"Open A Christmas Carol", "Import a book", "Start a story"} <= labels
    said = "\n".join(m.value for m in at.markdown)
    assert "need a stronger model" in said and "Summaries" in said and "Answers" in said
    assert any("Settings" in c.value for c in at.caption)


def test_the_sample_start_opens_it_in_the_reader_even_after_a_delete(app_db: str) -> None:
    at = _app()
    sample = [w for w in _store().list_works() if w.title == "A Christmas Carol"][0]
    at.button(key="home_sample").click().run()
    assert not at.exception, at.exception
    assert at.session_state["work_id"] == sample.id and at.session_state["read_chapter"] == 1
    assert [t.value for t in at.title] == ["Read"]

    _store().delete_work(sample.id)
    at.switch_page("views/home.py").run()
    assert any("is not in your library" in c.value for c in at.caption)
    at.button(key="home_sample").click().run()  # imported again
    again = [w for w in _store().list_works() if w.title == "A Christmas Carol"]
    assert len(again) == 1 and at.session_state["work_id"] == again[0].id


def test_the_import_and_story_starts_open_their_forms(app_db: str) -> None:
    at = _app()
    at.button(key="home_import").click().run()
    assert [t.value for t in at.title] == ["Library"]
    assert at.expander[0].proto.expanded, "the import form is open"
    at.switch_page("views/home.py").run()
    at.button(key="home_story").click().run()
    assert [t.value for t in at.title] == ["Write"]
    assert at.expander[0].proto.expanded, "the new-story form is open"


def test_the_uploader_says_the_limit_the_import_applies(app_db: str, monkeypatch) -> None:  # noqa: ANN001
    from core.config import get_settings
    at = AppTest.from_file(page("library.py"), default_timeout=30).run()
    assert at.file_uploader[0].proto.max_upload_size_mb == get_settings().max_upload_mb == 25
    monkeypatch.setenv("FABULA_MAX_UPLOAD_MB", "40")
    get_settings.cache_clear()
    at = AppTest.from_file(page("library.py"), default_timeout=30).run()
    assert at.file_uploader[0].proto.max_upload_size_mb == 40


def test_a_one_line_text_imports(app_db: str) -> None:
    at = AppTest.from_file(page("library.py"), default_timeout=30).run()
    at.file_uploader[0].upload("note.txt", b"The keeper lit the lamp.", "text/plain")
    [b for b in at.button if b.label == "Import"][0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    works = _store().list_works()
    assert [(w.title, w.chapter_count) for w in works] == [("Note", 1)]


def test_the_library_sends_a_new_story_to_the_write_form(app_db: str) -> None:
    """A story made by the Library's own form had no arc: the Write page took it for a book (no chapter to generate,
    150 tokens for a continuation). The Library now opens the Write page's form."""
    at = _app()
    at.switch_page("views/library.py").run()
    at.button(key="library_new_story").click().run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Write"] and at.expander[0].proto.expanded
