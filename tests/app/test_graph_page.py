"""AppTest on the Graph page: the chapter slider changes the node set, details and exports render, book text
(an entity named like an HTML tag) reaches the page only escaped, the view modes, a click opening details, retyping an
entity and the relationship timeline."""
from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from tests.app.conftest import ROOT, finish_jobs, page

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
    from views._shared import get_store
    return get_store()


def _work(texts: list[str], title: str = "The Harbour") -> int:
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(texts, start=1)]
    return _store().create_work(title, None, WorkKind.STORY, {}, chapters).id


def _open(timeout: float = 60) -> AppTest:
    at = AppTest.from_file(page("graph.py"), default_timeout=timeout)
    at.run()
    assert not at.exception, at.exception
    return at


def _drawing(at: AppTest) -> dict:
    """The arguments the graph component got: the vis-network nodes and edges it draws."""
    (component,) = at.get("component_instance")
    assert component.proto.component_name.endswith("fabula_graph")
    return json.loads(component.proto.json_args)


def _node_labels(at: AppTest) -> set[str]:
    return {n["label"] for n in _drawing(at)["nodes"]}


def _node_id(at: AppTest, label: str) -> str:
    return next(n["id"] for n in _drawing(at)["nodes"] if n["label"] == label)


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
    # the search's example is this book's character as of the chapter, not "Lizzy" on every book
    assert at.text_input(key="kg_search").placeholder in {f"e.g. {label}" for label in early}
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
    at.radio(key="kg_mode").set_value("all").run()
    at.text_input(key="kg_search").input("img").run()
    assert not at.exception, at.exception
    drawing = _drawing(at)
    assert XSS in _node_labels(at)  # handed over as the text it is: the component draws it on a canvas
    assert any(XSS in e["title"] for e in drawing["edges"])  # and vis sets tooltips with innerText
    for element in [*at.markdown, *at.subheader, *at.caption]:
        assert "<img" not in element.value.replace("\\<img", "")
    script = (ROOT / "assets" / "graph_component" / "graph.js").read_text()
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("//"))
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function", code)
    assert "textContent" in code


def test_empty_library_and_unbuilt_graph(app_db: str) -> None:
    at = _open()
    assert any("library is empty" in i.value for i in at.info)
    _work(CHAPTERS[:1])
    at = _open()
    assert any("No graph yet" in i.value for i in at.info)
    assert not at.get("component_instance")
    at.radio(key="kg_extractor").set_value("llm").run()  # an LLM build shows its cost before it starts
    assert any("Estimate with" in c.value and "1 chapters" in c.value for c in at.caption)
    assert any("1 of 1 chapters are not in the graph yet" in c.value for c in at.caption)
    at.radio(key="kg_extractor").set_value("offline").run()
    at.button(key="kg_build").click().run()  # building from the page (in the background): the note then tells the
    finish_jobs(at)                          # state after the build
    assert not at.exception, at.exception
    assert not any("not in the graph yet" in c.value for c in at.caption)
    assert at.get("component_instance")


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


@pytest.mark.slow
def test_view_modes_and_a_click_opening_details(app_db: str) -> None:
    from core.services import kg_service
    work_id = _work(CHAPTERS)
    kg_service.build_graph(_store(), work_id)
    at = _open()
    assert at.radio(key="kg_mode").value == "characters"
    drawing = _drawing(at)
    assert {n["label"] for n in drawing["nodes"]} == {"Anna Grey", "Thomas Reed", "Captain Hale", "Maria Lopez"}
    assert drawing["legend"] == [{"type": "character", "color": "#4e79a7"}]
    pairs = [frozenset((e["from"], e["to"])) for e in drawing["edges"]]
    assert len(pairs) == len(set(pairs)), "one edge per pair of characters"
    maria, hale = _node_id(at, "Maria Lopez"), _node_id(at, "Captain Hale")
    at.radio(key="kg_mode").set_value("all").run()
    assert not at.exception, at.exception
    assert {"London", "Lisbon"} <= _node_labels(at)
    at.radio(key="kg_mode").set_value("ego").run()
    assert "Maria Lopez" in at.selectbox(key="kg_center").options  # the centre picker lists every entity
    at.selectbox(key="kg_center").set_value(maria).run()
    assert not at.exception, at.exception
    labels = _node_labels(at)
    assert "Maria Lopez" in labels and "Thomas Reed" not in labels  # one hop: only her own neighbours
    at.radio(key="kg_radius").set_value(2).run()
    assert "Thomas Reed" in _node_labels(at)

    at.radio(key="kg_mode").set_value("characters").run()
    at.session_state["kg_open_node"] = hale  # what a click on his node in the drawing sets (its callback)
    at.run()
    assert not at.exception, at.exception
    assert any(s.value == "Captain Hale" for s in at.subheader)
    assert _drawing(at)["selected"] == hale  # and the drawing shows which node is open


@pytest.mark.slow
def test_retype_an_entity_and_it_survives_a_rebuild(app_db: str) -> None:
    from core.services import kg_service
    work_id = _work(CHAPTERS)
    kg_service.build_graph(_store(), work_id)
    at = _open()
    at.text_input(key="kg_search").input("Hale").run()
    (kind,) = [s for s in at.selectbox if (s.key or "").startswith("kg_type_")]
    assert kind.value == "character"
    assert at.button(key="kg_retype").disabled  # nothing to change yet
    kind.set_value("location").run()
    at.button(key="kg_retype").click().run()
    assert not at.exception, at.exception
    assert kg_service.find_entity(_store(), work_id, "Captain Hale").type == "location"
    kg_service.build_graph(_store(), work_id, force=True)  # re-extraction keeps the user's decision
    assert kg_service.find_entity(_store(), work_id, "Captain Hale").type == "location"
    at = _open()
    assert "Captain Hale" not in _node_labels(at)  # no longer in the character network
    with pytest.raises(kg_service.KgError, match="Unknown type 'pirate'; choose one of character, location"):
        kg_service.retype_entity(_store(), work_id, "Anna Grey", "pirate")


@pytest.mark.slow
def test_relationship_timeline_section(app_db: str) -> None:
    from core.services import kg_service
    work_id = _work(CHAPTERS)
    kg_service.build_graph(_store(), work_id)
    at = _open()
    first = at.selectbox(key="kg_tl_a")
    assert first.format_func(first.value) == "Anna Grey"  # the most related character
    (second,) = [s for s in at.selectbox if (s.key or "").startswith("kg_tl_b_")]
    assert second.format_func(second.value) == "Thomas Reed"  # her strongest partner
    assert "Captain Hale" in second.options  # node ids, shown by their labels
    second.set_value(_node_id(at, "Captain Hale")).run()
    assert not at.exception, at.exception
    summary = next(c.value for c in at.caption if "together from chapter" in c.value)
    assert summary.startswith("Anna Grey and Captain Hale: together from chapter 2")
    charts = at.get("vega_lite_chart")
    assert len(charts) >= 2  # the entity's mentions and the pair's meetings per chapter
    rows = at.dataframe[-1].value
    assert set(rows["chapter"]) <= {2, 3} and rows["cited sentence"].str.contains("Captain Hale").all()
    at.slider(key="kg_as_of").set_value(1).run()  # as of chapter 1 Captain Hale is not known yet
    assert not at.exception, at.exception
    assert all("Captain Hale" not in f.options for f in at.selectbox if (f.key or "").startswith("kg_tl"))
