"""The retention service on real SQLite and real spaCy: a real chapter, caching by revision, resuming, the CLI."""
from __future__ import annotations

import json
import re

import pytest

import cli
import cli_commands
from core.domain import NewChapter, WorkKind
from core.metrics.extract import load_nlp
from core.services import retention_service as retention
from tests.conftest import novel_path


class CountingNLP:
    """The real spaCy pipeline, recording every passage it is asked to parse."""

    def __init__(self) -> None:
        self.nlp = load_nlp()
        self.pipe_names = self.nlp.pipe_names
        self.passages: list[str] = []

    def pipe(self, items, **kwargs):  # noqa: ANN001, ANN201 - same signature as Language.pipe
        def record():  # noqa: ANN202
            for item in items:
                self.passages.append(item[0])
                yield item
        return self.nlp.pipe(record(), **kwargs)


def _story(store, title: str = "Harbour"):  # noqa: ANN001, ANN202
    chapters = [
        ("One", "Anna Marsh met Tom Reed at the harbour. Anna Marsh thanked Tom Reed for the lamp."),
        ("Two", "Tom Reed sailed north. Mara Quill watched Tom Reed from the pier."),
        ("Three", "Anna Marsh wrote to Mara Quill. Mara Quill never answered Anna Marsh."),
    ]
    return store.create_work(title, None, WorkKind.STORY, {}, [NewChapter(t, x, [x]) for t, x in chapters])


def test_a_real_chapter_of_pride_and_prejudice(store) -> None:  # noqa: ANN001
    text = novel_path("pride_and_prejudice_pg1342.txt").read_text(encoding="utf-8")
    chapter1 = re.split(r"\n\s*Chapter \d+\s*\n", text)[1]
    work = store.create_work("P&P", None, WorkKind.BOOK, {}, [NewChapter("Chapter 1", chapter1, [chapter1])])
    result = retention.analyse_work(store, work.id)
    ch = result.chapters[0]
    assert {"Mr. Bennet", "Mr. Bingley", "Jane", "Sir William", "Lady Lucas"} <= set(ch.names)
    assert ch.names[0] == "Mr. Bennet" and ch.character_counts["Mr. Bennet"] >= 5  # "Mr." kept: not Mrs. Bennet
    # "Sir William and Lady Lucas are determined to go"; "...Lizzy... Jane" a sentence apart
    assert {("Lady Lucas", "Sir William"), ("Jane", "Lizzy")} <= set(ch.relationship_counts)
    assert ch.characters.total == len(ch.names) and ch.characters.new == ch.characters.total
    assert ch.characters.chapter1 == 1.0 and ch.characters.rolling is None and ch.characters.cumulative == 0.0


def test_editing_one_chapter_reparses_only_that_chapter(store) -> None:  # noqa: ANN001
    work = _story(store)
    nlp = CountingNLP()
    first = retention.analyse_work(store, work.id, nlp=nlp)
    assert first.recomputed == [1, 2, 3] and len(nlp.passages) == 3
    assert [c.names for c in first.chapters] == [["Anna Marsh", "Tom Reed"], ["Tom Reed", "Mara Quill"],
                                                 ["Anna Marsh", "Mara Quill"]]
    assert first.chapters[1].characters.rolling == 0.5 and first.chapters[2].characters.chapter1 == 0.5

    nlp.passages.clear()
    again = retention.analyse_work(store, work.id, nlp=nlp)
    assert again.recomputed == [] and nlp.passages == []
    assert again.to_json() == first.to_json()

    chapter = store.get_chapter(work.id, 2)
    new_text = "Anna Marsh sailed north with Tom Reed. Tom Reed laughed."
    store.update_chapter(work.id, 2, new_text, [new_text], expected_revision=chapter.revision)
    assert retention.stale_chapters(store, work.id) == [2]
    edited = retention.analyse_work(store, work.id, nlp=nlp)
    assert edited.recomputed == [2] and nlp.passages == [new_text]
    assert edited.chapters[1].names == ["Tom Reed", "Anna Marsh"]
    assert edited.chapters[1].characters.chapter1 == 1.0
    assert store.get_analyses(work.id, retention.ANALYSIS_KIND)[2][0] == chapter.revision + 1


