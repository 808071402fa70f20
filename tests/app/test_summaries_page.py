"""AppTest on the Summaries page: summarize chosen chapters in a mode, read KG and no-KG side by side with the KG lines
given, edit and save (kept as the user's through regeneration), download, and book text shown only escaped."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM, register_provider, unregister_provider
from core.summarize.prompts import KG_HEADER_LINES
from tests.app.conftest import finish_jobs, page

XSS = "<img src=x onerror=alert(1)>"
CHAPTERS = [
    "Anna Grey walked to the harbour with Thomas Reed. Anna Grey met Thomas Reed at the gate of the harbour. "
    "Thomas Reed gave Anna Grey a letter from London.",
    "Captain Hale sailed from London to Lisbon. Anna Grey wrote to Captain Hale about the storm. "
    "Captain Hale answered Anna Grey from Lisbon.",
]


def reply(messages, options) -> str:  # noqa: ANN001
    prompt = messages[-1].content
    mode = "graph" if KG_HEADER_LINES in prompt else "text"
    return f"Summary: Anna and Thomas meet ({mode}) {XSS}."


@pytest.fixture
def fake_llm(app_db: str, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    from core.config import get_settings
    built: list[FakeLLM] = []

    def factory(model: str, **kw) -> FakeLLM:  # noqa: ANN003
        llm = FakeLLM(reply, context_window=4096)
        built.append(llm)
        return llm
    register_provider("pagefake", factory)
    monkeypatch.setenv("FABULA_LLM", "pagefake:x")
    get_settings.cache_clear()
    yield built
    unregister_provider("pagefake")


def _store():  # noqa: ANN202
    from pages._shared import get_store
    return get_store()


def _work() -> int:
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(CHAPTERS, start=1)]
    return _store().create_work("The Harbour", None, WorkKind.STORY, {}, chapters).id


def _open() -> AppTest:
    at = AppTest.from_file(page("summaries.py"), default_timeout=90)
    at.run()
    assert not at.exception, at.exception
    return at


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_empty_library(app_db: str) -> None:
    at = _open()
    assert any("library is empty" in i.value for i in at.info)


def test_no_kg_summary_edit_survives_regeneration(fake_llm: list) -> None:
    work_id = _work()
    at = _open()
    at.radio(key="sum_mode").set_value("kg").run()
    assert any("no knowledge graph" in w.value for w in at.warning)
    assert at.button(key="sum_run").disabled
    at.radio(key="sum_mode").set_value("no_kg").run()
    assert any("Estimate with pagefake:x" in c.value for c in at.caption)
    finish_jobs(at.button(key="sum_run").click().run())
    assert not at.exception, at.exception
    assert "1 written" in at.status[0].label and sum(len(llm.calls) for llm in fake_llm) == 1
    shown = [t for t in _texts(at) if "Anna and Thomas meet" in t]
    assert len(shown) == 1 and "\\(text\\)" in shown[0]
    assert "<img" not in shown[0].replace("\\<img", "")            # escaped: shown as the text it is
    assert any("No summary yet" in i.value for i in at.info)      # the KG column
    (area,) = [t for t in at.text_area if (t.key or "").startswith("sum_text_no_kg_1_")]
    area.input("My own summary of chapter one.").run()
    at.button(key="sum_save_no_kg").click().run()
    assert not at.exception, at.exception
    assert any(t == "My own summary of chapter one\\." for t in _texts(at))
    assert any("edited by you" in c.value for c in at.caption)
    at.checkbox(key="sum_force").check().run()
    finish_jobs(at.button(key="sum_run").click().run())
    assert not at.exception, at.exception
    assert any(t == "My own summary of chapter one\\." for t in _texts(at))
    assert any("newer generated version" in c.value for c in at.caption)
    assert at.get("download_button")
    from core.services import summary_service
    markdown, _ = summary_service.export_markdown(_store(), work_id)
    assert "My own summary of chapter one." in markdown


@pytest.mark.slow
def test_kg_and_no_kg_side_by_side_with_the_kg_lines(fake_llm: list) -> None:
    from core.services import kg_service
    work_id = _work()
    kg_service.build_graph(_store(), work_id)
    at = _open()
    at.multiselect(key="sum_chapters").set_value([1, 2]).run()
    at.radio(key="sum_mode").set_value("both").run()
    finish_jobs(at.button(key="sum_run").click().run())
    assert not at.exception, at.exception
    assert "4 written" in at.status[0].label
    at.selectbox(key="sum_read").set_value(2).run()
    texts = _texts(at)
    assert any("\\(graph\\)" in t for t in texts) and any("\\(text\\)" in t for t in texts)
    (code,) = at.code
    lines = code.value.splitlines()
    assert lines and all(";" in line for line in lines)
    stored = {s.mode: s for s in _store().summary_history(work_id, 2)}
    assert stored["kg"].kg_lines == lines and stored["no_kg"].kg_lines == []
    kg_prompts = [c.prompt for llm in fake_llm for c in llm.calls if KG_HEADER_LINES in c.prompt]
    assert len(kg_prompts) == 2 and all(line in kg_prompts[1] for line in lines)
