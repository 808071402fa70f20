"""The CLI: `ask` (one question, a JSONL batch, dry runs), `narco build --estimate`, `narco build`, status, recap."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import cli
import cli_commands
from core.domain import NewChapter, WorkKind
from core.llm import FakeLLM, register_provider, unregister_provider

CHAPTERS = [("One", "Marley was dead, to begin with. Scrooge signed the register of his burial.\n\n"
                    "Scrooge never painted out old Marley's name above the warehouse door."),
            ("Two", "The ghost of Marley came through the heavy door and looked at Scrooge."),
            ("Three", "Tiny Tim did not die, and Scrooge became a second father to him.")]


@pytest.fixture
def work_id(store, monkeypatch: pytest.MonkeyPatch) -> int:  # noqa: ANN001
    monkeypatch.setattr(cli_commands, "_store", store)
    chapters = [NewChapter(t, x, x.split("\n\n")) for t, x in CHAPTERS]
    return store.create_work("Carol", None, WorkKind.BOOK, {}, chapters).id


@pytest.fixture
def counting_provider():  # noqa: ANN201 - how many LLMs the CLI built
    built: list[FakeLLM] = []

    def factory(model: str, **kw) -> FakeLLM:  # noqa: ANN003
        llm = FakeLLM(lambda messages, options: "Answer: Jacob Marley", model=model)
        built.append(llm)
        return llm
    register_provider("countfake", factory)
    yield built
    unregister_provider("countfake")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_ask_one_question(work_id: int, counting_provider: list, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "ask", str(work_id), "Who was dead?", "--mode", "traditional", "--upto", "2",
                          "--llm", "countfake:x", "--json")
    assert status == 0
    result = json.loads(out)
    assert result["answer"] == "Jacob Marley" and result["upto"] == 2
    assert [c["chapter"] for c in result["citations"]] == [1, 1, 2]
    assert "Tiny Tim" not in result["prompt"] and result["prompt"].endswith("Question: Who was dead?\nAnswer:")
    assert counting_provider[0].calls[-1].prompt == result["prompt"]


def test_batch_dry_run_prints_one_object_per_line_in_order(work_id: int, counting_provider: list, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    questions = ["Who was dead?", "Who came through the door?", "Did Tiny Tim die?"]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps({"question": q, "id": i}) for i, q in enumerate(questions)) + "\n\n")
    status, out, _ = _run(capsys, "ask", str(work_id), "--questions", str(path), "--mode", "kg", "--dry-run",
                          "--llm", "countfake:x", "--json")
    assert status == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [r["question"] for r in lines] == questions
    assert all(r["answer"] is None and r["prompt"] and r["verbalized_by"] == "template" for r in lines)
    assert len(counting_provider) == 1 and counting_provider[0].calls == []  # built once, never called


def test_the_answer_flag_compares_both_paths_in_one_batch(work_id: int, counting_provider: list, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """--answer extractive quotes the book without asking the model; --answer generate asks it; each row carries
    the answer, the chapters it cites and whether the support check passed."""
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"question": "Who came through the heavy door?"}) + "\n")
    rows = {}
    for answer in ("extractive", "generate"):
        status, out, _ = _run(capsys, "ask", str(work_id), "--questions", str(path), "--mode", "rag", "--search",
                              "bm25", "--answer", answer, "--llm", "countfake:x", "--json")
        assert status == 0
        (rows[answer],) = [json.loads(line) for line in out.splitlines()]
    extractive, generated = rows["extractive"], rows["generate"]
    assert extractive["answer_path"] == "extractive" and "ghost of Marley came through the heavy door" in \
        extractive["answer"]
    assert extractive["answer_chapters"] == [2] and extractive["supported"] is True
    assert extractive["extraction"]["quotes"][0]["chapter"] == 2
    assert generated["answer_path"] == "generate" and generated["answer"] == "Jacob Marley"
    assert generated["supported"] is False and generated["support"]["missing_names"] == ["Jacob"]
    assert len(counting_provider) == 2 and counting_provider[0].calls == [] and len(counting_provider[1].calls) == 1
    status, out, _ = _run(capsys, "ask", str(work_id), "Who came through the heavy door?", "--mode", "rag",
                          "--search", "bm25", "--answer", "extractive", "--llm", "countfake:x")
    assert status == 0 and "[extractive; chapters [2]; supported]" in out
    with pytest.raises(SystemExit) as bad:
        _run(capsys, "ask", str(work_id), "Who?", "--answer", "guess", "--llm", "countfake:x")
    assert bad.value.code == 2 and "invalid choice: 'guess'" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    ('{"question": "ok?"}\nnot json\n', "line 2: not JSON"),
    ('{"q": "wrong key"}\n', 'line 1: expected an object with a non-empty "question"'),
    ("\n\n", "holds no questions"),
])
def test_a_bad_questions_file_fails_before_anything_runs(work_id: int, counting_provider: list, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str], content: str,
                                                         message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    status, out, err = _run(capsys, "ask", str(work_id), "--questions", str(path), "--llm", "countfake:x", "--json")
    assert status == 1 and out == "" and message in err and counting_provider == []


def test_ask_errors(work_id: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "ask", "999", "Who?", "--dry-run", "--llm", "fake:echo")[0] == 1
    status, _, err = _run(capsys, "ask", str(work_id), "Who?", "--upto", "7", "--dry-run", "--llm", "fake:echo")
    assert status == 1 and "3 chapters" in err
    status, _, err = _run(capsys, "ask", str(work_id), "--dry-run", "--llm", "fake:echo")
    assert status == 1 and "QUESTION" in err


def test_narco_build_estimate_status_and_recap(work_id: int, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "narco", "build", str(work_id), "--window", "2", "--estimate",
                          "--llm", "openai:gpt-4o-mini", "--json")
    estimate = json.loads(out)
    assert status == 0 and estimate["units"] == 4 and estimate["pairs"] == 1 + 2 + 2
    assert estimate["model"] == "openai:gpt-4o-mini" and estimate["usd"] > 0
    # an echoing model finds no questions: the build still completes and marks every passage
    status, out, err = _run(capsys, "narco", "build", str(work_id), "--llm", "fake:echo", "--json")
    report = json.loads(out)
    assert status == 0 and report["passages"] == 4 and report["edges_total"] == 0 and "estimate:" in err
    status, out, _ = _run(capsys, "narco", "status", str(work_id), "--json")
    assert json.loads(out)["built"] == 4
    status, out, _ = _run(capsys, "narco", "recap", str(work_id), "2", "--json")
    assert status == 0 and json.loads(out) == []


def _quay(store, marriage: str):  # noqa: ANN001, ANN202
    """A two-chapter story with its offline graph built; chapter 2 tells the marriage as `marriage` words it."""
    from core.ingest import chunk_text
    from core.services import kg_service
    story = ["Anna Grey lived at the harbour with her father. Thomas Reed came to the harbour in a small boat.",
             "Anna Grey walked on the quay every morning, and Thomas Reed waited for her there. "
             f"{marriage} at the old church, and the whole town came to see them."]
    work = store.create_work("Quay", None, WorkKind.STORY, {},
                             [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(story, start=1)])
    kg_service.build_graph(store, work.id)
    return work


def test_the_graphs_answer_is_named_on_the_text_output(store, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A who-question the graph answers from "he married her": the text output names the answer before the
    sentence and says how the graph read it."""
    monkeypatch.setattr(cli_commands, "_store", store)
    work = _quay(store, "In the spring he married her")
    status, out, _ = _run(capsys, "ask", str(work.id), "Whom did Anna Grey marry?", "--mode", "rag",
                          "--answer", "extractive")
    assert status == 0
    assert "A: Thomas Reed: In the spring he married her" in out, out
    assert "(The sentence does not name Thomas Reed; the book's graph reads whom it means" in out


