"""Sign-in's part of SqlStore: a work's owner and its read-only shares (core.store.LibraryStore, migration 0009)."""
from __future__ import annotations

from contextlib import AbstractContextManager

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.domain import WorkSharing
from core.store import NotFound
from storage.models import WorkRow, WorkShareRow, utcnow


class ShareRepository:
    def session(self) -> AbstractContextManager[Session]:  # pragma: no cover - provided by SqlStore
        raise NotImplementedError

    def work_sharing(self, work_id: int) -> WorkSharing:
        with self.session() as s:
            owner = s.execute(select(WorkRow.owner).where(WorkRow.id == work_id)).first()
            if owner is None:
                raise NotFound(f"No work with id {work_id}.")
            readers = s.scalars(select(WorkShareRow.user).where(WorkShareRow.work_id == work_id)
                                .order_by(WorkShareRow.user))
            return WorkSharing(work_id, owner[0], tuple(readers))

    def works_shared_with(self, user: str) -> list[int]:
        with self.session() as s:
            return list(s.scalars(select(WorkShareRow.work_id).where(WorkShareRow.user == user)
                                  .order_by(WorkShareRow.work_id)))

    def share_work(self, work_id: int, user: str) -> None:
        try:
            with self.session() as s:
                if s.get(WorkRow, work_id) is None:
                    raise NotFound(f"No work with id {work_id}.")
                if s.scalar(select(WorkShareRow.id).where(WorkShareRow.work_id == work_id,
                                                          WorkShareRow.user == user)) is None:
                    s.add(WorkShareRow(work_id=work_id, user=user, created_at=utcnow()))
        except IntegrityError:  # the same share made at the same moment elsewhere: it is there either way
            pass

    def unshare_work(self, work_id: int, user: str) -> bool:
        with self.session() as s:
            gone = s.execute(delete(WorkShareRow).where(WorkShareRow.work_id == work_id, WorkShareRow.user == user))
            return bool(getattr(gone, "rowcount", 0))
