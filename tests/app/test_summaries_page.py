"""AppTest on the Summaries page: the book's own words (extractive) by default with an embedded model, labelled as
such, with KGScore (and ROUGE against a reference) shown; model summaries in a mode, side by side with the KG lines
given, an honest note under an embedded model's; edits kept through regeneration; download; book text shown only
escaped; and two rough edges of issue 37: switching works never crashes the Chapters list (a stale browser value
from the other work), and a running job is not "an earlier run that stopped"."""
from __future__ import annotations

import threading

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.ingest.sentences import split_sentences
from core.llm import FakeLLM, register_provider, unregister_provider
from core.summarize import NewSummary
from core.summarize.prompts import KG_HEADER_LINES
from tests.app.conftest import finish_jobs, page

XSS = "<img src=x onerror=alert(1)>"
CHAPTERS = [
    "Anna Grey walked to the harbour with Thomas Reed on a cold morning. Anna Grey met Thomas Reed at the gate of "
    "the harbour. Thomas Reed gave Anna Grey a letter from London. The gulls cried over the grey water all day. "
    "Anna Grey read the letter twice and put it away without a word.",
    "Captain Hale sailed from London to Lisbon in the spring. Anna Grey wrote to Captain Hale about the storm that "
    "had wrecked the ship. Captain Hale answered Anna Grey from Lisbon with news of the crew.",
]
gate = threading.Event()


def reply(messages, options) -> str:  # noqa: ANN001
    assert gate.wait(60), "the test never released the model"
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
    gate.set()
    yield built
    gate.set()
    unregister_provider("pagefake")


