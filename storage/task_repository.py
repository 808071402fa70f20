"""TaskRepository: core.tasks.TaskStore on SQLAlchemy, a mixin of storage.repository.SqlStore.

The claim is atomic on SQLite and PostgreSQL alike: an UPDATE guarded by "the task there ended or went quiet" (one
statement: SQLite runs it under the file's write lock, PostgreSQL re-checks the guard on the row it waited for), or,
when the work never had a task, an INSERT that the primary key refuses to a second claimant.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime, timezone
from typing import Any, cast

from sqlalchemy import CursorResult, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.domain import JobStatus
from core.tasks import WorkTask
from storage.models import utcnow
from storage.models_tasks import WorkTaskRow

_OWNER_CHARS = 100


def _aware(value: datetime | None) -> datetime | None:
    """SQLite gives naive datetimes back (all stored in UTC); PostgreSQL aware ones."""
    return value.replace(tzinfo=timezone.utc) if value is not None and value.tzinfo is None else value


def _task(row: WorkTaskRow) -> WorkTask:
    return WorkTask(work_id=row.work_id, kind=row.kind, owner=row.owner, status=JobStatus(row.status),
                    params=dict(row.params or {}), stop_requested=bool(row.stop_requested), done=row.done,
                    total=row.total, message=row.message or "", error=row.error, started_at=_aware(row.started_at),
                    heartbeat_at=_aware(row.heartbeat_at), finished_at=_aware(row.finished_at),
                    rate_since=_aware(row.rate_since), rate_base=row.rate_base or 0)


class TaskRepository:
    """Mixed into SqlStore, which provides `session()`."""

    def session(self) -> AbstractContextManager[Session]:  # pragma: no cover - provided by SqlStore
        raise NotImplementedError

    def claim_task(self, work_id: int, kind: str, owner: str, params: dict[str, Any], stale_before: datetime,
                   dead_owner: str | None = None) -> WorkTask | None:
        now = utcnow()
        fresh = dict(kind=kind, owner=owner[:_OWNER_CHARS], status=JobStatus.RUNNING.value, params=params,
                     stop_requested=False, done=0, total=0, message="", error=None, started_at=now, heartbeat_at=now,
                     finished_at=None, rate_since=None, rate_base=0)
        try:
            with self.session() as s:
                taken = s.execute(update(WorkTaskRow)
                                  .where(WorkTaskRow.work_id == work_id,
                                         or_(WorkTaskRow.status != JobStatus.RUNNING.value,
                                             WorkTaskRow.heartbeat_at < stale_before,
                                             WorkTaskRow.owner == (dead_owner or "")))
                                  .values(**fresh).execution_options(synchronize_session=False))
                if cast(CursorResult[Any], taken).rowcount == 1:
                    return self._get(s, work_id)
                if s.get(WorkTaskRow, work_id) is not None:
                    return None  # a live task holds the work
                row = WorkTaskRow(work_id=work_id, **fresh)
                s.add(row)
                s.flush()
                return _task(row)
        except IntegrityError:  # another claimant inserted first (or the work is gone: get_work says which)
            return None

    def _get(self, s: Session, work_id: int) -> WorkTask | None:
        row = s.scalar(select(WorkTaskRow).where(WorkTaskRow.work_id == work_id).execution_options(
            populate_existing=True))
        return _task(row) if row is not None else None

    def get_task(self, work_id: int) -> WorkTask | None:
        with self.session() as s:
            return self._get(s, work_id)

    def list_tasks(self) -> list[WorkTask]:
        with self.session() as s:
            return [_task(r) for r in s.scalars(select(WorkTaskRow).order_by(WorkTaskRow.started_at.desc()))]

    def beat_task(self, work_id: int, owner: str, *, done: int | None = None, total: int | None = None,
                  message: str | None = None) -> bool:
        with self.session() as s:
            row = s.get(WorkTaskRow, work_id)
            if row is None or row.owner != owner[:_OWNER_CHARS] or row.status != JobStatus.RUNNING.value:
                return True  # taken over (this worker was thought dead) or gone: stop
            row.heartbeat_at = utcnow()
            if done is not None:
                if row.rate_since is None or (total is not None and total != row.total) or done < row.done:
                    row.rate_since, row.rate_base = row.heartbeat_at, done  # a new stretch: measure from here
                row.done = done
            if total is not None:
                row.total = total
            if message is not None:
                row.message = message
            return bool(row.stop_requested)

    def request_stop(self, work_id: int) -> bool:
        with self.session() as s:
            asked = s.execute(update(WorkTaskRow)
                              .where(WorkTaskRow.work_id == work_id,
                                     WorkTaskRow.status == JobStatus.RUNNING.value)
                              .values(stop_requested=True).execution_options(synchronize_session=False))
            return cast(CursorResult[Any], asked).rowcount == 1

    def finish_task(self, work_id: int, owner: str, status: JobStatus, message: str | None = None,
                    error: str | None = None) -> None:
        with self.session() as s:
            row = s.get(WorkTaskRow, work_id)
            if row is None or row.owner != owner[:_OWNER_CHARS]:
                return  # another worker holds it now: its row is not ours to close
            row.status, row.finished_at, row.heartbeat_at = JobStatus(status).value, utcnow(), utcnow()
            row.error = error
            if message is not None:
                row.message = message
