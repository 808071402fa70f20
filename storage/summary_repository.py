"""SummaryRepository: core.summarize.store.SummaryStore on SQLAlchemy, a mixin of storage.repository.SqlStore.

One session per method (self.session(): commit on success, roll back on error). Versions are only ever inserted.
"""
from __future__ import annotations

from contextlib import AbstractContextManager

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.store import NotFound
from core.summarize.store import NewSummary, StoredSummary
from storage.models import ChapterRow, utcnow
from storage.models_summary import SummaryRow

_MODEL_CHARS = 200


def _summary(row: SummaryRow, chapter_index: int) -> StoredSummary:
    return StoredSummary(id=row.id, work_id=row.work_id, chapter_index=chapter_index, mode=row.mode, text=row.text,
                         model=row.model, chapter_revision=row.chapter_revision, kg_lines=list(row.kg_lines or []),
                         user_edited=bool(row.user_edited), job_id=row.job_id, parent_id=row.parent_id,
                         stats=dict(row.stats or {}), created_at=row.created_at)


class SummaryRepository:
    """Mixed into SqlStore, which provides `session()`."""

    def session(self) -> AbstractContextManager[Session]:  # pragma: no cover - provided by SqlStore
        raise NotImplementedError

    def summary_add(self, work_id: int, chapter_index: int, summary: NewSummary) -> StoredSummary:
        with self.session() as s:
            chapter = s.scalar(select(ChapterRow).where(ChapterRow.work_id == work_id,
                                                        ChapterRow.index == chapter_index))
            if chapter is None:
                raise NotFound(f"Work {work_id} has no chapter {chapter_index}.")
            row = SummaryRow(work_id=work_id, chapter_id=chapter.id, mode=summary.mode, text=summary.text,
                             model=summary.model[:_MODEL_CHARS], chapter_revision=summary.chapter_revision,
                             kg_lines=list(summary.kg_lines), user_edited=summary.user_edited, job_id=summary.job_id,
                             parent_id=summary.parent_id, stats=dict(summary.stats), created_at=utcnow())
            s.add(row)
            s.flush()
            return _summary(row, chapter_index)

    def summary_history(self, work_id: int, chapter_index: int | None = None,
                        mode: str | None = None) -> list[StoredSummary]:
        q = (select(SummaryRow, ChapterRow.index).join(ChapterRow, SummaryRow.chapter_id == ChapterRow.id)
             .where(SummaryRow.work_id == work_id))
        if chapter_index is not None:
            q = q.where(ChapterRow.index == chapter_index)
        if mode is not None:
            q = q.where(SummaryRow.mode == mode)
        with self.session() as s:
            return [_summary(row, index) for row, index in s.execute(q.order_by(ChapterRow.index, SummaryRow.id))]
