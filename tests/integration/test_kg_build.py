"""The knowledge graph end to end with real spaCy on real chapters of Pride and Prejudice and a real SQLite file:
aliases, incremental updates equal a full rebuild, a killed build resumes to the same graph, decisions persist."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text, read_book
from core.services import kg_query, kg_service
from tests.conftest import novel_path

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pp_chapters() -> list[NewChapter]:
    path = novel_path("pride_and_prejudice_pg1342.txt")
    book = read_book(path.name, path.read_bytes())
    return [NewChapter(c.title, c.text, chunk_text(c.text)) for c in book.chapters[:8]]


def _work(store, chapters: list[NewChapter], title: str = "Pride and Prejudice") -> int:  # noqa: ANN001
    return store.create_work(title, "Jane Austen", WorkKind.BOOK, {}, chapters).id


def signature(store, work_id: int) -> tuple:  # noqa: ANN001
    """Everything a graph is, without database ids: entities by their names, and every triple."""
    entities = sorted((tuple(sorted(e.aliases)), e.label, e.type, e.first_chapter, e.mentions)
                      for e in store.kg_entities(work_id))
    triples = sorted((t.chapter_index, t.chunk_index, t.subject, t.relation, t.object, t.sentence, t.subject_name,
                      t.object_name) for t in store.kg_triples(work_id))
    return entities, triples


def _entity(store, work_id: int, name: str):  # noqa: ANN001, ANN202
    return kg_service.find_entity(store, work_id, name)


def test_real_chapter_gives_named_nodes_edges_and_facts_with_provenance(store, pp_chapters) -> None:  # noqa: ANN001
    work_id = _work(store, pp_chapters[:1])
    report = kg_service.build_graph(store, work_id)
    assert report.extracted == 1 and report.edges > 5 and report.facts > 3
    labels = {e.label for e in store.kg_entities(work_id)}
    assert {"Mr. Bennet", "Mrs. Long", "Mr. Bingley"} <= labels
    chunk_ids = {c.id for c in store.list_chunks(work_id)}
    for t in store.kg_triples(work_id):
        assert t.chapter_index == 1 and t.chunk_id in chunk_ids and t.sentence and t.relation
        # the subject is in the sentence, or it is the name a pronoun there was resolved to ("You take delight in
        # vexing me": Mrs. Bennet to Mr. Bennet)
        assert t.subject in t.sentence or t.subject.split()[-1] in t.sentence or t.subject == t.subject_name
    made = [t for t in store.kg_triples(work_id, kind="edges") if t.subject_name == "Mr. Bennet"]
    assert any(t.relation == "made" and t.object == "no answer" for t in made)


def test_elizabeth_is_one_node_and_the_bennets_two(store, pp_chapters) -> None:  # noqa: ANN001
    work_id = _work(store, pp_chapters)
    kg_service.build_graph(store, work_id)
    elizabeth = _entity(store, work_id, "Elizabeth")
    assert {"Elizabeth", "Lizzy", "Eliza"} <= set(elizabeth.aliases)
    assert _entity(store, work_id, "Mr. Bennet").id != _entity(store, work_id, "Mrs. Bennet").id
    assert _entity(store, work_id, "Darcy").id == _entity(store, work_id, "Mr. Darcy").id
    who = kg_query.alias_resolver(store, work_id)
    assert who("Lizzy").id == who("Miss Eliza Bennet's").id == elizabeth.id
    present = dict((e.label, n) for e, n in kg_query.entities_in_chapter(store, work_id, 3))
    assert present.get("Mr. Darcy", 0) > 0 and "Mr. Collins" not in present
    facts = kg_query.facts_for_retrieval(store, work_id, upto_chapter=2)
    assert facts and max(f.chapter for f in facts) <= 2 and all(f.sentence for f in facts)
    assert any(f.subject_entity == elizabeth.id for f in kg_query.facts_for_retrieval(store, work_id))


def test_adding_a_chapter_equals_a_full_rebuild(store, pp_chapters) -> None:  # noqa: ANN001
    incremental = _work(store, pp_chapters[:5], "incremental")
    kg_service.build_graph(store, incremental)
    store.add_chapter(incremental, pp_chapters[5])
    assert kg_service.graph_status(store, incremental).pending == [6]
    report = kg_service.update_chapter_graph(store, incremental, 6)
    assert report.extracted == 1 and kg_service.graph_status(store, incremental).up_to_date
    full = _work(store, pp_chapters[:6], "full")
    kg_service.build_graph(store, full)
    assert signature(store, incremental) == signature(store, full)


def test_editing_a_chapter_replaces_only_its_contribution(store, pp_chapters) -> None:  # noqa: ANN001
    work_id = _work(store, pp_chapters[:3])
    kg_service.build_graph(store, work_id)
    before = {t.chapter_index: {x.id for x in store.kg_triples(work_id, chapter=t.chapter_index)}
              for t in store.kg_triples(work_id)}
    chapter = store.get_chapter(work_id, 2)
    text = chapter.text + "\n\nMr. Wickham visited Pemberley with Georgiana."
    store.update_chapter(work_id, 2, text, chunk_text(text), chapter.revision)
    assert kg_service.graph_status(store, work_id).pending == [2]
    report = kg_service.build_graph(store, work_id)
    assert report.extracted == 1
    after = {i: {x.id for x in store.kg_triples(work_id, chapter=i)} for i in (1, 2, 3)}
    assert after[1] == before[1] and after[3] == before[3] and after[2].isdisjoint(before[2])
    assert any(t.subject_name == "Mr. Wickham" for t in store.kg_triples(work_id, chapter=2))


def test_a_killed_build_resumes_to_the_same_graph(store, pp_chapters) -> None:  # noqa: ANN001
    chapters = pp_chapters[:5]
    killed = _work(store, chapters, "killed")

    def die_after_three(done: int, total: int, message: str) -> None:
        if done == 3:
            raise KeyboardInterrupt("killed")

    with pytest.raises(KeyboardInterrupt):
        kg_service.build_graph(store, killed, on_progress=die_after_three)
    assert sorted(store.kg_extracted_chapters(killed)) == [1, 2, 3]
    assert kg_service.graph_status(store, killed).unfinished_job
    seen: list[int] = []
    report = kg_service.build_graph(store, killed, on_progress=lambda d, t, m: seen.append(t))
    assert report.resumed and report.extracted == 2 and seen[0] == 2
    clean = _work(store, chapters, "clean")
    kg_service.build_graph(store, clean)
    assert signature(store, killed) == signature(store, clean)
    assert not kg_service.graph_status(store, killed).unfinished_job


def test_user_decisions_survive_reextraction(store, pp_chapters) -> None:  # noqa: ANN001
    work_id = _work(store, pp_chapters[:3])
    kg_service.build_graph(store, work_id)
    merged = kg_service.merge_entities(store, work_id, ["Mr. Bennet", "Mrs. Bennet"])
    assert {"Mr. Bennet", "Mrs. Bennet"} <= set(merged.aliases)
    renamed = kg_service.rename_entity(store, work_id, "Mr. Bingley", "Charles Bingley")
    kept, moved = kg_service.split_entity(store, work_id, "Mr. Darcy", ["Darcy"])
    assert kept.id != moved.id and moved.aliases == ["Darcy"]
    kg_service.build_graph(store, work_id, force=True)
    assert _entity(store, work_id, "Mr. Bennet").id == _entity(store, work_id, "Mrs. Bennet").id
    assert _entity(store, work_id, "Bingley").label == "Charles Bingley" and renamed.label == "Charles Bingley"
    assert _entity(store, work_id, "Darcy").id != _entity(store, work_id, "Mr. Darcy").id
    with pytest.raises(kg_service.KgError):
        kg_service.split_entity(store, work_id, "Elizabeth", ["Nobody"])


def test_cli_build_show_export_and_decisions(db_url: str, fresh_settings, pp_chapters, tmp_path: Path,  # noqa: ANN001
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import json

    import cli
    import cli_commands
    fresh_settings.setenv("FABULA_DB_URL", db_url)
    fresh_settings.setattr(cli_commands, "_store", None)
    store = cli_commands.open_store()
    work_id = _work(store, pp_chapters[:2])

    def run(*argv: str) -> object:
        assert cli.main([*argv, "--json"]) == 0, capsys.readouterr().err
        return json.loads(capsys.readouterr().out)

    built = run("kg", "build", str(work_id))
    assert built["extracted"] == 2 and built["entities"] > 5 and built["seconds"] > 0
    for fmt in ("json", "graphml", "gexf", "csv", "lorebook"):
        out = tmp_path / f"graph.{fmt}"
        assert run("kg", "export", str(work_id), "--format", fmt, "--as-of", "1", "--out", str(out))["bytes"] > 100
    nodes = json.loads((tmp_path / "graph.json").read_text())["nodes"]
    assert all(n["first_chapter"] == 1 for n in nodes)
    assert run("kg", "rename", str(work_id), "Mr. Bennet", "Thomas Bennet")["label"] == "Thomas Bennet"
    merged = run("kg", "merge", str(work_id), "Thomas Bennet", "Mrs. Bennet")
    assert {"Mr. Bennet", "Mrs. Bennet"} <= set(merged["names"])
    split = run("kg", "split", str(work_id), "Mr. Bennet", "Mrs. Bennet")
    assert split["new"]["names"] == ["Mrs. Bennet"]
    shown = run("kg", "show", str(work_id), "--entity", "Lizzy")
    assert shown["label"] in ("Lizzy", "Elizabeth") and shown["facts"]
    assert cli.main(["kg", "merge", str(work_id), "Nobody", "Jane"]) == 1
    assert "No entity 'Nobody'" in capsys.readouterr().err


def test_llm_build_estimate_counts_pending_chapters_and_is_free_locally(store) -> None:  # noqa: ANN001
    from core.domain import NewChapter, WorkKind
    from core.services import kg_service
    text = "Anna met Boris in Paris. " * 300  # 1,500 words: one segment
    work = store.create_work("E", None, WorkKind.BOOK, {}, [NewChapter("C1", text, [text]), NewChapter("C2", text, [text])])
    est = kg_service.llm_build_estimate(store, work.id)
    assert est.units == 2 and est.calls == 2  # chapters, segments
    assert est.input_tokens == int(3000 * kg_service.TOKENS_PER_WORD) + 2 * kg_service.PROMPT_TOKENS_PER_SEGMENT
    assert est.output_tokens == 2 * kg_service.OUTPUT_TOKENS_PER_SEGMENT
    assert est.usd == 0  # the default extraction model is local
