"""AppTest on the Graph page: the chapter slider changes the node set, details and exports render, book text
(an entity named like an HTML tag) reaches the page only escaped."""
from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from tests.app.conftest import page

XSS = "<img src=x onerror=alert(1)>"
CHAPTERS = [
    "Anna Grey walked to the harbour with Thomas Reed. Anna Grey met Thomas Reed at the gate of the harbour. "
    "Thomas Reed gave Anna Grey a letter from London.",
    "Captain Hale sailed from London to Lisbon. Anna Grey wrote to Captain Hale about the storm. "
    "Captain Hale answered Anna Grey from Lisbon.",
    "Maria Lopez arrived in Lisbon in the spring. Captain Hale greeted Maria Lopez at the quay. "
    "Maria Lopez visited Anna Grey in London.",
]


def _store():  # noqa: ANN202
    from pages._shared import get_store
    return get_store()


def _work(texts: list[str], title: str = "The Harbour") -> int:
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(texts, start=1)]
    return _store().create_work(title, None, WorkKind.STORY, {}, chapters).id


def _open(timeout: float = 60) -> AppTest:
    at = AppTest.from_file(page("graph.py"), default_timeout=timeout)
    at.run()
    assert not at.exception, at.exception
    return at


def _html(at: AppTest) -> str:
    (frame,) = at.get("iframe")
    return frame.proto.srcdoc


def _node_labels(at: AppTest) -> set[str]:
    data = re.search(r"var nodes = new vis\.DataSet\((.*?)\);\n", _html(at), re.S)
    assert data, "no node data in the graph HTML"
    return {n["label"] for n in json.loads(data.group(1))}


@pytest.mark.slow
def test_slider_changes_the_node_set(app_db: str) -> None:
    from core.services import kg_service
    work_id = _work(CHAPTERS)
    kg_service.build_graph(_store(), work_id)
    at = _open()
    assert at.slider(key="kg_as_of").value == 3
    late = _node_labels(at)
    assert "Maria Lopez" in late and "Anna Grey" in late
    at.slider(key="kg_as_of").set_value(1).run()
    assert not at.exception, at.exception
    early = _node_labels(at)
    assert "Anna Grey" in early and "Maria Lopez" not in early and "Captain Hale" not in early
    assert early < late
    assert any("chapters 1-1" in c.value for c in at.caption)
    at.text_input(key="kg_search").input("Hale").run()
    assert not at.exception
    at.slider(key="kg_as_of").set_value(3).run()
    (details,) = [s for s in at.selectbox if (s.key or "").startswith("kg_node_")]
    assert details.format_func(details.value) == "Captain Hale"
    assert any(s.value == "Captain Hale" for s in at.subheader)
    assert at.get("download_button")


def test_book_text_is_escaped_everywhere(app_db: str) -> None:
    from core.llm import FakeLLM
    from core.services import kg_service
    work_id = _work(["The " + XSS + " stood by the door, and Anna saw it."], title="Escapes")
    reply = f"Named entities:\n{XSS}\nAnna\n\nKnowledge graph edges:\n1. Anna; saw; {XSS}\n2. {XSS}; stood by door"
    kg_service.build_graph(_store(), work_id, extractor="llm", llm=FakeLLM([reply], context_window=8192))
    at = _open()
    at.text_input(key="kg_search").input("img").run()
    assert not at.exception, at.exception
    html = _html(at)
    assert "<img" not in html
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in html
    assert XSS in _node_labels(at)  # shown as the text it is
    for element in [*at.markdown, *at.subheader, *at.caption]:
        assert "<img" not in element.value.replace("\\<img", "")


def test_empty_library_and_unbuilt_graph(app_db: str) -> None:
    at = _open()
    assert any("library is empty" in i.value for i in at.info)
    _work(CHAPTERS[:1])
    at = _open()
    assert any("No graph yet" in i.value for i in at.info)
    assert not at.get("iframe")
    at.radio(key="kg_extractor").set_value("llm").run()  # an LLM build shows its cost before it starts
    assert any("Estimate with" in c.value and "1 chapters" in c.value for c in at.caption)
    assert any("1 of 1 chapters are not in the graph yet" in c.value for c in at.caption)
    at.radio(key="kg_extractor").set_value("offline").run()
    at.button(key="kg_build").click().run()  # building from the page: the note now tells the state after the build
    assert not at.exception, at.exception
    assert not any("not in the graph yet" in c.value for c in at.caption)
    assert at.get("iframe")


@pytest.mark.slow
def test_play_steps_through_the_chapters_and_corrections_apply(app_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from core.services import kg_service
    work_id = _work(CHAPTERS)
    kg_service.build_graph(_store(), work_id)
    at = _open()
    shown: list[int] = []
    real_sleep = time.sleep
    import streamlit as st

    def fast_sleep(seconds: float) -> None:  # the page's pause between chapters (AppTest's own waits pass through)
        if seconds == 0.8 and "kg_as_of" in st.session_state:
            shown.append(st.session_state["kg_as_of"])
            seconds = 0.01
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", fast_sleep)
    at.button(key="kg_play_button").click().run()
    assert not at.exception, at.exception
    assert shown == [1, 2] and at.slider(key="kg_as_of").value == 3 and not at.session_state["kg_play"]
    at.text_input(key="kg_search").input("Thomas").run()
    (rename,) = [t for t in at.text_input if (t.key or "").startswith("kg_rename_")]
    rename.input("Tom Reed").run()
    at.button(key="kg_rename").click().run()
    assert not at.exception, at.exception
    assert kg_service.find_entity(_store(), work_id, "Thomas Reed").label == "Tom Reed"
