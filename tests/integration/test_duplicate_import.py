"""A file imported twice is recognised by the SHA-256 of its bytes (stored on the work, migration 0007): the service
refuses it unless a copy is asked for, naming the work already there; `cli.py ingest` exits with status 3 unless
`--copy` is given. A database made before 0007 upgrades, its works without a hash."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text

from core.services import library
from storage.db import alembic_config, make_engine, migrate
from storage.repository import SqlStore

ROOT = Path(__file__).resolve().parents[2]
BOOK = ("Chapter 1\n\nRuth walked to the harbour and counted the boats. " * 40
        + "\n\nChapter 2\n\nThe storm came in the night and Ruth lit the lamp. " * 40).encode()


def test_the_same_bytes_are_refused_unless_a_copy_is_asked_for(store: SqlStore) -> None:
    first = library.import_book(store, "harbour.txt", BOOK)
    before = store.table_counts()
    with pytest.raises(library.AlreadyInLibrary) as caught:
        library.import_book(store, "renamed.txt", BOOK, allow_copy=False)
    assert caught.value.existing.id == first.id and f"work {first.id}" in str(caught.value)
    assert store.table_counts() == before, "a refused duplicate stores nothing"
    copy = library.import_book(store, "harbour.txt", BOOK)  # the default (scripts, the bench): a copy
    assert copy.id != first.id and copy.chapter_count == first.chapter_count
    assert library.find_same_book(store, BOOK).id == first.id  # the first import is "the" work
    assert [w.id for w in store.find_works_by_content(library.content_hash(BOOK))] == [first.id, copy.id]
    assert library.content_hash(BOOK) == hashlib.sha256(BOOK).hexdigest()


def test_other_bytes_are_another_book_and_a_deleted_work_is_forgotten(store: SqlStore) -> None:
    first = library.import_book(store, "harbour.txt", BOOK)
    other = library.import_book(store, "harbour.txt", BOOK.replace(b"Ruth", b"Anna"), allow_copy=False)
    assert other.id != first.id
    assert library.find_same_book(store, b"Chapter 1\n\nSomething else entirely, a new book.") is None
    store.delete_work(first.id)
    assert library.find_same_book(store, BOOK) is None
    again = library.import_book(store, "harbour.txt", BOOK, allow_copy=False)
    assert library.find_same_book(store, BOOK).id == again.id


def test_a_database_from_before_the_hash_column_upgrades(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = make_engine(url)
    with engine.begin() as conn:
        cfg = alembic_config(url)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0006")
        conn.execute(text("insert into works (title, author, kind, settings, created_at) "
                          "values ('Old Book', null, 'book', '{}', '2026-01-01 00:00:00')"))
    assert "content_sha256" not in {c["name"] for c in inspect(engine).get_columns("works")}
    migrate(engine)
    columns = {c["name"] for c in inspect(engine).get_columns("works")}
    assert "content_sha256" in columns
    assert "ix_works_content_sha256" in {i["name"] for i in inspect(engine).get_indexes("works")}
    engine.dispose()
    store = SqlStore.from_url(url)
    assert [w.title for w in store.list_works()] == ["Old Book"]
    assert library.find_same_book(store, BOOK) is None
    store.engine.dispose()


def _cli(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FABULA_DB_URL": db_url}
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_cli_ingest_refuses_a_file_already_imported_unless_copy(tmp_path: Path, db_url: str) -> None:
    book = tmp_path / "harbour.txt"
    book.write_bytes(BOOK)
    first = _cli(db_url, "ingest", str(book), "--json")
    assert first.returncode == 0, first.stderr
    work_id = json.loads(first.stdout)["work_id"]
    again = _cli(db_url, "ingest", str(book), "--json")
    lines = [line for line in again.stderr.splitlines() if line.strip()]
    assert again.returncode == 3 and again.stdout == "" and len(lines) == 1, again.stderr
    assert f"work {work_id}" in lines[0] and "--copy" in lines[0]
    copy = _cli(db_url, "ingest", str(book), "--copy", "--json")
    assert copy.returncode == 0, copy.stderr
    assert json.loads(copy.stdout)["work_id"] != work_id
    works = json.loads(_cli(db_url, "works", "--json").stdout)
    assert [w["title"] for w in works] == ["Harbour", "Harbour"]
