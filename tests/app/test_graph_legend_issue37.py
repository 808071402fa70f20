"""Issue 37's "All entities" rough edges on the Graph page: a legend for every line style drawn, positions packed so
the drawing runs no physics, and no label cut short (the "Show the whole graph" button and the list of unrelated
entities no longer sit in narrow columns)."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from tests.app.conftest import page

CHAPTERS = [
    "Anna Grey walked to the harbour with Thomas Reed. Anna Grey met Thomas Reed at the gate of the harbour. "
    "Thomas Reed gave Anna Grey a letter from London.",
    "Captain Hale sailed from London to Lisbon. Anna Grey wrote to Captain Hale about the storm. "
    "Captain Hale answered Anna Grey from Lisbon.",
    "Maria Lopez slept all day.",
]


def _setup() -> int:
    from core.services import kg_service
    from views._shared import get_store
    store = get_store()
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(CHAPTERS, start=1)]
    work_id = store.create_work("The Harbour", None, WorkKind.STORY, {}, chapters).id
    kg_service.build_graph(store, work_id)
    return work_id


def _drawing(at: AppTest) -> dict:
    (component,) = at.get("component_instance")
    return json.loads(component.proto.json_args)


def _in_a_column(at: AppTest, kind: str, key: str) -> bool:
    return any(getattr(w, "key", None) == key for column in at.columns for w in getattr(column, kind))


@pytest.mark.slow
def test_all_entities_has_a_line_legend_positions_and_uncut_labels(app_db: str) -> None:
    _setup()
    at = AppTest.from_file(page("graph.py"), default_timeout=120)
    at.run()
    at.radio(key="kg_mode").set_value("all").run()
    assert not at.exception, at.exception
    drawing = _drawing(at)
    styles = {(item["style"], item["text"]) for item in drawing["line_legend"]}
    assert ("solid", "a verb joins them (thicker: more often)") in styles
    assert all({"x", "y"} <= set(n) for n in drawing["nodes"]) and drawing["options"]["physics"]["enabled"] is False
    # Maria Lopez is related to no one: listed under the drawing, full width, its columns named in full
    assert any("Related to no one shown" in c.value for c in at.caption)
    (table,) = [d for d in at.dataframe if getattr(d, "key", None) == "kg_isolated"] or [None]
    assert table is not None and "Maria Lopez" in list(table.value["entity"])
    assert not _in_a_column(at, "dataframe", "kg_isolated")
    assert "first chapter" in json.dumps(table.proto.columns)


@pytest.mark.slow
def test_the_show_the_whole_graph_button_is_not_squeezed(app_db: str) -> None:
    from views._state import GraphHighlight
    work_id = _setup()
    from views._shared import get_store
    ids = tuple(e.id for e in get_store().kg_entities(work_id))[:2]
    at = AppTest.from_file(page("graph.py"), default_timeout=120)
    at.session_state["work_id"] = work_id
    at.session_state["kg_highlight"] = GraphHighlight(work_id, "Who met Anna?", 3, ids)
    at.run()
    assert not at.exception, at.exception
    assert at.button(key="kg_clear_highlight").label == "Show the whole graph"
    assert not _in_a_column(at, "button", "kg_clear_highlight")   # in a sixth of the page: "Show the whole gr…"
