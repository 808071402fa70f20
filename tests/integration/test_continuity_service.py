"""Continuity through the product's own paths, on a real SQLite file: states stored with the graph build, flags,
an edited chapter re-checked incrementally (and the chapters it touches), "intended" marks kept across rebuilds
until the sentence changes, a draft checked before it is stored, the CLI's JSON lines, the Graph's details and
exports, and the writer's prompt."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.services import continuity_service, kg_service, kg_views, library

ROOT = Path(__file__).resolve().parents[2]
BOOK = """The Sled Dogs

Chapter 1

Buck was a big dog who lived at Judge Miller's place. Spitz was the lead dog of the team, and Spitz hated Buck.
Perrault drove the sled across the frozen lake every morning.

Chapter 2

Buck and Spitz fought on the river ice under the moon. Spitz fell, and the pack closed over him. Spitz died in the
snow that night, and Buck stood over him, the victor.

Chapter 3

The team went on along the trail toward Dawson. Perrault cracked his whip over the dogs. Buck led the team now.

Chapter 4

The snow was deep on the trail. Buck pulled hard at the head of the team, and Perrault sang to the dogs.
"""
PLANT = "Spitz ran beside Buck at the head of the team, snarling at the others."


@pytest.fixture
def built(store):
    work = library.import_book(store, "sled.txt", BOOK.encode())
    kg_service.build_graph(store, work.id)
    return store, work.id


def _edit(store, work_id: int, index: int, text: str) -> None:
    chapter = store.get_chapter(work_id, index)
    library.edit_chapter(store, work_id, index, text, chapter.revision)


def test_states_are_stored_with_the_build_and_a_clean_story_has_no_flags(built):
    store, work_id = built
    assert continuity_service.stale_chapters(store, work_id) == set()
    deaths = [s for s in store.states_list(work_id) if s.kind == "dead"]
    assert [(s.name, s.chapter) for s in deaths] == [("Spitz", 2)]
    text = store.get_chapter(work_id, 2).text
    assert text[deaths[0].start:deaths[0].end] == deaths[0].sentence
    assert continuity_service.list_flags(store, work_id) == []
    assert kg_service.graph_status(store, work_id).outdated == []


def test_an_edited_chapter_is_rechecked_and_marked_intended_stays_hidden_until_the_sentence_changes(built):
    store, work_id = built
    chapter = store.get_chapter(work_id, 4)
    _edit(store, work_id, 4, chapter.text + "\n\n" + PLANT)
    report = kg_service.update_chapter_graph(store, work_id, 4)
    assert "continuity" in report.timings
    (view,) = continuity_service.list_flags(store, work_id)
    flag = view.flag
    assert (flag.kind, flag.entity, flag.chapter, flag.prior_chapter) == ("dead", "Spitz", 4, 2)
    assert store.get_chapter(work_id, 4).text[flag.start:flag.end] == PLANT
    # marked intended: hidden, and still hidden after a full rebuild of the graph
    continuity_service.mark_intended(store, work_id, flag.key)
    assert continuity_service.list_flags(store, work_id) == []
    kg_service.build_graph(store, work_id, force=True)
    assert continuity_service.list_flags(store, work_id) == []
    assert [v.intended for v in continuity_service.list_flags(store, work_id, include_intended=True)] == [True]
    # the sentence changes: a new flag, shown again
    _edit(store, work_id, 4, store.get_chapter(work_id, 4).text.replace("snarling at the others", "barking"))
    kg_service.update_chapter_graph(store, work_id, 4)
    (again,) = continuity_service.list_flags(store, work_id)
    assert again.flag.sentence.endswith("barking.") and not again.intended


def test_a_change_reaches_the_later_chapters_it_touches_and_no_others(built):
    """Editing the death away clears the flag of a later chapter; a chapter the change cannot touch is not redone."""
    store, work_id = built
    _edit(store, work_id, 4, store.get_chapter(work_id, 4).text + "\n\n" + PLANT)
    kg_service.update_chapter_graph(store, work_id, 4)
    assert len(continuity_service.list_flags(store, work_id)) == 1
    before = store.states_list(work_id, chapter=2)
    text = store.get_chapter(work_id, 2).text
    edited = re.sub(r"Spitz died in the\s+snow", "Spitz limped away into the snow", text)
    assert edited != text
    _edit(store, work_id, 2, edited)
    kg_service.update_chapter_graph(store, work_id, 2)
    assert continuity_service.list_flags(store, work_id) == []
    report = continuity_service.recheck_chapter(store, work_id, 2, before)
    assert 2 in report.chapters and 1 not in report.chapters


def test_a_draft_is_checked_against_the_story_before_it_is_stored(built):
    store, work_id = built
    chapters = len(store.list_chapters(work_id))
    check = continuity_service.check_draft(store, work_id, "The dogs rested. " + PLANT)
    assert [(f.kind, f.entity, f.chapter) for f in check.flags] == [("dead", "Spitz", chapters + 1)]
    assert any("Spitz is dead" in line.text for line in check.established)
    assert len(store.list_chapters(work_id)) == chapters and continuity_service.list_flags(store, work_id) == []
    assert continuity_service.check_draft(store, work_id, "Buck slept by the fire.").flags == []
    with pytest.raises(ValueError):
        continuity_service.check_draft(store, work_id, "   ")


def test_the_graph_details_and_exports_carry_the_states_as_of_a_chapter(built):
    store, work_id = built
    data = kg_views.load_graph_data(store, work_id)
    view = kg_views.build_view(data, kg_views.ViewParams(mode="all", as_of=1, top_n=None))
    spitz = next(n for n, d in view.full.nodes(data=True) if d["label"] == "Spitz")
    assert kg_views.node_details(view, spitz).states == []          # alive as of chapter 1
    view = kg_views.build_view(data, kg_views.ViewParams(mode="all", as_of=3, top_n=None))
    states = kg_views.node_details(view, spitz).states
    assert [(s["kind"], s["chapter"]) for s in states] == [("dead", 2)]
    payload, _, _ = kg_views.export_work(store, work_id, "json")
    node = next(n for n in json.loads(payload)["nodes"] if n["label"] == "Spitz")
    assert node["states"][0]["state"] == "Spitz is dead"
    graphml, _, _ = kg_views.export_work(store, work_id, "graphml")
    assert b"Spitz is dead (chapter 2)" in graphml


def test_the_writer_prompt_carries_the_established_states(built):
    store, work_id = built
    text = continuity_service.prompt_states(store, work_id, ["Spitz", "Buck"], as_of=4)
    assert "Spitz is dead" in text and "since chapter 2" in text
    assert continuity_service.prompt_states(store, work_id, ["Perrault"], as_of=4) == ""


def test_cli_prints_one_json_object_a_line_and_exits_zero(tmp_path, monkeypatch):
    db = tmp_path / "cli.db"
    env = {"FABULA_DB_URL": f"sqlite:///{db}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "FABULA_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}
    book = tmp_path / "sled.txt"
    book.write_text(BOOK.replace("Chapter 4\n\n", "Chapter 4\n\n" + PLANT + " "))

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True, text=True,
                              env=env, cwd=ROOT, timeout=600)

    assert cli("ingest", str(book)).returncode == 0
    assert cli("kg", "build", "1").returncode == 0
    out = cli("continuity", "1", "--json")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(r["kind"], r["entity"], r["chapter"]) for r in lines] == [("dead", "Spitz", 4)]
    assert set(lines[0]) >= {"kind", "entity", "chapter", "sentence", "start", "end", "contradicts", "confidence"}
    assert set(lines[0]["contradicts"]) == {"chapter", "sentence", "start", "end"}
    out = cli("continuity", "1", "--chapter", "3", "--json")
    assert out.returncode == 0 and out.stdout.strip() == ""
    out = cli("continuity", "1", "--chapter", "3")    # the plain listing: an empty one says what it does not prove
    assert out.returncode == 0 and out.stdout.startswith("No continuity flags.")
    assert "no proof of consistency" in out.stdout and "found 5" in out.stdout


def test_cli_has_a_chapter_read_by_a_capable_model_through_its_api(tmp_path) -> None:  # noqa: ANN001
    """--read through the real OpenAI SDK to a local stub server: the cost first, then only the finding whose two
    sentences are in the book; an embedded model is refused with a way to Settings."""
    from tests.support.llm_server import LLMServer, Reply
    book = tmp_path / "sled.txt"
    book.write_text(BOOK.replace("Chapter 4\n\n", "Chapter 4\n\n" + PLANT + " "))
    finding = {"kind": "dead", "entity": "Spitz", "sentence": PLANT, "earlier_chapter": 2,
               "earlier": "Spitz died in the snow that night, and Buck stood over him, the victor."}
    with LLMServer() as server:
        server.default = Reply(json.dumps({"contradictions": [finding, dict(finding, earlier="Spitz was a cat.")]}))
        env = {"FABULA_DB_URL": f"sqlite:///{tmp_path / 'cli.db'}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
               "FABULA_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "sk-test",
               "OPENAI_BASE_URL": server.openai_url, "FABULA_OLLAMA_URL": "", "FABULA_LMSTUDIO_URL": ""}

        def cli(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True, text=True,
                                  env=env, cwd=ROOT, timeout=600)

        assert cli("ingest", str(book)).returncode == 0
        assert cli("kg", "build", "1").returncode == 0
        refused = cli("continuity", "1", "--read", "4", "--llm", "local:smollm2")
        assert refused.returncode != 0 and "Settings" in refused.stderr and not server.requests
        estimate = cli("continuity", "1", "--read", "4", "--llm", "openai:gpt-4o-mini", "--estimate", "--json")
        plan = json.loads(estimate.stdout)
        assert plan["calls"] == 1 and plan["input_tokens"] > 100 and plan["usd"] > 0 and not server.requests
        out = cli("continuity", "1", "--read", "4", "--llm", "openai:gpt-4o-mini", "--json")
        assert out.returncode == 0, out.stderr
        assert len(server.requests) == 1 and "Spitz" in json.dumps(server.requests[0].body)
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        assert [(r["kind"], r["entity"], r["chapter"], r["contradicts"]["chapter"]) for r in rows] == \
            [("dead", "Spitz", 4, 2)]
        assert "reads chapter 4" in out.stderr and "left out" in out.stderr
