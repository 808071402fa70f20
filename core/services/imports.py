"""Imports of large files in the background worker (core.services.background): the upload is parsed and stored by
a server thread, so leaving the Library page, reloading it or opening a second tab does not stop it.

    if imports.runs_in_background(name, len(data)):
        job = imports.submit(store, name, data, title)     # ImportRefused: the same file is being imported now
    imports.list_imports(store)                             # any tab: running ones with their stage, then outcomes

An import has no work yet, so the work claim (core.tasks, keyed by work) does not fit. Its claim is kept here, in a
process-level registry keyed by the database and the upload's SHA-256, not in the database, because the uploaded
bytes live in this process's memory: only this process can run the import, and a server that dies mid-import loses
the bytes with it, so a database row could only ever say "upload it again". Nothing is half-stored by such a death:
library.import_book stores the whole work in one transaction. Every Streamlit session and tab of the server shares
this registry, so they all see the import, and the same file cannot be imported twice at once. The cost, documented:
two server processes on one database do not see each other's imports, so each can import the same file at the
same moment (import_book's duplicate check catches it only when one import ended before the other began).
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.domain import JobProgress, JobStatus
from core.ingest import IngestError
from core.services import background, library
from core.services.jobs import error_text
from core.services.qa_corpus import ensure_vectors
from core.store import Store
from core.wording import counted

log = logging.getLogger(__name__)

LARGE_BYTES = 2 * 1024 * 1024          # any file over this imports in the background
LARGE_PACKED_BYTES = 1024 * 1024       # a PDF, EPUB or Word file over this too: parsing them is the slow part
PACKED = (".pdf", ".epub", ".docx")
KEEP_OUTCOME_S = 3600.0                # an outcome nobody dismissed is forgotten after this


class ImportRefused(RuntimeError):
    """The same file is being imported now (in this or another tab)."""


@dataclass(kw_only=True)
class ImportJob(JobProgress):
    """One background import, in the shape every job panel renders (JobProgress: status, done, total, message,
    error): running, done, or failed (`duplicate` when the file was stored meanwhile: `work_id` is that work)."""

    key: str                      # the upload's SHA-256
    name: str                     # the cleaned file name, for display
    title: str | None
    allow_copy: bool
    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    total: int = 3
    message: str = "Waiting for a free slot"
    work_id: int | None = None    # done: the new work; duplicate: the work already there
    duplicate: bool = False
    outcome: str = ""

    @property
    def running(self) -> bool:
        return self.status is JobStatus.RUNNING

    def age_s(self, now: float | None = None) -> float:
        return max((now or time.time()) - self.started_at, 0.0)


_jobs: dict[tuple[str, str], ImportJob] = {}
_lock = threading.Lock()


def _db(store: Store) -> str:
    """The database a store writes to: two stores on one database share their imports."""
    engine = getattr(store, "engine", None)
    url = str(engine.url) if engine is not None else f"store:{id(store)}"
    user = getattr(store, "user", None)  # with sign-in on (GuardedStore): each user sees their own imports only
    return f"{url}#{user}" if isinstance(user, str) else url


def runs_in_background(filename: str, size: int) -> bool:
    """A large file, or a mid-sized packed one (PDF, EPUB, Word): small files import at once in the page."""
    suffix = Path(library.clean_filename(filename)).suffix.lower()
    return size > LARGE_BYTES or (suffix in PACKED and size > LARGE_PACKED_BYTES)


def submit(store: Store, filename: str, data: bytes, title: str | None = None, allow_copy: bool = False) -> ImportJob:
    """Start importing `data` in the worker; library.AlreadyInLibrary at once for a file already stored (unless
    `allow_copy`), ImportRefused while the same file is being imported. The job holds the bytes until it ends."""
    digest = library.content_hash(data)   # hashed once here: a large upload is not read again to find its twin
    if not allow_copy and (same := store.find_works_by_content(digest)):
        raise library.AlreadyInLibrary(same[0])
    slot = (_db(store), digest)
    with _lock:
        _forget_old()
        held = _jobs.get(slot)
        if held is not None and held.running:
            raise ImportRefused(f"'{held.name}' is already being imported (started {ago(held.age_s())} ago): "
                                "its outcome shows here when it ends.")
        job = ImportJob(key=digest, name=library.clean_filename(filename), title=title, allow_copy=allow_copy)
        _jobs[slot] = job
    background.worker().spawn(f"import:{digest}", lambda: _run(store, job, filename, data),
                              name=f"fabula-import-{digest[:8]}")
    return job


def _run(store: Store, job: ImportJob, filename: str, data: bytes) -> None:
    def progress(done: int, total: int, message: str) -> None:
        job.done, job.total, job.message = done, total, message

    try:
        work = library.import_book(store, filename, data, title=job.title, on_progress=progress,
                                   allow_copy=job.allow_copy)
    except library.AlreadyInLibrary as exc:  # stored by another server or a sync import meanwhile
        job.work_id, job.duplicate, job.error = exc.existing.id, True, str(exc)
        job.status = JobStatus.FAILED
    except IngestError as exc:
        job.error, job.status = str(exc), JobStatus.FAILED
    except Exception as exc:  # noqa: BLE001 - the import's error is its outcome, shown by every tab
        job.error, job.status = error_text(exc), JobStatus.FAILED
    else:  # the status last: another tab polling meanwhile sees an ended import only with its outcome
        job.work_id = work.id
        job.outcome = (f"Imported “{work.title}”: {counted(work.chapter_count, 'chapter')}, "
                       f"{counted(work.word_count, 'word')}")
        job.status = JobStatus.DONE
    finally:
        job.finished_at = time.time()
    if job.status is JobStatus.DONE and job.work_id is not None:
        embed_soon(store, job.work_id)


def embed_soon(store: Store, work_id: int) -> None:
    """Embed a newly imported work's passages in the worker now, so its first question is as fast as the later ones
    (a new novel's first answer took 31.7 s, mostly this), then each passage's sentences, which the extractive answer
    reads instead of embedding its cited sentences (issue 31). Ask waits for the passages rather than embedding twice
    (qa_corpus.ensure_vectors holds a lock per work), never for the sentences (their own lock); a failure only means
    Ask embeds what is missing when asked."""
    def run() -> None:
        try:
            ensure_vectors(store, work_id)
        except Exception as exc:  # noqa: BLE001 - the work is stored; Ask embeds what is missing when asked
            log.warning("embedding the passages of work %s after its import failed (%s); Ask embeds them when "
                        "first asked", work_id, exc)

    background.worker().spawn(f"embed:{work_id}", run, name=f"fabula-embed-{work_id}")


def list_imports(store: Store) -> list[ImportJob]:
    """The imports on `store`'s database that run, or ended and were not dismissed: oldest first."""
    db = _db(store)
    with _lock:
        _forget_old()
        return sorted((j for (d, _), j in _jobs.items() if d == db), key=lambda j: j.started_at)


def dismiss(store: Store, key: str) -> None:
    """Forget an ended import's outcome (every tab stops showing it); a running one stays."""
    with _lock:
        job = _jobs.get((_db(store), key))
        if job is not None and not job.running:
            del _jobs[(_db(store), key)]


def _forget_old() -> None:
    now = time.time()
    for slot, job in list(_jobs.items()):
        if job.finished_at is not None and now - job.finished_at > KEEP_OUTCOME_S:
            del _jobs[slot]


def ago(seconds: float) -> str:
    """"12 s", "3 min", "1.5 h"."""
    if seconds < 120:
        return f"{int(seconds)} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    return f"{seconds / 3600:.1f} h"
