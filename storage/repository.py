"""SqlStore: core.store.Store on SQLAlchemy. One session per method; commit on success, roll back otherwise."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import CursorResult, Engine, delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from core.domain import (Chapter, ChapterInfo, ChapterSource, Chunk, Job, JobStatus, NewChapter, Work, WorkKind,
                         count_words)
from core.store import NotFound, StaleRevision, Store
from storage.db import make_engine, migrate, session_factory
from storage.continuity_repository import ContinuityRepository
from storage.desk_repository import DeskRepository
from storage.kg_repository import KgRepository
from storage.narco_repository import NarcoRepository
from storage.position_repository import PositionRepository
from storage.share_repository import ShareRepository
from storage.summary_repository import SummaryRepository
from storage.task_repository import TaskRepository
from storage.models import (ChapterAnalysisRow, ChapterRevisionRow, ChapterRow, ChunkRow, JobRow, LlmCallRow, MetaRow,
                            WorkRow, utcnow)


def _work(row: WorkRow, chapters: int = 0, words: int = 0) -> Work:
    return Work(id=row.id, title=row.title, author=row.author, kind=WorkKind(row.kind),
                settings=dict(row.settings or {}), created_at=row.created_at, chapter_count=chapters, word_count=words,
                owner=row.owner)


def _chapter(row: ChapterRow) -> Chapter:
    return Chapter(id=row.id, work_id=row.work_id, index=row.index, title=row.title, text=row.text,
                   word_count=row.word_count, source=ChapterSource(row.source), revision=row.revision)


def _job(row: JobRow) -> Job:
    return Job(id=row.id, work_id=row.work_id, kind=row.kind, status=JobStatus(row.status), done=row.done,
               total=row.total, state=dict(row.state or {}))


class SqlStore(KgRepository, NarcoRepository, SummaryRepository, TaskRepository, ShareRepository,
               ContinuityRepository, PositionRepository, DeskRepository):
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions: sessionmaker[Session] = session_factory(engine)

    @classmethod
    def from_url(cls, url: str) -> "SqlStore":
        engine = make_engine(url)
        migrate(engine)
        return cls(engine)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work: committed if the block ends normally, rolled back if it raises."""
        with self._sessions() as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    # ---- works -------------------------------------------------------------------------------------------
    def _work_row(self, s: Session, work_id: int) -> WorkRow:
        row = s.get(WorkRow, work_id)
        if row is None:
            raise NotFound(f"No work with id {work_id}.")
        return row

    def _counts(self, s: Session, work_ids: list[int]) -> dict[int, tuple[int, int]]:
        if not work_ids:
            return {}
        q = (select(ChapterRow.work_id, func.count(ChapterRow.id), func.coalesce(func.sum(ChapterRow.word_count), 0))
             .where(ChapterRow.work_id.in_(work_ids)).group_by(ChapterRow.work_id))
        return {wid: (n, int(w)) for wid, n, w in s.execute(q)}

    def create_work(self, title: str, author: str | None, kind: WorkKind, settings: dict[str, Any],
                    chapters: list[NewChapter], content_sha256: str | None = None,
                    owner: str | None = None) -> Work:
        with self.session() as s:
            row = WorkRow(title=title, author=author, kind=kind.value, settings=settings, created_at=utcnow(),
                          content_sha256=content_sha256, owner=owner)
            s.add(row)
            s.flush()
            for i, ch in enumerate(chapters, start=1):
                self._insert_chapter(s, row.id, i, ch)
            s.flush()
            words = sum(count_words(c.text) for c in chapters)
            return _work(row, len(chapters), words)

    def _insert_chapter(self, s: Session, work_id: int, index: int, ch: NewChapter) -> ChapterRow:
        crow = ChapterRow(work_id=work_id, index=index, title=ch.title, text=ch.text, word_count=count_words(ch.text),
                          source=ch.source.value, revision=1, updated_at=utcnow())
        s.add(crow)
        s.flush()
        s.add(ChapterRevisionRow(chapter_id=crow.id, revision=1, source=ch.source.value, text=ch.text,
                                 created_at=utcnow()))
        s.add_all(ChunkRow(chapter_id=crow.id, index=j, text=t, word_count=count_words(t))
                  for j, t in enumerate(ch.chunks))
        return crow

    def list_works(self) -> list[Work]:
        with self.session() as s:
            rows = list(s.scalars(select(WorkRow).order_by(WorkRow.id)))
            counts = self._counts(s, [r.id for r in rows])
            return [_work(r, *counts.get(r.id, (0, 0))) for r in rows]

    def find_works_by_content(self, content_sha256: str) -> list[Work]:
        with self.session() as s:
            rows = list(s.scalars(select(WorkRow).where(WorkRow.content_sha256 == content_sha256)
                                  .order_by(WorkRow.id)))
            counts = self._counts(s, [r.id for r in rows])
            return [_work(r, *counts.get(r.id, (0, 0))) for r in rows]

    def get_work(self, work_id: int) -> Work:
        with self.session() as s:
            row = self._work_row(s, work_id)
            return _work(row, *self._counts(s, [work_id]).get(work_id, (0, 0)))

    def rename_work(self, work_id: int, title: str) -> Work:
        with self.session() as s:
            self._work_row(s, work_id).title = title
        return self.get_work(work_id)

    def update_work_settings(self, work_id: int, settings: dict[str, Any]) -> Work:
        with self.session() as s:
            row = self._work_row(s, work_id)
            row.settings = {**(row.settings or {}), **settings}
        return self.get_work(work_id)

    def delete_work(self, work_id: int) -> None:
        with self.session() as s:
            s.delete(self._work_row(s, work_id))

    # ---- chapters ----------------------------------------------------------------------------------------
    def list_chapters(self, work_id: int) -> list[ChapterInfo]:
        with self.session() as s:
            self._work_row(s, work_id)
            q = (select(ChapterRow.id, ChapterRow.index, ChapterRow.title, ChapterRow.word_count, ChapterRow.source,
                        ChapterRow.revision).where(ChapterRow.work_id == work_id).order_by(ChapterRow.index))
            return [ChapterInfo(id=r[0], index=r[1], title=r[2], word_count=r[3], source=ChapterSource(r[4]),
                                revision=r[5]) for r in s.execute(q)]

    def _chapter_row(self, s: Session, work_id: int, index: int) -> ChapterRow:
        row = s.scalar(select(ChapterRow).where(ChapterRow.work_id == work_id, ChapterRow.index == index))
        if row is None:
            raise NotFound(f"Work {work_id} has no chapter {index}.")
        return row

    def get_chapter(self, work_id: int, index: int) -> Chapter:
        with self.session() as s:
            return _chapter(self._chapter_row(s, work_id, index))

    def add_chapter(self, work_id: int, chapter: NewChapter) -> Chapter:
        with self.session() as s:
            self._work_row(s, work_id)
            last = s.scalar(select(func.max(ChapterRow.index)).where(ChapterRow.work_id == work_id)) or 0
            return _chapter(self._insert_chapter(s, work_id, last + 1, chapter))

    def update_chapter(self, work_id: int, index: int, text: str, chunks: list[str], expected_revision: int,
                       title: str | None = None, source: ChapterSource | None = None) -> Chapter:
        def stale(current: int) -> StaleRevision:
            return StaleRevision(
                f"Chapter {index} was saved elsewhere (revision {current}, you opened {expected_revision}). "
                "Reload it before saving; your text was not discarded.")

        with self.session() as s:
            row = self._chapter_row(s, work_id, index)
            if row.revision != expected_revision:
                raise stale(row.revision)
            # Compare-and-set: SQLite runs the read above outside the write transaction, so another save can land
            # between it and this write; the revision condition in the UPDATE itself is what lets only one of two
            # saves from the same revision through.
            values: dict[str, Any] = {"revision": expected_revision + 1, "text": text,
                                      "word_count": count_words(text), "updated_at": utcnow()}
            if title is not None:
                values["title"] = title
            if source is not None:
                values["source"] = source.value
            result = s.execute(update(ChapterRow).where(ChapterRow.id == row.id,
                                                        ChapterRow.revision == expected_revision).values(**values)
                               .execution_options(synchronize_session=False))
            changed = cast(CursorResult[Any], result).rowcount  # an UPDATE's result is a cursor result
            if changed != 1:
                raise stale(s.scalar(select(ChapterRow.revision).where(ChapterRow.id == row.id)) or expected_revision)
            s.refresh(row)
            s.add(ChapterRevisionRow(chapter_id=row.id, revision=row.revision, source=row.source, text=text,
                                     created_at=utcnow()))
            s.execute(delete(ChunkRow).where(ChunkRow.chapter_id == row.id))
            s.add_all(ChunkRow(chapter_id=row.id, index=j, text=t, word_count=count_words(t))
                      for j, t in enumerate(chunks))
            s.flush()
            return _chapter(row)

    def chapter_revisions(self, work_id: int, index: int) -> list[tuple[int, str, str]]:
        with self.session() as s:
            row = self._chapter_row(s, work_id, index)
            q = (select(ChapterRevisionRow).where(ChapterRevisionRow.chapter_id == row.id)
                 .order_by(ChapterRevisionRow.revision))
            return [(r.revision, r.source, r.text) for r in s.scalars(q)]

    def list_chunks(self, work_id: int, upto_chapter: int | None = None) -> list[Chunk]:
        with self.session() as s:
            q = (select(ChunkRow, ChapterRow.index).join(ChapterRow, ChunkRow.chapter_id == ChapterRow.id)
                 .where(ChapterRow.work_id == work_id))
            if upto_chapter is not None:
                q = q.where(ChapterRow.index <= upto_chapter)
            q = q.order_by(ChapterRow.index, ChunkRow.index)
            return [Chunk(id=c.id, chapter_id=c.chapter_id, chapter_index=ci, index=c.index, text=c.text,
                          word_count=c.word_count) for c, ci in s.execute(q)]

    # ---- derived per-chapter data -------------------------------------------------------------------------
    def get_analyses(self, work_id: int, kind: str) -> dict[int, tuple[int, dict[str, Any]]]:
        with self.session() as s:
            q = (select(ChapterRow.index, ChapterAnalysisRow.revision, ChapterAnalysisRow.payload)
                 .join(ChapterRow, ChapterAnalysisRow.chapter_id == ChapterRow.id)
                 .where(ChapterRow.work_id == work_id, ChapterAnalysisRow.kind == kind))
            return {index: (rev, dict(payload)) for index, rev, payload in s.execute(q)}

    def put_analysis(self, work_id: int, chapter_index: int, kind: str, revision: int,
                     payload: dict[str, Any]) -> None:
        with self.session() as s:
            chapter = self._chapter_row(s, work_id, chapter_index)
            row = s.scalar(select(ChapterAnalysisRow).where(ChapterAnalysisRow.chapter_id == chapter.id,
                                                            ChapterAnalysisRow.kind == kind))
            if row is None:
                s.add(ChapterAnalysisRow(chapter_id=chapter.id, kind=kind, revision=revision, payload=payload))
            else:
                row.revision, row.payload = revision, payload

    # ---- jobs --------------------------------------------------------------------------------------------
    def open_job(self, work_id: int, kind: str, total: int) -> Job:
        with self.session() as s:
            self._work_row(s, work_id)
            row = JobRow(work_id=work_id, kind=kind, status=JobStatus.RUNNING.value, done=0, total=total, state={},
                         created_at=utcnow(), updated_at=utcnow())
            s.add(row)
            s.flush()
            # An earlier run of this kind still marked running was killed before it could say so: it is not coming
            # back, and a "running" row forever would mislead anyone reading the job history.
            s.execute(update(JobRow).where(JobRow.work_id == work_id, JobRow.kind == kind, JobRow.id != row.id,
                                           JobRow.status == JobStatus.RUNNING.value)
                      .values(status=JobStatus.FAILED.value, updated_at=utcnow()))
            return _job(row)

    def get_job(self, job_id: int) -> Job:
        with self.session() as s:
            row = s.get(JobRow, job_id)
            if row is None:
                raise NotFound(f"No job with id {job_id}.")
            return _job(row)

    def latest_job(self, work_id: int, kind: str) -> Job | None:
        with self.session() as s:
            row = s.scalar(select(JobRow).where(JobRow.work_id == work_id, JobRow.kind == kind)
                           .order_by(JobRow.id.desc()).limit(1))
            return _job(row) if row else None

    def update_job(self, job_id: int, *, done: int | None = None, total: int | None = None,
                   state: dict[str, Any] | None = None, status: str | None = None) -> Job:
        with self.session() as s:
            row = s.get(JobRow, job_id)
            if row is None:
                raise NotFound(f"No job with id {job_id}.")
            if done is not None:
                row.done = done
            if total is not None:
                row.total = total
            if state is not None:
                row.state = {**(row.state or {}), **state}
            if status is not None:
                row.status = JobStatus(status).value
            row.updated_at = utcnow()
            s.flush()
            return _job(row)

    # ---- metadata and usage ------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self.session() as s:
            row = s.get(MetaRow, key)
            return row.value if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.session() as s:
            row = s.get(MetaRow, key)
            if row is None:
                s.add(MetaRow(key=key, value=value))
            else:
                row.value = value

    def record_llm_usage(self, *, work_id: int | None, job_id: int | None, role: str, provider: str, model: str,
                         input_tokens: int, output_tokens: int, seconds: float) -> None:
        with self.session() as s:
            s.add(LlmCallRow(work_id=work_id, job_id=job_id, role=role, provider=provider, model=model,
                             input_tokens=input_tokens, output_tokens=output_tokens, seconds=seconds,
                             created_at=utcnow()))

    def llm_usage(self, work_id: int | None = None, job_id: int | None = None) -> dict[str, int]:
        with self.session() as s:
            q = select(func.count(LlmCallRow.id), func.coalesce(func.sum(LlmCallRow.input_tokens), 0),
                       func.coalesce(func.sum(LlmCallRow.output_tokens), 0))
            if work_id is not None:
                q = q.where(LlmCallRow.work_id == work_id)
            if job_id is not None:
                q = q.where(LlmCallRow.job_id == job_id)
            calls, tin, tout = s.execute(q).one()
            return {"calls": int(calls), "input_tokens": int(tin), "output_tokens": int(tout)}

    def table_counts(self) -> dict[str, int]:
        """Row counts of every table (used by tests that check a rejected import changed nothing)."""
        from storage.models import Base
        with self.session() as s:
            return {t.name: int(s.scalar(select(func.count()).select_from(t)) or 0)
                    for t in Base.metadata.sorted_tables}


if TYPE_CHECKING:  # mypy checks here that SqlStore implements every part of core.store.Store
    _IMPLEMENTS: type[Store] = SqlStore
