"""The Remember Me loop through the write service on a real SQLite store, with a scripted FakeLLM as writer and
grapher: chapters appear, the final flag ends the story, the grapher reuses canonical ids, chapter 2's prompt knows
chapter 1's characters, a cut-off turn resumes, user text is never overwritten, the twin, the CLI."""
from __future__ import annotations

import json

import pytest

from core.domain import ChapterSource, NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM
from core.services import continuation_service as cs
from core.services import write_service as ws
from core.store import StaleRevision
from core.write import ContinueParams, Phase, WriteParams

CHAPTERS = {
    1: "Elena Voss found the egg behind the barn. Her brother Tomas Voss laughed at her.\n\n"
       "Elena Voss carried the egg home to Millbrook.",
    2: "Elena watched the egg crack. Tomas Voss ran for the elder, Mara Quill.\n\nSTORY STATUS: CONTINUE",
    3: "The dragon flew over Millbrook. Elena Voss wept, and Mara Quill blessed her.\nSTORY STATUS: FINAL",
}


def grapher_reply(chapter: str) -> str:
    """What a good grapher answers: canonical ids for known people ("Elena" -> Elena_Voss), new ones for others."""
    nodes, edges = [{"id": "Elena_Voss", "label": "Elena" if "Elena Voss" not in chapter else "Elena Voss",
                     "type": "character"}], []
    if "Tomas" in chapter:
        nodes.append({"id": "Tomas_Voss", "label": "Tomas Voss", "type": "character"})
        edges.append({"from": "Tomas_Voss", "to": "Elena_Voss", "label": "brother of"})
    if "Mara" in chapter:
        nodes.append({"id": "Mara_Quill", "label": "Mara Quill", "type": "character"})
    if "Millbrook" in chapter:
        nodes.append({"id": "Millbrook", "label": "Millbrook", "type": "location"})
        edges.append({"from": "Elena_Voss", "to": "Millbrook", "label": "lives in"})
    return json.dumps({"nodes": nodes, "edges": edges})


def scripted(messages, options) -> str:  # noqa: ANN001
    system, user = messages[0].content, messages[-1].content
    if "KNOWLEDGE-GRAPH AGENT" in system:
        return grapher_reply(user)
    if "Answer with one word" in user:
        return "CONTINUE"
    if "Continue this text" in user:
        return "The dragon slept."
    return CHAPTERS[int(user.split("Chapter ")[1].split()[0])]


@pytest.fixture
def llm() -> FakeLLM:
    return FakeLLM(scripted)


def _story(store, **kw) -> int:  # noqa: ANN001, ANN003
    return ws.start_story(store, "The Egg", WriteParams("5", "Icarus", **kw)).id


def test_the_loop_writes_until_the_final_flag(store, llm: FakeLLM) -> None:  # noqa: ANN001
    work_id = _story(store, max_chapters=10)
    results = ws.write_story(store, work_id, llm)
    assert [r["chapter"] for r in results] == [1, 2, 3] and results[-1]["finished"]
    assert [r["decided_by"] for r in results] == ["first", "marker", "marker"]
    chapters = store.list_chapters(work_id)
    assert [c.source for c in chapters] == [ChapterSource.GENERATED] * 3
    assert "STORY STATUS" not in store.get_chapter(work_id, 3).text
    assert ws.story_state(store, work_id).phase is Phase.DONE
    with pytest.raises(ws.WriteError, match="finished"):
        ws.next_chapter(store, work_id, llm)

    # the grapher saw chapter 1's canonical entities when reading chapter 2, and reused their ids
    grapher_prompts = [c.messages[0].content for c in llm.calls if "KNOWLEDGE-GRAPH AGENT" in c.messages[0].content]
    assert len(grapher_prompts) == 3 and 'id="Elena_Voss"' not in grapher_prompts[0]
    assert 'id="Elena_Voss" label="Elena Voss" type="character"' in grapher_prompts[1]
    elena = [e for e in store.kg_entities(work_id) if e.label == "Elena Voss"]
    assert len(elena) == 1 and {n.name for n in elena[0].names} == {"Elena Voss", "Elena"}  # one entity, an alias
    assert {n.first_chapter for n in elena[0].names} == {1, 2}

    # the writer's prompt for chapter 2 carries chapter 1's characters in the knowledge-graph block
    second = next(c.prompt for c in llm.calls if "Write Chapter 2 and decide" in c.prompt)
    block = second[second.index("KNOWLEDGE GRAPH"):]
    assert "Elena Voss (character)" in block and "Tomas Voss (character)" in block
    assert "Tomas Voss -[brother of]-> Elena Voss" in block and "Mara Quill" not in block


def test_the_chapter_limit_and_the_no_kg_twin(store, llm: FakeLLM) -> None:  # noqa: ANN001
    work_id = _story(store, max_chapters=2)
    twin_id = ws.create_twin(store, work_id).id
    assert store.get_work(work_id).settings["twin"] == twin_id
    ws.write_story(store, twin_id, llm)
    assert len(store.list_chapters(twin_id)) == 2 and ws.story_state(store, twin_id).finished  # the limit
    assert not any("KNOWLEDGE" in c.prompt for c in llm.calls)   # neither a grapher nor a graph block
    assert not store.kg_entities(twin_id)


def test_a_turn_cut_off_in_the_grapher_resumes_without_rewriting(store) -> None:  # noqa: ANN001
    work_id = _story(store, max_chapters=5)
    broken = FakeLLM([CHAPTERS[1], RuntimeError("grapher down")])
    with pytest.raises(RuntimeError):
        ws.next_chapter(store, work_id, broken)
    assert len(store.list_chapters(work_id)) == 1           # the chapter was committed before the grapher ran
    assert ws.story_state(store, work_id).phase is Phase.GRAPH
    retry = FakeLLM(scripted)
    result = ws.next_chapter(store, work_id, retry)
    assert result["decided_by"] == "resumed" and len(store.list_chapters(work_id)) == 1
    assert [c for c in retry.calls if "Write Chapter" in c.prompt] == []    # nothing was written twice
    assert ws.story_state(store, work_id).next_chapter == 2 and store.kg_entities(work_id)


