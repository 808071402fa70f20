"""The Retention page says whose characters it counts (issue 37): the knowledge graph's, as the Graph page shows them,
once the work has a graph; spaCy's people, with the way to the graph, until then. Its presence rows are the graph's
characters: a dog the graph calls a character is listed, a street is not."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from tests.app.conftest import page

STORY = [
    "Anna Grey walked down Front Street with her dog. Curly, a good-natured Newfoundland, ran ahead of her. "
    "Curly barked at the gulls, and Anna Grey laughed at Curly. Thomas Reed waited on Front Street.",
    "Thomas Reed met Anna Grey at the harbour. Curly growled at Thomas Reed, and Thomas Reed gave Anna Grey a letter.",
]


def _work() -> int:
    from views._shared import get_store
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(STORY, start=1)]
    return get_store().create_work("Front Street", None, WorkKind.STORY, {}, chapters).id


def _open() -> AppTest:
    at = AppTest.from_file(page("dashboard.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
def test_retention_counts_the_graphs_characters_and_says_so(app_db: str) -> None:
    from core.services import kg_service, retention_service
    from views._shared import get_store
    work_id = _work()
    at = _open()
    assert any("no knowledge graph yet" in i.value for i in at.info)        # spaCy's people until the graph
    kg_service.build_graph(get_store(), work_id)
    at = _open()
    assert any("knowledge graph's characters" in c.value for c in at.caption)
    threads = retention_service.analyse_work(get_store(), work_id).presence("characters").threads
    assert "Curly" in threads and "Front Street" not in threads
