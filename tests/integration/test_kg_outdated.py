"""A graph built by an older offline extractor is read again by the next build (and the status says so)."""
from __future__ import annotations

from core.domain import NewChapter, WorkKind
from core.kg.offline import VERSION
from core.services import kg_service
from storage.repository import SqlStore

TEXT = "Manuel was one of the gardener's helpers. He sold Buck to a stranger. Thornton said nothing to Manuel."


def test_chapters_from_an_older_extractor_are_read_again(tmp_path) -> None:  # noqa: ANN001
    store = SqlStore.from_url(f"sqlite:///{tmp_path / 'f.db'}")
    work = store.create_work("Tiny", None, WorkKind.BOOK, {}, [])
    store.add_chapter(work.id, NewChapter("One", TEXT, [TEXT]))
    first = kg_service.build_graph(store, work.id)
    assert first.extracted == 1
    assert kg_service.graph_status(store, work.id).up_to_date
    assert store.kg_chapter_stats(work.id)[1]["version"] == VERSION
    again = kg_service.build_graph(store, work.id)
    assert again.extracted == 0                              # nothing changed: nothing re-read

    with store.session() as s:  # the chapter as an older build stored it: no version in its stats
        from storage.models_kg import KgChapterRow
        row = s.query(KgChapterRow).one()
        row.stats = {k: v for k, v in row.stats.items() if k != "version"}
    status = kg_service.graph_status(store, work.id)
    assert status.outdated == [1] and not status.up_to_date and not status.pending
    third = kg_service.build_graph(store, work.id)
    assert third.extracted == 1
    assert kg_service.graph_status(store, work.id).up_to_date
    store.engine.dispose()