def test_accepting_a_chapter_first_finishes_a_cut_off_turn(store) -> None:  # noqa: ANN001
    work_id = _story(store, max_chapters=5)
    with pytest.raises(RuntimeError):
        ws.next_chapter(store, work_id, FakeLLM([CHAPTERS[1], RuntimeError("grapher down")]))
    ws.accept_chapter(store, work_id, "Elena Voss wrote this one herself.", source=ChapterSource.WRITTEN,
                      llm=FakeLLM(scripted))
    assert sorted(store.kg_extracted_chapters(work_id)) == [1, 2]   # chapter 1's graph step ran first
    assert ws.story_state(store, work_id).next_chapter == 3
    with pytest.raises(ws.WriteError, match="not-a-provider"):
        ws.start_story(store, "Bad", WriteParams("1", "Icarus", llm="not-a-provider:x"))


def test_user_text_is_never_overwritten(store, llm: FakeLLM) -> None:  # noqa: ANN001
    work_id = _story(store, max_chapters=5, extractor="offline")
    mine = "Mara Quill kept the lighthouse for forty years.\n\nTonight its lamp went dark."
    chapter = ws.accept_chapter(store, work_id, mine, title="Mine", source=ChapterSource.WRITTEN)
    assert store.get_chapter(work_id, 1).source is ChapterSource.WRITTEN
    assert store.kg_extracted_chapters(work_id)              # the grapher ingested the user's chapter
    # the next generated chapter is added after it; the user's chapter is untouched
    ws.next_chapter(store, work_id, FakeLLM([CHAPTERS[2]]))
    assert store.get_chapter(work_id, 1).text == mine and len(store.list_chapters(work_id)) == 2
    # continue from the cursor: the kept text plus the continuation become a new revision; the old one stays
    out = cs.continue_work(store, work_id, ContinueParams(mode="plain", tokens=8), llm,
                           text="Mara Quill kept the lighthouse", chapter=1)
    saved = cs.save_continuation(store, work_id, 1, "Mara Quill kept the lighthouse", out.text, chapter.revision)
    assert saved.revision == 2 and saved.text == "Mara Quill kept the lighthouse The dragon slept."
    assert [(r, text) for r, _, text in store.chapter_revisions(work_id, 1)] == [(1, mine), (2, saved.text)]
    with pytest.raises(StaleRevision):                        # a stale editor cannot overwrite revision 2
        cs.save_continuation(store, work_id, 1, "old", "text", chapter.revision)
    assert store.get_chapter(work_id, 1).text == saved.text


def test_continue_any_work_in_each_mode(store, llm: FakeLLM) -> None:  # noqa: ANN001
    from core.services.kg_service import build_graph
    text = ("Elena Voss lived in Millbrook with her brother Tomas Voss. Elena Voss loved the old mill.\n\n"
            "Tomas Voss sold the mill to Mara Quill.\n\nOne night Elena Voss heard a knock at the door.")
    work = store.create_work("Book", None, WorkKind.BOOK, {}, [NewChapter("One", text, chunk_text(text))])
    build_graph(store, work.id)
    results = {m: cs.continue_work(store, work.id, ContinueParams(mode=m, tokens=10), llm)
               for m in ("plain", "kg-prompt", "kg-block")}
    assert all(r.text == "The dragon slept." for r in results.values())
    assert results["plain"].prompt == text and not results["plain"].facts
    kg = results["kg-prompt"]
    assert 1 <= len(kg.facts) <= 3 and kg.prompt.endswith("\n\nOne night Elena Voss heard a knock at the door.")
    assert kg.facts[0]["text"] in kg.prompt.rsplit("\n\n", 2)[1]     # inserted before the last paragraph
    assert results["kg-block"].prompt.startswith("KNOWLEDGE GRAPH") and "Elena Voss" in results["kg-block"].prompt


def test_cli_story_and_continue(db_url: str, monkeypatch: pytest.MonkeyPatch, capsys, tmp_path) -> None:  # noqa: ANN001
    import cli
    import cli_commands
    from core.config import get_settings
    monkeypatch.setenv("FABULA_DB_URL", db_url)
    monkeypatch.setattr(cli_commands, "_store", None)
    get_settings.cache_clear()
    try:
        assert cli.main(["story", "new", "--premise", "7", "--arc", "man in a hole", "--chapters", "3", "--no-kg",
                         "--json"]) == 0
        created = json.loads(capsys.readouterr().out)
        assert created["arc"] == "Man in a Hole" and created["use_kg"] is False
        assert cli.main(["story", "next", str(created["work_id"]), "--llm", "fake:echo", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["chapter"] == 1
        assert cli.main(["continue", str(created["work_id"]), "--mode", "kg-prompt", "--tokens", "5",
                         "--llm", "fake:echo", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert set(out) >= {"text", "mode", "facts", "prompt", "seconds"} and out["mode"] == "kg-prompt"
        assert cli.main(["story", "export", str(created["work_id"]), "--format", "epub", "--out",
                         str(tmp_path / "s.epub"), "--json"]) == 0
        assert (tmp_path / "s.epub").read_bytes()[:2] == b"PK"
        assert cli.main(["story", "new", "--premise", "11", "--arc", "icarus"]) == 1
        assert "Premise number must be 1 to 10" in capsys.readouterr().err
    finally:
        cli_commands._store = None
        get_settings.cache_clear()
