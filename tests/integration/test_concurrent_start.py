"""Issue 21: several processes starting at once against a fresh database must not collide in the start-up migrations.

Four `cli.py ingest` processes (two users importing right after a deployment, two app servers starting together)
are released at the same moment by a barrier (tests/support/start_at.py) against an empty database, a new SQLite
file or a new PostgreSQL database. Each runs the migrations on start, then stores its own book. Without a lock
around the upgrade, on PostgreSQL they create the same tables at once and all but one fail with a UniqueViolation.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import text

from storage.db import alembic_config
from storage.repository import SqlStore

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "tests" / "fixtures" / "ingest" / "gutenberg_sample.txt"
PROCESSES = 4
READY_LIMIT_S = 120


def _books(folder: Path) -> dict[str, Path]:
    """One different file per process (the same bytes twice would be refused as already imported)."""
    original = BOOK.read_text(encoding="utf-8")
    books = {}
    for i in range(PROCESSES):
        title = f"The Harbour Tale {i}"
        path = folder / f"harbour-{i}.txt"
        path.write_text(original.replace("The Harbour Tale", title), encoding="utf-8")
        books[title] = path
    return books


def _release_together(barrier: Path, procs: list[subprocess.Popen[str]]) -> None:
    deadline = time.monotonic() + READY_LIMIT_S
    while len(list(barrier.glob("*.ready"))) < len(procs):
        exited = [p for p in procs if p.poll() is not None]
        assert not exited, f"a process ended before the start: {exited[0].communicate()}"
        assert time.monotonic() < deadline, f"processes not ready within {READY_LIMIT_S} s"
        time.sleep(0.05)
    (barrier / "go").touch()


def test_processes_starting_together_on_a_fresh_database_all_succeed(any_db_url: str, tmp_path: Path) -> None:
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    books = _books(tmp_path)
    env = {**os.environ, "FABULA_DB_URL": any_db_url, "FABULA_DATA_DIR": str(tmp_path / "data")}
    procs = [subprocess.Popen([sys.executable, "-m", "tests.support.start_at", str(barrier), f"p{i}",
                               "ingest", str(path), "--json"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i, path in enumerate(books.values())]
    try:
        _release_together(barrier, procs)
        results = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    failed = [f"process {i}: exit {rc}: {err.strip()[-600:]}" for i, (rc, _out, err) in enumerate(results) if rc]
    assert not failed, "\n".join(failed)

    store = SqlStore.from_url(any_db_url)
    try:
        assert sorted(w.title.split(":")[0] for w in store.list_works()) == sorted(books)
        assert all(w.chapter_count == 2 for w in store.list_works())
        head = ScriptDirectory.from_config(alembic_config(any_db_url)).get_current_head()
        with store.engine.connect() as conn:
            versions = conn.execute(text("select version_num from alembic_version")).scalars().all()
        assert versions == [head]
    finally:
        store.engine.dispose()