def test_who_is_someone_adds_what_the_graph_knows_as_of_the_chapter(store,  # noqa: ANN001
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """"Who is Thomas Reed?": the answer is a sentence of the book, and beneath it the graph's card (type,
    relationships, states) as of the chapter asked up to, never later: read up to chapter 1, the marriage of
    chapter 2 is not on it."""
    monkeypatch.setattr(cli_commands, "_store", store)
    work = _quay(store, "In the spring Thomas Reed married Anna Grey")
    status, out, _ = _run(capsys, "ask", str(work.id), "Who is Thomas Reed?", "--mode", "rag", "--answer",
                          "extractive", "--json")
    card = json.loads(out)["card"]
    assert status == 0 and card["name"] == "Thomas Reed" and card["type"] == "character" and card["position"] == 2
    assert any(r["with"] == "Anna Grey" and r["last_chapter"] == 2 and r["text"] == "Thomas Reed waited for Anna "
               "Grey" for r in card["relationships"]), card["relationships"]
    status, out, _ = _run(capsys, "ask", str(work.id), "Who is Thomas Reed?", "--mode", "rag", "--answer",
                          "extractive", "--upto", "1")
    told = out.split("Graph, as of chapter 1: Thomas Reed: character")[1].splitlines()[0]
    assert status == 0 and "waited" not in told and "married" not in told, out
