"""The Retention page reads no chapter again after a graph build: the build stores each chapter's retention mentions
from its own parse (core.kg.offline's `also`), as the Retention page's own reading would have found them; a chapter
edited after the build is read again, and only that one."""
from __future__ import annotations

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.metrics.extract import ChapterMentions, extract_chapters
from core.services import kg_service
from core.services import retention_service as retention

STORY = [
    "Anna Grey walked down Front Street with her dog. Curly, a good-natured Newfoundland, ran ahead of her. "
    "Curly barked at the gulls, and Anna Grey laughed at Curly. Thomas Reed waited on Front Street.\n\n"
    "Thomas Reed called Anna Grey to the boat. Anna Grey followed Thomas Reed.",
    "Thomas Reed met Anna Grey at the harbour. Curly growled at Thomas Reed, and Thomas Reed gave Anna Grey a "
    "letter from London. Mary Lane read it aloud to Anna Grey.",
]


def test_a_graph_build_leaves_nothing_for_the_retention_page_to_read(store) -> None:  # noqa: ANN001
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(STORY, start=1)]
    work_id = store.create_work("Front Street", None, WorkKind.STORY, {}, chapters).id
    assert retention.stale_chapters(store, work_id) == [1, 2]
    kg_service.build_graph(store, work_id)
    assert retention.stale_chapters(store, work_id) == []
    stored = {i: ChapterMentions.from_payload(p) for i, (_, p) in
              store.get_analyses(work_id, retention.ANALYSIS_KIND).items()}
    fresh = dict(extract_chapters([(i, t) for i, t in enumerate(STORY, start=1)]))
    for i in (1, 2):   # what the page's own parse finds
        assert stored[i] is not None
        assert stored[i].persons() == fresh[i].persons() and stored[i].persons() >= {"Anna Grey", "Thomas Reed"}
        assert sorted(stored[i].verb_links) == sorted(fresh[i].verb_links)
        assert stored[i].sentences == fresh[i].sentences
    result = retention.analyse_work(store, work_id)
    assert result.recomputed == [] and result.from_graph

    edited = STORY[1] + " Mary Lane smiled at Curly."
    store.update_chapter(work_id, 2, edited, chunk_text(edited), store.get_chapter(work_id, 2).revision)
    assert retention.stale_chapters(store, work_id) == [2]
    assert retention.analyse_work(store, work_id).recomputed == [2]
