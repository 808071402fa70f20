"""The Store protocol: everything core.services needs from persistence, as named parts.

    LibraryStore   works, chapters, chunks, analyses, jobs, app metadata, LLM usage   (this module)
    KgStore        the knowledge graph's extractions, entities and decisions          (core.kg.store)
    NarcoStore     NARCO question edges and cached embeddings                          (core.narco.store)
    SummaryStore   summary versions                                                    (core.summarize.store)
    TaskStore      the background worker's claims on works                             (core.tasks)
    ContinuityStore  story states, continuity flags and "intended" marks               (core.continuity.store)
    PositionStore  a reader's place in a work, per user                                (core.companion.store)
    DeskStore      chapter plans and the story bible's notes and pins                  (core.write.store)
    Store          all of them: what a service takes

storage.repository.SqlStore implements Store with SQLAlchemy (one mixin per part); tests use it against a real
SQLite file or a PostgreSQL database. Each method is one unit of work: it commits on success and rolls back on any
error, so a failure never leaves half a change behind.
"""
from __future__ import annotations

from typing import Any, Protocol

from core.companion.store import PositionStore
from core.continuity.store import ContinuityStore
from core.domain import Chapter, ChapterInfo, ChapterSource, Chunk, Job, NewChapter, Work, WorkKind, WorkSharing
from core.kg.store import KgStore
from core.narco.store import NarcoStore
from core.summarize.store import SummaryStore
from core.tasks import TaskStore
from core.write.store import DeskStore


class NotFound(LookupError):
    """The work, chapter or job asked for does not exist (any more)."""


class StaleRevision(RuntimeError):
    """Someone else saved this chapter since it was opened: the caller must reload before saving."""


class LibraryStore(Protocol):
    # works
    def create_work(self, title: str, author: str | None, kind: WorkKind, settings: dict[str, Any],
                    chapters: list[NewChapter], content_sha256: str | None = None,
                    owner: str | None = None) -> Work: ...
    def list_works(self) -> list[Work]: ...
    def find_works_by_content(self, content_sha256: str) -> list[Work]: ...  # imported from the same file, oldest first
    def get_work(self, work_id: int) -> Work: ...
    def rename_work(self, work_id: int, title: str) -> Work: ...
    def update_work_settings(self, work_id: int, settings: dict[str, Any]) -> Work: ...
    def delete_work(self, work_id: int) -> None: ...

    # sign-in (core.services.access): a work's owner and the users it is shared with read-only
    def work_sharing(self, work_id: int) -> WorkSharing: ...
    def works_shared_with(self, user: str) -> list[int]: ...
    def share_work(self, work_id: int, user: str) -> None: ...  # sharing twice with one user is one share
    def unshare_work(self, work_id: int, user: str) -> bool: ...  # False: it was not shared with them

    # chapters and chunks
    def list_chapters(self, work_id: int) -> list[ChapterInfo]: ...
    def get_chapter(self, work_id: int, index: int) -> Chapter: ...
    def add_chapter(self, work_id: int, chapter: NewChapter) -> Chapter: ...
    def update_chapter(self, work_id: int, index: int, text: str, chunks: list[str], expected_revision: int,
                       title: str | None = None, source: ChapterSource | None = None) -> Chapter: ...
    def chapter_revisions(self, work_id: int, index: int) -> list[tuple[int, str, str]]: ...
    def list_chunks(self, work_id: int, upto_chapter: int | None = None) -> list[Chunk]: ...

    # derived per-chapter data: {chapter_index: (revision, payload)}; stale entries are the caller's to redo
    def get_analyses(self, work_id: int, kind: str) -> dict[int, tuple[int, dict[str, Any]]]: ...
    def put_analysis(self, work_id: int, chapter_index: int, kind: str, revision: int,
                     payload: dict[str, Any]) -> None: ...

    # jobs
    def open_job(self, work_id: int, kind: str, total: int) -> Job: ...
    def get_job(self, job_id: int) -> Job: ...
    def latest_job(self, work_id: int, kind: str) -> Job | None: ...
    def update_job(self, job_id: int, *, done: int | None = None, total: int | None = None,
                   state: dict[str, Any] | None = None, status: str | None = None) -> Job: ...

    # key/value app metadata and LLM usage accounting
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def record_llm_usage(self, *, work_id: int | None, job_id: int | None, role: str, provider: str, model: str,
                         input_tokens: int, output_tokens: int, seconds: float) -> None: ...
    def llm_usage(self, work_id: int | None = None, job_id: int | None = None) -> dict[str, int]: ...


class Store(LibraryStore, KgStore, NarcoStore, SummaryStore, TaskStore, ContinuityStore, PositionStore, DeskStore,
            Protocol):
    """Everything the services use from persistence (storage.repository.SqlStore)."""
