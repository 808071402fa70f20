"""Retention and the Graph page name the same characters (issue 37): both read core.kg.characters, so a dog the graph
calls a character is one in Retention, and a street, an oath or a revolver the graph does not is none in either; on
a small story and on the first chapters of The Call of the Wild."""
from __future__ import annotations

import re

import pytest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.kg.characters import characters
from core.services import kg_service, kg_views
from core.services import retention_service as retention
from tests.conftest import novel_path

STORY = [
    "Anna Grey walked down Front Street with her dog. Curly, a good-natured Newfoundland, ran ahead of her. "
    "Curly barked at the gulls, and Anna Grey laughed at Curly. Thomas Reed waited on Front Street.",
    "Thomas Reed met Anna Grey at the harbour. “Sacredam!” cried the sailor. Curly growled at Thomas Reed, and "
    "Thomas Reed gave Anna Grey a letter from London.",
]


def _work(store, texts: list[str], title: str) -> int:  # noqa: ANN001
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(texts, start=1)]
    return store.create_work(title, None, WorkKind.STORY, {}, chapters).id


def _graph_page_characters(store, work_id: int) -> dict[str, int]:  # noqa: ANN001
    """The characters the Graph page knows (every node typed character, drawn or listed beside), with mentions."""
    view = kg_views.build_view(kg_views.load_graph_data(store, work_id), kg_views.ViewParams(top_characters=None))
    return {d["label"]: d["mentions"] for _, d in view.full.nodes(data=True) if d["type"] == "character"}


def _retention_characters(result: retention.WorkRetention) -> dict[str, int]:
    totals: dict[str, int] = {}
    for c in result.chapters:
        for name, n in c.character_counts.items():
            totals[name] = totals.get(name, 0) + n
    return totals


def test_a_small_story(store) -> None:  # noqa: ANN001
    work_id = _work(store, STORY, "Front Street")
    kg_service.build_graph(store, work_id)
    graph = _graph_page_characters(store, work_id)
    assert {"Anna Grey", "Thomas Reed", "Curly"} <= set(graph), graph
    assert "Front Street" not in graph and "Sacredam" not in graph
    result = retention.analyse_work(store, work_id)
    assert result.from_graph
    assert _retention_characters(result) == graph     # the same characters, counted the same
    assert [e.label for e in characters(store.kg_entities(work_id))] == sorted(graph, key=lambda n: (-graph[n], n))


@pytest.mark.slow
def test_the_first_chapters_of_a_book(store) -> None:  # noqa: ANN001
    text = novel_path("the_call_of_the_wild_pg215.txt").read_text(encoding="utf-8")
    parts = re.split(r"\nChapter [IVX]+\.[^\n]*\n", text)[1:4]   # chapters I-III
    work_id = _work(store, parts, "The Call of the Wild, I-III")
    kg_service.build_graph(store, work_id)
    graph = _graph_page_characters(store, work_id)
    result = retention.analyse_work(store, work_id)
    counted = _retention_characters(result)
    assert counted == graph
    top = [t for t in result.presence("characters", top=20).threads]
    assert top == sorted(graph, key=lambda n: (-graph[n], n))[:20]
    assert {"Buck", "Perrault", "Spitz", "Curly"} <= set(top), top
    assert not {"Mush", "Colt", "Gar", "Sacredam"} & set(counted)
