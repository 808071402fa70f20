"""`cli.py library ingest DIR --graph` on small books cut from real novels, on real SQLite files: the sequential
and the Ray engine store the same books (chapters, passages, entities and triples); duplicates, a bad file and
other formats are reported and skipped without stopping the others; and a Ray worker killed (SIGKILL) mid-book is
retried and ends with the graph a clean sequential build gives, the book stored once.

The module shares one local Ray cluster (2 CPUs) and one sequential reference library."""
from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.services import library
from core.services.library_ingest import BookEvent, fingerprint, plan_folder
from storage.repository import SqlStore
from tests.conftest import novel_path
from tests.support.library_books import cut_novel
from tests.support.pausing_store import open_pausing

pytestmark = pytest.mark.slow

BOOKS = {  # file -> (novel, chapters, words per chapter)
    "carol.txt": ("a_christmas_carol_pg46.txt", 3, 500),
    "nested/alice.md": ("alice_in_wonderland_pg11.txt", 3, 500),
    "time_machine.txt": ("the_time_machine_pg35.txt", 6, 900),   # the one whose worker is killed mid-graph
}
BAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("library")
    for name, (novel, chapters, words) in BOOKS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(cut_novel(novel_path(novel), chapters, words), encoding="utf-8")
    (root / "zz_copy_of_carol.txt").write_bytes((root / "carol.txt").read_bytes())
    (root / "broken.txt").write_bytes(BAD)
    (root / "notes.json").write_text("{}")
    (root / ".hidden.txt").write_text("not looked at")
    return root


@pytest.fixture(scope="module")
def ray_cpus() -> Iterator[int]:
    from core.services.library_ray import ray_cluster
    with ray_cluster(num_cpus=2) as cpus:
        yield cpus


def run_cli(url: str, *argv: str, user: str | None = None, env: dict[str, str] | None = None,
            ) -> tuple[int, dict[str, Any], str]:
    """cli.py [--user USER] library ingest ... --json on the database `url`: exit status, the JSON, the lines."""
    import cli
    import cli_commands
    from core.config import get_settings
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        mp.setenv("FABULA_DB_URL", url)
        for key, value in (env or {}).items():
            mp.setenv(key, value)
        mp.setattr(cli_commands, "_store", None)
        mp.setattr(cli_commands, "_user", None)
        get_settings.cache_clear()
        try:
            status = cli.main([*(["--user", user] if user else []), "library", "ingest", *argv, "--json"])
        finally:
            if cli_commands._store is not None:
                cli_commands._store.engine.dispose()
    get_settings.cache_clear()
    return status, json.loads(out.getvalue()), err.getvalue()


def books_of(url: str) -> dict[str, dict[str, Any]]:
    """Every stored work by its source file: title and fingerprint (chapters, passages, entities, triples)."""
    store = SqlStore.from_url(url)
    try:
        return {w.settings["source_file"]: {"title": w.title, **fingerprint(store, w.id)} for w in store.list_works()}
    finally:
        store.engine.dispose()