def test_an_interrupted_run_keeps_finished_chapters(store) -> None:  # noqa: ANN001
    work = _story(store)

    def stop_after_first(done: int, total: int, message: str) -> None:
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        retention.analyse_work(store, work.id, on_progress=stop_after_first)
    assert retention.stale_chapters(store, work.id) == [2, 3]
    assert retention.analyse_work(store, work.id).recomputed == [2, 3]


def test_an_older_extractor_version_is_redone(store) -> None:  # noqa: ANN001
    work = _story(store)
    store.put_analysis(work.id, 1, retention.ANALYSIS_KIND, 1, {"v": 0, "whatever": True})
    assert retention.stale_chapters(store, work.id) == [1, 2, 3]
    retention.analyse_work(store, work.id)
    assert retention.stale_chapters(store, work.id) == []


def test_compare_two_works_and_csv(store) -> None:  # noqa: ANN001
    a, b = _story(store, "A"), _story(store, "B")
    comparison = retention.compare_works(store, a.id, [b.id])
    assert len(comparison.rows) == 10
    total = comparison.rows[0]
    assert (total.label, total.a.n, total.b.n, total.a.mean) == ("Total Characters", 3, 3, 2.0)
    assert total.test.t is None  # identical constant samples: no t
    lines = comparison.csv().splitlines()
    assert lines[0].startswith("kind,Metric,M (A)") and len(lines) == 11
    csv_lines = retention.retention_csv(retention.analyse_work(store, a.id)).splitlines()
    assert csv_lines[0].startswith("chapter,title,characters_total") and len(csv_lines) == 4


def test_cli_json(store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    monkeypatch.setattr(cli_commands, "_store", store)
    a, b = _story(store, "A"), _story(store, "B")
    assert cli.main(["retention", str(a.id), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ch2 = doc["chapters"][1]
    assert ch2["index"] == 2
    assert set(ch2["characters"]) == {"total", "new", "chapter1", "rolling", "cumulative", "names"}
    assert set(ch2["relationships"]) == {"total", "new", "chapter1", "rolling", "cumulative", "pairs"}
    assert ch2["relationships"]["pairs"] == [["Mara Quill", "Tom Reed"]]

    assert cli.main(["retention-compare", str(a.id), str(b.id), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    assert {(m["kind"], m["metric"]) for m in metrics} >= {("characters", "chapter1"), ("relationships", "new")}
    assert set(metrics[0]) >= {"a", "b", "t", "p", "d"} and set(metrics[0]["a"]) == {"mean", "sd", "n"}

    assert cli.main(["retention", "999", "--json"]) == 1
    assert "No work with id 999" in capsys.readouterr().err
    assert cli.main(["retention-compare", str(a.id), "--json"]) == 1


class StoreWithGraph:
    """The real store, with a fixed alias graph in place of the knowledge-graph tables."""

    def __init__(self, store, entities) -> None:  # noqa: ANN001
        self._store, self._entities = store, entities

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self._store, name)

    def kg_entities(self, work_id: int):  # noqa: ANN201
        return self._entities

    def kg_name_counts(self, work_id: int, upto_chapter: int | None = None):  # noqa: ANN201
        from core.kg.types import NameCount
        return [NameCount(n.name, n.first_chapter, e.type, n.count) for e in self._entities for n in e.names]


def test_the_works_alias_graph_is_used_when_present(store) -> None:  # noqa: ANN001
    from core.kg.types import EntityName, KgEntity
    text = "Lizzy met Tom Reed at the harbour. Elizabeth Bennet thanked Tom Reed. Lizzy smiled."
    work = store.create_work("Lizzy", None, WorkKind.STORY, {}, [NewChapter("One", text, [text])])
    plain = retention.analyse_work(store, work.id).chapters[0]
    assert set(plain.names) == {"Lizzy", "Elizabeth Bennet", "Tom Reed"}

    graph = [KgEntity(1, "Elizabeth Bennet", "character", [EntityName("Elizabeth Bennet", 1, 1),
                                                           EntityName("Lizzy", 1, 2)], 1, 3),
             KgEntity(2, "Tom Reed", "object", [EntityName("Tom Reed", 1, 2)], 1, 2)]  # say the graph knows better
    resolved = retention.analyse_work(StoreWithGraph(store, graph), work.id).chapters[0]
    assert resolved.names == ["Elizabeth Bennet"] and resolved.character_counts["Elizabeth Bennet"] == 3
    assert resolved.relationship_counts == {}
