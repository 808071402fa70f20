"""A real database, a SQLite file and a PostgreSQL database each: migrations from empty and from an older
revision, cascades, revisions, jobs, atomic failures; SQLite's pragmas and integrity check."""
from __future__ import annotations

import sqlite3

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from core.domain import ChapterSource, NewChapter, WorkKind
from core.store import NotFound, StaleRevision
from storage.db import alembic_config, make_engine, migrate
from storage.repository import SqlStore


def _chapters(n: int = 3) -> list[NewChapter]:
    return [NewChapter(title=f"Chapter {i}", text=f"Text of chapter {i}. It has words.", chunks=[f"Text of {i}."])
            for i in range(1, n + 1)]


@pytest.fixture
def db_url(any_db_url: str) -> str:
    """Every test here runs on a fresh SQLite file and on a fresh PostgreSQL database."""
    return any_db_url


def test_migrations_from_an_empty_database(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    migrate(engine)  # idempotent
    tables = set(inspect(engine).get_table_names())
    assert {"works", "chapters", "chunks", "jobs", "chapter_revisions", "app_meta", "llm_calls",
            "alembic_version"} <= tables
    head = ScriptDirectory.from_config(alembic_config(db_url)).get_current_head()
    with engine.connect() as conn:
        assert conn.execute(text("select version_num from alembic_version")).scalars().all() == [head]
    engine.dispose()


def test_a_database_at_an_older_revision_is_upgraded(db_url: str) -> None:
    engine = make_engine(db_url)
    command.upgrade(alembic_config(db_url), "0006")
    assert "content_sha256" not in {c["name"] for c in inspect(engine).get_columns("works")}
    migrate(engine)
    assert "content_sha256" in {c["name"] for c in inspect(engine).get_columns("works")}
    engine.dispose()


def test_sqlite_gets_wal_foreign_keys_and_a_busy_timeout(tmp_path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'pragmas.db'}")
    migrate(engine)
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar_one().lower() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar_one() == 1
        assert conn.execute(text("PRAGMA busy_timeout")).scalar_one() >= 5000
    engine.dispose()


def test_create_list_and_delete_cascades(store: SqlStore) -> None:
    work = store.create_work("Book", "Someone", WorkKind.BOOK, {"a": 1}, _chapters(3))
    assert (work.chapter_count, work.word_count) == (3, 21)
    assert [c.index for c in store.list_chapters(work.id)] == [1, 2, 3]
    assert len(store.list_chunks(work.id)) == 3
    assert len(store.list_chunks(work.id, upto_chapter=2)) == 2
    job = store.open_job(work.id, "kg", total=3)
    store.record_llm_usage(work_id=work.id, job_id=job.id, role="extraction", provider="fake", model="x",
                           input_tokens=10, output_tokens=5, seconds=0.1)
    store.delete_work(work.id)
    counts = store.table_counts()
    assert counts["chapters"] == counts["chunks"] == counts["chapter_revisions"] == counts["jobs"] == 0
    assert counts["llm_calls"] == 0
    with pytest.raises(NotFound):
        store.get_work(work.id)


def test_revision_check_prevents_lost_updates(store: SqlStore) -> None:
    work = store.create_work("Story", None, WorkKind.STORY, {}, _chapters(1))
    ch = store.get_chapter(work.id, 1)
    saved = store.update_chapter(work.id, 1, "First edit.", ["First edit."], expected_revision=ch.revision,
                                 source=ChapterSource.WRITTEN)
    assert saved.revision == 2
    with pytest.raises(StaleRevision):
        store.update_chapter(work.id, 1, "Second edit from a stale tab.", [], expected_revision=ch.revision)
    revisions = store.chapter_revisions(work.id, 1)
    assert [r[0] for r in revisions] == [1, 2]
    assert revisions[0][2].startswith("Text of chapter 1")  # the original text is never lost
    assert store.get_chapter(work.id, 1).text == "First edit."


def test_failed_create_leaves_nothing_behind(store: SqlStore) -> None:
    before = store.table_counts()
    bad = _chapters(2) + [NewChapter(title=None, text="x", chunks=[])]  # type: ignore[arg-type]
    with pytest.raises(Exception):
        store.create_work("Broken", None, WorkKind.BOOK, {}, bad)
    assert store.table_counts() == before


def test_jobs_and_meta_round_trip(store: SqlStore) -> None:
    work = store.create_work("B", None, WorkKind.BOOK, {}, _chapters(1))
    job = store.open_job(work.id, "kg", total=5)
    store.update_job(job.id, done=2, state={"next": 3})
    store.update_job(job.id, state={"extra": True})
    again = store.latest_job(work.id, "kg")
    assert again is not None and again.done == 2 and again.state == {"next": 3, "extra": True}
    store.set_meta("k", "v")
    store.set_meta("k", "w")
    assert store.get_meta("k") == "w"
    assert store.get_meta("missing") is None


def test_a_new_job_retires_an_earlier_one_left_running_by_a_crash(store: SqlStore) -> None:
    work = store.create_work("B", None, WorkKind.BOOK, {}, _chapters(1))
    other = store.create_work("C", None, WorkKind.BOOK, {}, _chapters(1))
    killed, finished, elsewhere = (store.open_job(work.id, "kg", total=5), store.open_job(work.id, "narco", total=1),
                                   store.open_job(other.id, "kg", total=1))
    store.update_job(finished.id, status="done")
    new = store.open_job(work.id, "kg", total=5)
    assert store.get_job(killed.id).status.value == "failed"
    assert store.get_job(new.id).status.value == "running"
    assert store.get_job(finished.id).status.value == "done"          # other kinds are left alone
    assert store.get_job(elsewhere.id).status.value == "running"      # and other works


def test_database_file_passes_integrity_check(tmp_path) -> None:
    path = tmp_path / "integrity.db"
    store = SqlStore.from_url(f"sqlite:///{path}")
    store.create_work("B", None, WorkKind.BOOK, {}, _chapters(2))
    store.engine.dispose()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_chapter_analyses_are_replaced_and_cascade(store: SqlStore) -> None:
    work = store.create_work("B", None, WorkKind.BOOK, {}, _chapters(2))
    store.put_analysis(work.id, 1, "retention", 1, {"names": ["A"]})
    store.put_analysis(work.id, 1, "retention", 2, {"names": ["B"]})
    store.put_analysis(work.id, 2, "other", 1, {})
    assert store.get_analyses(work.id, "retention") == {1: (2, {"names": ["B"]})}
    store.delete_work(work.id)
    assert store.table_counts()["chapter_analyses"] == 0
