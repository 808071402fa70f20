"""AppTest on the Retention page: first analysis with progress, charts, heatmap, dropped threads, comparison, CSV."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from tests.app.conftest import page

CHAPTERS = [
    ("One", "Anna Marsh met Tom Reed at the harbour. Anna Marsh thanked Tom Reed. Tom Reed smiled at Anna Marsh."),
    ("Two", "Tom Reed sailed north with Anna Marsh. Anna Marsh watched Tom Reed from the deck."),
    ("Three", "Anna Marsh wrote a letter. Mara Quill read it aloud."),
    ("Four", "Anna Marsh walked alone on the pier. Mara Quill waved to Anna Marsh."),
    ("Five", "Anna Marsh lit the lamp. Mara Quill slept."),
]


def _store():  # noqa: ANN202
    from views._shared import get_store
    return get_store()


def _work(title: str, chapters=CHAPTERS) -> int:  # noqa: ANN001
    return _store().create_work(title, None, WorkKind.STORY, {},
                                [NewChapter(t, x, [x]) for t, x in chapters]).id


def _open() -> AppTest:
    at = AppTest.from_file(page("dashboard.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def test_empty_library(app_db: str) -> None:
    at = _open()
    assert any("library is empty" in i.value for i in at.info)


def test_first_visit_reads_the_chapters_then_shows_everything(app_db: str) -> None:
    from core.services import retention_service as retention
    work_id = _work("Harbour")
    at = _open()
    assert len(at.status) == 1 and at.status[0].state == "complete"  # progress shown while reading
    assert retention.stale_chapters(_store(), work_id) == []  # and every chapter was stored
    assert len(at.tabs) == 2 and [t.label for t in at.tabs] == ["Characters", "Relationships"]
    assert len(at.get("vega_lite_chart")) == 5  # two charts per tab, and the presence map
    # Tom Reed: in chapters 1-2 (5 mentions), gone for chapters 3-5. Not prominent by the defaults (3 chapters
    # or 10 mentions); with 5 mentions enough, dropped when K < 3
    assert any("No prominent characters" in s.value for s in at.success)
    at.number_input(key="dropped_mentions").set_value(5)
    at.slider(key="dropped_k").set_value(2).run()
    assert not at.exception, at.exception
    dropped = at.dataframe[0].value
    assert list(dropped["thread"]) == ["Tom Reed"]
    assert (dropped["last seen"][0], dropped["absent for"][0]) == (2, 3)
    at.slider(key="dropped_k").set_value(3).run()
    assert any("No prominent characters" in s.value for s in at.success)
    assert [b.label for b in at.download_button] == ["Download per-chapter metrics (CSV)"]

    again = _open()  # nothing left to read: no progress box the second time
    assert len(again.status) == 0


def test_a_second_reading_says_what_was_read_before(app_db: str) -> None:
    """Seen on Pride and Prejudice: "Read 45 chapters" for a book of 61, the other 16 read by an earlier visit."""
    from core.services import retention_service as retention
    work_id = _work("Harbour")
    retention.extract_work(_store(), work_id)
    text = CHAPTERS[1][1] + " Mara Quill waved."
    _store().update_chapter(work_id, 2, text, [text], expected_revision=1)
    at = _open()
    assert at.status[0].label == "Read 1 chapter (the other 4 chapters read before)"


def test_relationships_view_and_comparison(app_db: str) -> None:
    _work("Harbour")
    other = _work("Drift", CHAPTERS[:2])
    at = _open()
    at.radio(key="kind").set_value("relationships").run()
    assert not at.exception, at.exception
    at.selectbox(key="compare_with").set_value(other).run()
    assert not at.exception, at.exception
    tables = [d.value for d in at.dataframe]
    character_table = next(t for t in tables if "Metric" in t and "Total Characters" in set(t["Metric"]))
    assert list(character_table["n (A)"])[:2] == [5, 5] and list(character_table["n (B)"])[:2] == [2, 2]
    assert any("Cohen" in c for t in tables for c in t.columns)
    assert "Download comparison (CSV)" in [b.label for b in at.download_button]


def test_book_text_is_escaped(app_db: str) -> None:
    _work("**Bold** <img src=x onerror=alert(1)>", CHAPTERS[:1])
    other = _work("Plain", CHAPTERS[:1])
    at = _open()
    at.selectbox(key="compare_with").set_value(other).run()
    caption = next(c.value for c in at.caption if c.value.startswith("A = "))
    assert "\\*\\*Bold\\*\\*" in caption and "\\<img" in caption