@pytest.fixture(scope="module")
def sequential(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    url = f"sqlite:///{tmp_path_factory.mktemp('sequential') / 'fabula.db'}"
    status, out, lines = run_cli(url, str(folder), "--graph")
    return {"url": url, "status": status, "json": out, "lines": lines}


def test_each_file_is_reported_and_a_bad_one_stops_nothing(sequential: dict[str, Any]) -> None:
    by_file = {b["file"]: b for b in sequential["json"]["books"]}
    assert sorted(by_file) == sorted([*BOOKS, "zz_copy_of_carol.txt", "broken.txt", "notes.json"])
    assert sequential["status"] == 1 and sequential["json"]["summary"]["imported"] == 3
    for name, (_, chapters, _) in BOOKS.items():
        book = by_file[name]
        assert book["status"] == "imported" and book["chapters"] == chapters, book
        assert book["entities"] > 3 and book["triples"] > 10 and book["seconds"] > 0
    assert by_file["zz_copy_of_carol.txt"]["status"] == "duplicate"
    assert "the same file as carol.txt" in by_file["zz_copy_of_carol.txt"]["message"]
    assert by_file["broken.txt"]["status"] == "failed" and "PNG image" in by_file["broken.txt"]["message"]
    assert by_file["notes.json"]["status"] == "skipped"
    lines = sequential["lines"]
    assert "failed: broken.txt: Could not import 'broken.txt'" in lines and "imported: time_machine.txt" in lines
    assert "1 of 6 files could not be imported" in lines
    stored = books_of(sequential["url"])
    assert sorted(stored) == ["alice.md", "carol.txt", "time_machine.txt"]   # the bad file left nothing
    assert {s["chapters"] for s in stored.values()} == {3, 6}


def test_a_second_run_finds_every_book_already_in_the_library(sequential: dict[str, Any], folder: Path) -> None:
    before = books_of(sequential["url"])
    status, out, lines = run_cli(sequential["url"], str(folder))
    statuses = {b["file"]: b["status"] for b in out["books"]}
    assert statuses == {**dict.fromkeys(BOOKS, "duplicate"), "zz_copy_of_carol.txt": "duplicate",
                        "broken.txt": "failed", "notes.json": "skipped"}
    assert "duplicate: carol.txt: already in the library as “Carol” (work" in lines
    assert status == 1 and books_of(sequential["url"]) == before


def test_ray_stores_the_same_books_as_the_sequential_engine(sequential: dict[str, Any], folder: Path,
                                                            ray_cpus: int, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ray.db'}"
    status, out, lines = run_cli(url, str(folder), "--graph", "--engine", "ray")
    assert status == 1 and out["summary"]["engine"] == f"ray ({ray_cpus} CPUs)"
    ray_books = {b["file"]: b for b in out["books"]}
    seq_books = {b["file"]: b for b in sequential["json"]["books"]}
    for name in [*BOOKS, "zz_copy_of_carol.txt", "broken.txt", "notes.json"]:
        assert {k: ray_books[name][k] for k in ("status", "chapters", "entities", "triples")} == \
               {k: seq_books[name][k] for k in ("status", "chapters", "entities", "triples")}, name
    assert {ray_books[name]["pid"] for name in BOOKS} - {os.getpid()}, "the books ran in Ray workers"
    assert books_of(url) == books_of(sequential["url"])


def test_a_worker_killed_mid_book_is_retried_to_the_clean_result(sequential: dict[str, Any], folder: Path,
                                                                 ray_cpus: int, tmp_path: Path) -> None:
    from core.services.library_ray import run_ray
    url, marker = f"sqlite:///{tmp_path / 'killed.db'}", tmp_path / "killed"
    store = SqlStore.from_url(url)
    plan = plan_folder(store, folder)
    killed: dict[str, int] = {}

    def kill(event: BookEvent) -> None:
        """SIGKILL the worker of time_machine.txt once its graph has one chapter committed (five to go; its store
        holds the second until the marker is written, after the kill), and the worker of carol.txt as it starts
        saving its import."""
        target = (event.file == "time_machine.txt" and event.stage == "graph" and event.done >= 1) or (
            event.file == "carol.txt" and event.stage == "import" and event.done >= 2)
        if target and event.file not in killed:
            killed[event.file] = event.pid
            os.kill(event.pid, signal.SIGKILL)
            if event.file == "time_machine.txt":
                marker.touch()

    opener = functools.partial(open_pausing, source="time_machine.txt", marker=str(marker))
    results = {r.file: r for r in run_ray(opener, url, plan.books, graph=True, on_event=kill)}
    assert set(killed) == {"time_machine.txt", "carol.txt"}
    tm = results["time_machine.txt"]
    assert tm.status == "imported" and tm.pid != killed["time_machine.txt"]
    assert tm.found_stored and tm.graph_resumed, "the retry found the book stored and resumed its graph"
    assert {f: r.status for f, r in results.items()} == {**dict.fromkeys(BOOKS, "imported"), "broken.txt": "failed"}
    assert books_of(url) == books_of(sequential["url"])
    for name in BOOKS:  # each book stored once, whole
        data = (folder / name).read_bytes()
        assert len(store.find_works_by_content(library.content_hash(data))) == 1
    assert not any(store.get_task(w.id).status.value == "running" for w in store.list_works())
    store.engine.dispose()


def test_with_sign_in_the_ray_workers_store_the_books_as_the_user(folder: Path, ray_cpus: int,
                                                                   tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('[auth]\nredirect_uri = "http://localhost:8501/oauth2callback"\ncookie_secret = "x"\n'
                       'client_id = "fabula"\nclient_secret = "s"\n'
                       'server_metadata_url = "http://localhost:1/.well-known/openid-configuration"\n')
    url, env = f"sqlite:///{tmp_path / 'shared.db'}", {"FABULA_SECRETS_FILE": str(secrets)}
    status, out, _ = run_cli(url, str(folder), "--engine", "ray", user="Ann@Example.com", env=env)
    assert status == 1 and out["summary"]["imported"] == 3
    store = SqlStore.from_url(url)
    assert {w.owner for w in store.list_works()} == {"ann@example.com"}
    store.engine.dispose()
    status, out, lines = run_cli(url, str(folder), user="bob@example.com", env=env)  # Ann's books are not Bob's
    assert out["summary"]["imported"] == 3 and "already in the library" not in lines
