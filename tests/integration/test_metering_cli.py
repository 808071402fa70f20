"""One model call, one usage record, for every command that calls a model: story next (the writer, then the grapher
on the chapter it wrote), continue, ask, narco build, kg build and kg update with the LLM extractor, summarize,
kgscore with the LLM extractor. Every model the commands build comes from one counting provider. (`llm ping`, a
connection test, records nothing, by design.)"""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

import cli
import cli_commands
from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM, register_provider, unregister_provider
from storage.models import LlmCallRow
from tests.support.metering import BOOK, reply


@pytest.fixture
def counted(store, monkeypatch: pytest.MonkeyPatch) -> list[FakeLLM]:  # noqa: ANN001
    monkeypatch.setattr(cli_commands, "_store", store)
    built: list[FakeLLM] = []

    def factory(model: str, **kw) -> FakeLLM:  # noqa: ANN003
        built.append(FakeLLM(reply, model=model, context_window=8192))
        return built[-1]
    register_provider("metered", factory)
    yield built
    unregister_provider("metered")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    status = cli.main([*args, "--json"])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out) if out.out.strip() else {}


def _roles(store) -> list[str]:  # noqa: ANN001
    with store.session() as s:
        return list(s.scalars(select(LlmCallRow.role).order_by(LlmCallRow.id)))


def _assert_once(store, built: list[FakeLLM]) -> list[str]:  # noqa: ANN001
    roles = _roles(store)
    calls = sum(len(llm.calls) for llm in built)
    assert calls > 0 and len(roles) == calls, (roles, [c.prompt[:60] for llm in built for c in llm.calls])
    return roles


def _book(store) -> str:  # noqa: ANN001
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t, 25)) for i, t in enumerate(BOOK, start=1)]
    return str(store.create_work("Carol", None, WorkKind.BOOK, {}, chapters).id)


def test_story_next_with_the_grapher_and_a_continuation(store, counted: list[FakeLLM],  # noqa: ANN001
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    work = str(_run(capsys, "story", "new", "--premise", "5", "--arc", "Icarus", "--chapters", "3",
                    "--llm", "metered:writer")["work_id"])
    _run(capsys, "story", "next", work)
    grapher = [c for llm in counted for c in llm.calls if "KNOWLEDGE-GRAPH AGENT" in c.prompt]
    assert len(grapher) == 1
    assert _assert_once(store, counted) == ["writing", "extraction"]  # the grapher's call: one record, as extraction
    _run(capsys, "continue", work, "--mode", "kg-block")
    assert _assert_once(store, counted) == ["writing", "extraction", "writing"]


def test_ask_and_narco_build(store, counted: list[FakeLLM], capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    work = _book(store)
    _run(capsys, "ask", work, "Who was dead?", "--mode", "traditional", "--llm", "metered:qa")
    assert _assert_once(store, counted) == ["answering"]
    _run(capsys, "narco", "build", work, "--llm", "metered:narco")
    roles = _assert_once(store, counted)
    assert roles[0] == "answering" and set(roles[1:]) == {"extraction"}


def test_kg_build_and_update_with_the_llm_extractor(store, counted: list[FakeLLM],  # noqa: ANN001
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    work = _book(store)
    _run(capsys, "kg", "build", work, "--extractor", "llm", "--llm", "metered:kg")
    built = len(_assert_once(store, counted))
    assert built >= len(BOOK)
    _run(capsys, "kg", "update", work, "2", "--extractor", "llm", "--llm", "metered:kg")
    assert len(_assert_once(store, counted)) > built


def test_summarize(store, counted: list[FakeLLM], capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    work = _book(store)
    _run(capsys, "summarize", work, "--all", "--no-kg", "--llm", "metered:sum")
    assert set(_assert_once(store, counted)) == {"summarizing"}


def test_a_model_handed_to_a_service_is_metered_once_too(store) -> None:  # noqa: ANN001 - tests, benchmarks
    from core.qa import QAParams
    from core.services import llm_service, qa_service
    work = int(_book(store))
    raw = FakeLLM(reply, model="raw")
    qa_service.ask(store, work, "Who was dead?", QAParams(mode="traditional"), llm=raw)
    metered = llm_service.metered(store, FakeLLM(reply, model="metered"), "answering", work_id=work)
    qa_service.ask(store, work, "Who was dead?", QAParams(mode="traditional"), llm=metered)
    assert _assert_once(store, [raw, metered.inner]) == ["answering", "answering"]
    assert store.llm_usage(work_id=work)["calls"] == 2


def test_kgscore_with_the_llm_extractor(store, counted: list[FakeLLM], capsys: pytest.CaptureFixture[str],  # noqa: ANN001
                                        tmp_path) -> None:  # noqa: ANN001
    generated, reference = tmp_path / "generated.txt", tmp_path / "reference.txt"
    generated.write_text("Scrooge saw the ghost of Marley at the door.")
    reference.write_text("Marley's ghost visited Scrooge.")
    _run(capsys, "kgscore", "--generated", str(generated), "--reference", str(reference), "--llm", "metered:score")
    assert set(_assert_once(store, counted)) == {"extraction"}
