"""Imports in the background worker (core.services.imports) on a real SQLite file: an import runs in a server thread
and every store on the database sees it running and then its outcome; the same file cannot be imported twice at
once; a file that fails gives its message and stores nothing; which files go to the background."""
from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from core.domain import JobStatus, NewChapter, Work, WorkKind
from core.services import background, imports, library
from storage.repository import SqlStore

STORY = ("Chapter 1\n\nAnna walked to the harbour and watched the boats. " * 30 +
         "\n\nChapter 2\n\nThe storm came in the night, and Anna lit the lamp. " * 30).encode()


class GatedStore(SqlStore):
    """A store whose create_work waits for the test to let it go: the import holds at its "Saving" stage."""

    gate = threading.Event()

    def create_work(self, title: str, author: str | None, kind: WorkKind, settings: dict[str, Any],
                    chapters: list[NewChapter], content_sha256: str | None = None) -> Work:
        assert self.gate.wait(30), "the test never let the import store its work"
        return super().create_work(title, author, kind, settings, chapters, content_sha256)


def _wait(predicate: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_an_import_runs_in_the_background_and_every_store_sees_it(db_url: str) -> None:
    gated = GatedStore.from_url(db_url)
    gated.gate = threading.Event()
    other = SqlStore.from_url(db_url)   # another session, tab or page run
    job = imports.submit(gated, "harbour_story.txt", STORY, title="The Harbour")
    _wait(lambda: job.message == "Saving")
    [seen] = imports.list_imports(other)
    assert seen.running and seen.name == "harbour_story.txt" and (seen.done, seen.total) == (2, 3)
    assert other.list_works() == [], "nothing is stored before the import ends"
    with pytest.raises(imports.ImportRefused, match="already being imported"):
        imports.submit(other, "copy of harbour_story.txt", STORY, allow_copy=True)
    gated.gate.set()
    assert background.worker().wait(f"import:{job.key}", 30)
    [ended] = imports.list_imports(other)
    assert ended.status is JobStatus.DONE and "The Harbour" in ended.outcome and "2 chapters" in ended.outcome
    assert other.get_work(ended.work_id or 0).chapter_count == 2
    with pytest.raises(library.AlreadyInLibrary):   # stored now: the usual duplicate question, not a second import
        imports.submit(other, "harbour_story.txt", STORY)
    imports.dismiss(other, job.key)
    assert imports.list_imports(gated) == []


def test_a_failing_file_gives_its_message_and_stores_nothing(store: SqlStore) -> None:
    before = store.table_counts()
    job = imports.submit(store, "cover.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20)
    assert background.worker().wait(f"import:{job.key}", 30)
    [ended] = imports.list_imports(store)
    assert ended.status is JobStatus.FAILED and ended.work_id is None
    assert "cover" in (ended.error or "") and "PNG image" in (ended.error or "")
    assert store.table_counts() == before
    again = imports.submit(store, "cover.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20)   # ended: not held
    assert background.worker().wait(f"import:{again.key}", 30)


def test_large_files_and_mid_sized_packed_ones_go_to_the_background() -> None:
    mb = 1024 * 1024
    assert imports.runs_in_background("novel.txt", 3 * mb)
    assert not imports.runs_in_background("novel.txt", int(1.5 * mb))
    assert imports.runs_in_background("novel.pdf", int(1.5 * mb))
    assert imports.runs_in_background("novel.EPUB", int(1.5 * mb))
    assert not imports.runs_in_background("novel.docx", mb // 2)


@pytest.mark.slow
def test_an_imported_work_is_embedded_in_the_background_so_its_first_question_does_not_wait(db_url: str) -> None:
    """Issue 37, rough edge 10: a new novel's first answer took 31.7 s, mostly embedding its passages."""
    from core.services.qa_corpus import EMBED_MODEL, ensure_vectors, needs_vectors
    store = SqlStore.from_url(db_url)
    job = imports.submit(store, "embedded_story.txt", STORY, title="Embedded")
    assert background.worker().wait(f"import:{job.key}", 60)
    work_id = job.work_id
    assert work_id is not None and job.status is JobStatus.DONE
    assert background.worker().wait(f"embed:{work_id}", 120), "the embedding after the import did not end"
    chunks = store.list_chunks(work_id)
    assert chunks and set(store.chunk_vectors(work_id, EMBED_MODEL)) == {c.id for c in chunks}
    assert not needs_vectors(store, work_id) and ensure_vectors(store, work_id) == 0  # nothing left for Ask
