"""AppTest on the Read page: a chapter is shown, next/previous move through the book, book text stays text."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from tests.app.conftest import page


def _store():
    from pages._shared import get_store
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
    at.button(key="prev_chapter").click().run()
    assert any("Para one of chapter 1" in m.value for m in at.markdown)
