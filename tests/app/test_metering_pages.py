"""One model call, one usage record, on every page that calls a model: Write (a chapter, accepting it with the
grapher, a continuation), Ask (an answer, facts put into words, the NARCO build), Graph (an LLM build) and
Summaries. (Settings' connection test works outside any library: it records nothing, by design.) Every model the
pages build comes from one counting provider, so the calls its fakes received are all the calls there were."""
from __future__ import annotations

import pytest
from sqlalchemy import select
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM, register_provider, unregister_provider
from tests.app.conftest import finish_jobs, page
from tests.support.metering import BOOK, reply


@pytest.fixture
def counted(app_db: str, monkeypatch: pytest.MonkeyPatch) -> list[FakeLLM]:
    """Every model a page builds, for every role: a FakeLLM kept here with its calls."""
    from core.config import get_settings
    built: list[FakeLLM] = []

    def factory(model: str, **kw) -> FakeLLM:  # noqa: ANN003
        built.append(FakeLLM(reply, model=model, context_window=8192))
        return built[-1]
    register_provider("metered", factory)
    monkeypatch.setenv("FABULA_LLM", "metered:all")
    get_settings.cache_clear()
    yield built
    unregister_provider("metered")


def _store():  # noqa: ANN202
    from views._shared import get_store
    return get_store()


def _records() -> list[str]:
    """The role of every usage record, oldest first."""
    from storage.models import LlmCallRow
    with _store().session() as s:
        return list(s.scalars(select(LlmCallRow.role).order_by(LlmCallRow.id)))


def _calls(built: list[FakeLLM]) -> int:
    return sum(len(llm.calls) for llm in built)


def _assert_once(built: list[FakeLLM], at_least: int = 1) -> list[str]:
    roles = _records()
    assert _calls(built) >= at_least
    assert len(roles) == _calls(built), (roles, [c.prompt[:60] for llm in built for c in llm.calls])
    return roles


def _book() -> int:
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t, 25)) for i, t in enumerate(BOOK, start=1)]
    return _store().create_work("Carol", None, WorkKind.BOOK, {}, chapters).id


def _open(name: str, work_id: int | None = None) -> AppTest:
    at = AppTest.from_file(page(name), default_timeout=90)
    if work_id is not None:
        at.session_state["work_id"] = work_id
    at.run()
    assert not at.exception, at.exception
    return at


def _click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def test_write_page_a_chapter_its_grapher_and_a_continuation(counted: list[FakeLLM]) -> None:
    at = _open("write.py")
    at.text_input(key="new_title").input("The Egg")
    _click(at, "new_start")
    (work,) = _store().list_works()
    assert work.settings["use_kg"] is True and work.settings["extractor"] == "auto"   # the grapher for a fake model
    finish_jobs(_click(at, "write_next"))     # written in the background
    assert _assert_once(counted) == ["writing"]
    finish_jobs(_click(at, "write_accept"))   # read by the grapher in the background
    grapher = [c for llm in counted for c in llm.calls if "KNOWLEDGE-GRAPH AGENT" in c.prompt]
    assert len(grapher) == 1                   # the grapher read the accepted chapter once, and was recorded once:
    assert _assert_once(counted) == ["writing", "extraction"]  # as extraction, not also as writing
    at.text_area(key="cont_text").input("Elena Voss found the dragon egg in her field.")
    _click(at, "cont_go")
    assert _assert_once(counted) == ["writing", "extraction", "writing"]


def test_ask_page_answers_facts_put_into_words_and_the_narco_build(counted: list[FakeLLM]) -> None:
    from core.services.kg_service import build_graph
    work_id = _book()
    build_graph(_store(), work_id)  # offline: no model
    at = _open("ask.py", work_id)
    at.text_input(key="ask_question").input("Who was dead?")
    at.radio(key="ask_mode").set_value("traditional")
    _click(at, "ask_submit")
    assert _assert_once(counted) == ["answering"]
    at.radio(key="ask_mode").set_value("kg")   # the graph's facts put into words by the model, then the answer
    _click(at, "ask_submit")
    roles = _assert_once(counted, at_least=3)
    assert set(roles) == {"answering"} and len(roles) > 2
    finish_jobs(_click(at, "narco_build"))
    after = _assert_once(counted)
    assert after[:len(roles)] == roles and set(after[len(roles):]) == {"extraction"}


def test_graph_page_an_llm_build(counted: list[FakeLLM]) -> None:
    work_id = _book()
    at = _open("graph.py", work_id)
    at.radio(key="kg_extractor").set_value("llm").run()
    finish_jobs(_click(at, "kg_build"))
    assert set(_assert_once(counted, at_least=len(BOOK))) == {"extraction"}


def test_summaries_page_a_run(counted: list[FakeLLM]) -> None:
    work_id = _book()
    at = _open("summaries.py")
    at.radio(key=f"sum_mode_{work_id}").set_value("no_kg").run()
    finish_jobs(_click(at, "sum_run"))
    assert set(_assert_once(counted)) == {"summarizing"}
