"""PositionRepository: core.companion.store.PositionStore on SQLAlchemy, a mixin of storage.repository.SqlStore."""
from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime, timezone

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.companion.store import LOCAL_READER, ReadingPosition
from core.store import NotFound
from storage.models import ChapterRow, WorkRow, utcnow
from storage.models_position import ReadingPositionRow


def _aware(at: datetime) -> datetime:
    """SQLite gives naive datetimes back: they were written in UTC."""
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


def _position(row: ReadingPositionRow) -> ReadingPosition:
    return ReadingPosition(row.work_id, row.user, row.chapter, row.passage, _aware(row.updated_at),
                           row.visit_chapter, _aware(row.visit_at))


class PositionRepository:
    """Mixed into SqlStore, which provides `session()`."""

    def session(self) -> AbstractContextManager[Session]:  # pragma: no cover - provided by SqlStore
        raise NotImplementedError

    def position_get(self, work_id: int, user: str = LOCAL_READER) -> ReadingPosition | None:
        with self.session() as s:
            row = s.scalar(select(ReadingPositionRow).where(ReadingPositionRow.work_id == work_id,
                                                            ReadingPositionRow.user == user))
            return _position(row) if row is not None else None

    def position_set(self, work_id: int, chapter: int, passage: int, user: str = LOCAL_READER, *,
                     visit_chapter: int | None = None, visit_at: datetime | None = None,
                     now: datetime | None = None) -> ReadingPosition:
        at = now or utcnow()
        for attempt in (1, 2):  # a place created at the same moment elsewhere: move that one
            try:
                with self.session() as s:
                    if s.get(WorkRow, work_id) is None:
                        raise NotFound(f"No work with id {work_id}.")
                    if s.scalar(select(ChapterRow.id).where(ChapterRow.work_id == work_id,
                                                            ChapterRow.index == chapter)) is None:
                        raise NotFound(f"Work {work_id} has no chapter {chapter}.")
                    row = s.scalar(select(ReadingPositionRow).where(ReadingPositionRow.work_id == work_id,
                                                                    ReadingPositionRow.user == user))
                    if row is None:
                        row = ReadingPositionRow(work_id=work_id, user=user, visit_chapter=chapter, visit_at=at)
                        s.add(row)
                    row.chapter, row.passage, row.updated_at = chapter, max(int(passage), 0), at
                    if visit_chapter is not None:
                        row.visit_chapter = visit_chapter
                    if visit_at is not None:
                        row.visit_at = visit_at
                    s.flush()
                    return _position(row)
            except IntegrityError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover
