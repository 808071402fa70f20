"""AppTest on the Graph page's chapter slider (issue 16): after a build adds chapters, or when another work is
opened, it stands at the graph's last chapter; a position the user chose is kept while a build goes on."""
from __future__ import annotations

import pytest

from core.domain import NewChapter
from core.ingest import chunk_text
from tests.app.test_graph_page import CHAPTERS, _open, _store, _work


def _build(work_id: int) -> None:
    from core.services.kg_service import build_graph
    build_graph(_store(), work_id)


def _add(work_id: int, text: str) -> None:
    _store().add_chapter(work_id, NewChapter("More", text, chunk_text(text)))


@pytest.mark.slow
def test_the_slider_follows_the_builds_last_chapter_unless_moved(app_db: str) -> None:
    work_id = _work(CHAPTERS[:1])
    _build(work_id)
    at = _open()  # one chapter built: no slider yet
    _add(work_id, CHAPTERS[1])
    _build(work_id)
    at.run()
    assert at.slider(key="kg_as_of").value == 2
    _add(work_id, CHAPTERS[2])
    _build(work_id)
    at.run()
    assert at.slider(key="kg_as_of").value == 3, "after the build, the slider is at the last chapter built"
    at.slider(key="kg_as_of").set_value(1).run()
    _add(work_id, CHAPTERS[0])
    _build(work_id)
    at.run()
    assert at.slider(key="kg_as_of").value == 1, "a chapter the user chose is kept"


@pytest.mark.slow
def test_another_work_opens_at_its_last_chapter(app_db: str) -> None:
    short, long = _work(CHAPTERS[:2], "Short"), _work(CHAPTERS * 2, "Long")
    _build(short)
    _build(long)
    at = _open()
    at.selectbox(key="picker_Work").set_value(short).run()
    at.slider(key="kg_as_of").set_value(1).run()
    at.selectbox(key="picker_Work").set_value(long).run()
    assert at.slider(key="kg_as_of").value == 6