@pytest.fixture
def embedded_llm(app_db: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The embedded model is the summarizer (never loaded here: an extractive summary needs no model)."""
    from core.config import get_settings
    monkeypatch.setenv("FABULA_LLM", "local:gemma3-270m")
    get_settings.cache_clear()
    return "local:gemma3-270m"


def _store():  # noqa: ANN202
    from views._shared import get_store
    return get_store()


def _work(title: str = "The Harbour", texts: list[str] = CHAPTERS, name: str = "Chapter") -> int:
    chapters = [NewChapter(f"{name} {i}", t, chunk_text(t)) for i, t in enumerate(texts, start=1)]
    return _store().create_work(title, None, WorkKind.STORY, {}, chapters).id


def _open() -> AppTest:
    at = AppTest.from_file(page("summaries.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def _chapters(at: AppTest):  # noqa: ANN202 - the Chapters multiselect, found as a user finds it: by its label
    return next(m for m in at.multiselect if m.label == "Chapters")


def _mode(at: AppTest):  # noqa: ANN202
    return next(r for r in at.radio if r.label == "Summary")


def test_empty_library(app_db: str) -> None:
    at = _open()
    assert any("library is empty" in i.value for i in at.info)


def test_extractive_is_the_default_with_an_embedded_model_and_is_scored(embedded_llm: str) -> None:
    work_id = _work()
    at = _open()
    assert _mode(at).value == "extractive"
    assert any("No model writes this" in c.value and "salience alone" in c.value for c in at.caption)
    assert not any("Estimate with" in c.value for c in at.caption)          # nothing to pay for
    finish_jobs(at.button(key="sum_run").click().run())
    assert not at.exception, at.exception
    assert "1 written" in at.status[0].label
    (shown,) = [s for s in _store().summary_history(work_id, 1) if s.mode == "extractive"]
    sentences = split_sentences(shown.text)
    assert shown.model == "extractive" and len(sentences) >= 2
    assert all(s in CHAPTERS[0] for s in sentences)                       # the book's own words
    assert any(t.startswith("Anna Grey") and "\\." in t for t in _texts(at))
    assert any(c.value.startswith("extractive: ") and "sentences chosen by salience alone" in c.value
               for c in at.caption)
    assert any("No model-written summary" in c.value for c in at.caption)
    scores = at.dataframe[-1].value
    assert list(scores.columns) == ["Summary", "By", "P_KG", "R_KG", "F_KG", "Facts"]   # no reference: no ROUGE
    assert scores["Summary"].tolist() == ["In the book's own words"]
    assert any("Against the chapter itself" in c.value for c in at.caption)
    # a reference summary brings ROUGE in, and KGScore is now against it
    (area,) = [t for t in at.text_area if (t.key or "").startswith(f"sum_reference_{work_id}_")]
    area.input("Anna Grey meets Thomas Reed at the harbour, and Thomas Reed gives Anna Grey a letter.").run()
    at.button(key=f"sum_reference_save_{work_id}_1").click().run()
    assert not at.exception, at.exception
    scores = at.dataframe[-1].value
    assert {"ROUGE-1", "ROUGE-2", "ROUGE-L", "P_KG", "R_KG", "F_KG"} <= set(scores.columns)
    assert float(scores["ROUGE-1"][0]) > 0 and float(scores["F_KG"][0]) > 0
    assert any("Against your reference summary" in c.value for c in at.caption)


def test_model_summary_edit_survives_regeneration(fake_llm: list) -> None:
    work_id = _work()
    at = _open()
    assert _mode(at).value == "no_kg"                      # a capable model without a graph: its own summaries
    _mode(at).set_value("kg").run()
    assert any("no knowledge graph" in w.value for w in at.warning)
    assert at.button(key="sum_run").disabled
    _mode(at).set_value("no_kg").run()
    assert any("Estimate with pagefake:x" in c.value for c in at.caption)
    assert not any("small embedded model" in w.value for w in at.warning)
    finish_jobs(at.button(key="sum_run").click().run())
    assert not at.exception, at.exception
    assert "1 written" in at.status[0].label and sum(len(llm.calls) for llm in fake_llm) == 1
    shown = [t for t in _texts(at) if "Anna and Thomas meet" in t]
    assert len(shown) == 1 and "\\(text\\)" in shown[0]
    assert "<img" not in shown[0].replace("\\<img", "")            # escaped: shown as the text it is
    assert sum("No summary yet" in i.value for i in at.info) == 2  # the extractive one and the KG column
    (area,) = [t for t in at.text_area if (t.key or "").startswith(f"sum_text_{work_id}_no_kg_1_")]
    area.input("My own summary of chapter one.").run()
    at.button(key=f"sum_save_{work_id}_no_kg").click().run()
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


def test_an_embedded_models_summary_carries_an_honest_note(embedded_llm: str) -> None:
    work_id = _work()
    _store().summary_add(work_id, 1, NewSummary("no_kg", "The man in the red sweater. The man in the red sweater.",
                                                embedded_llm, 1))
    at = _open()
    _mode(at).set_value("no_kg").run()
    notes = [w.value for w in at.warning if "small embedded model" in w.value]
    assert len(notes) == 2                       # beside the choice, and under the summary it wrote
    assert all("Settings" in n and "rough draft" in n for n in notes)


def test_a_running_job_is_not_an_earlier_run_that_stopped(fake_llm: list) -> None:
    """Issue 37, rough edge 8: while a job ran, the page said "An earlier run stopped after 0 of 2"."""
    _work()
    gate.clear()
    at = _open()
    _mode(at).set_value("no_kg").run()
    _chapters(at).set_value([1, 2]).run()
    at.button(key="sum_run").click().run()
    at.run()                                    # the job holds the model now
    assert at.status and "Writing summaries" in at.status[0].label
    assert not any("earlier run" in c.value for c in at.caption)
    gate.set()
    finish_jobs(at)
    assert not at.exception, at.exception
    assert not any("earlier run" in c.value for c in at.caption)


def test_switching_works_keeps_the_chapters_list_working(fake_llm: list) -> None:
    """Issue 37, rough edge 1: on A Christmas Carol, pick another work, add a chapter: "TypeError: bad argument type
    for built-in operation" at the Chapters multiselect (its key was shared by every work, so the browser sent the
    first work's chapter labels to the second's list); also when a job ended after the switch."""
    carol = _work("A Christmas Carol", CHAPTERS, "Stave")
    other = _work("The Other Book", CHAPTERS[::-1], "Part")
    gate.clear()
    at = _open()
    picker = next(s for s in at.selectbox if s.label == "Work")
    picker.set_value(carol).run()
    _mode(at).set_value("no_kg").run()
    _chapters(at).set_value([1, 2]).run()
    stale = list(_chapters(at).options)                 # "1. Stave 1", "2. Stave 2": what the browser holds
    at.button(key="sum_run").click().run()               # a job on the Carol, still running at the switch
    next(s for s in at.selectbox if s.label == "Work").set_value(other).run()
    assert not at.exception, at.exception
    assert list(_chapters(at).options) == ["1. Part 1", "2. Part 2"]
    _chapters(at).set_value([stale[0], 2]).run()         # the browser adds a chapter to the list it still shows
    assert not at.exception, at.exception
    assert any("1 summaries" in c.value for c in at.caption)  # only the other work's chapter 2 counts
    gate.set()
    finish_jobs(at)                                      # the Carol's job ends after the switch
    assert not at.exception, at.exception
    _chapters(at).set_value([stale[1], 1]).run()
    assert not at.exception, at.exception
    assert next(s for s in at.selectbox if s.label == "Work").value == other


@pytest.mark.slow
def test_kg_and_no_kg_side_by_side_with_the_kg_lines(fake_llm: list) -> None:
    from core.services import kg_service
    work_id = _work()
    kg_service.build_graph(_store(), work_id)
    at = _open()
    assert _mode(at).value == "both"
    _chapters(at).set_value([1, 2]).run()
    finish_jobs(at.button(key="sum_run").click().run())
    assert not at.exception, at.exception
    assert "4 written" in at.status[0].label
    next(s for s in at.selectbox if s.label == "Read the summaries of").set_value(2).run()
    texts = _texts(at)
    assert any("\\(graph\\)" in t for t in texts) and any("\\(text\\)" in t for t in texts)
    (code,) = at.code
    lines = code.value.splitlines()
    assert lines and all(";" in line for line in lines)
    stored = {s.mode: s for s in _store().summary_history(work_id, 2)}
    assert stored["kg"].kg_lines == lines and stored["no_kg"].kg_lines == []
    kg_prompts = [c.prompt for llm in fake_llm for c in llm.calls if KG_HEADER_LINES in c.prompt]
    assert len(kg_prompts) == 2 and all(line in kg_prompts[1] for line in lines)
    scores = at.dataframe[-1].value
    assert scores["Summary"].tolist() == ["With knowledge graph", "Chapter text only"]


@pytest.mark.slow
def test_extractive_with_the_graph(embedded_llm: str) -> None:
    from core.services import kg_service
    work_id = _work()
    kg_service.build_graph(_store(), work_id)
    at = _open()
    _chapters(at).set_value([1, 2]).run()
    finish_jobs(at.button(key="sum_run").click().run())
    assert not at.exception, at.exception
    assert any(c.value.startswith("extractive: ") and "chosen with the graph" in c.value for c in at.caption)
    (shown,) = [s for s in _store().summary_history(work_id, 2) if s.mode == "extractive"]
    assert shown.stats["used_graph"] and any(shown.stats["reasons"])
