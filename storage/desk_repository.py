"""DeskRepository: core.write.store.DeskStore on SQLAlchemy, a mixin of storage.repository.SqlStore (migration 0012).

One session per method (commit on success, roll back on error). A plan is one row per work and chapter: a second
put replaces the first, and two puts at the same moment end with one of them, not an error.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.store import NotFound
from core.write.bible import BibleEntry, NewEntry
from core.write.plan import ChapterPlan
from storage.models import WorkRow, utcnow
from storage.models_desk import BibleEntryRow, ChapterPlanRow


def _entry(row: BibleEntryRow) -> BibleEntry:
    states: list[dict[str, Any]] = list(row.states or [])
    return BibleEntry(row.id, row.work_id, row.entity, row.kind, row.text, tuple(row.names or ()), row.entity_type,
                      tuple(states))


class DeskRepository:
    """Mixed into SqlStore, which provides `session()`."""

    def session(self) -> AbstractContextManager[Session]:  # pragma: no cover - provided by SqlStore
        raise NotImplementedError

    @staticmethod
    def _work(s: Session, work_id: int) -> None:
        if s.get(WorkRow, work_id) is None:
            raise NotFound(f"No work with id {work_id}.")

    # ---- plans ---------------------------------------------------------------------------------------------------
    def plan_get(self, work_id: int, chapter: int) -> ChapterPlan | None:
        with self.session() as s:
            row = s.scalar(select(ChapterPlanRow).where(ChapterPlanRow.work_id == work_id,
                                                        ChapterPlanRow.chapter == chapter))
            return ChapterPlan.from_dict(row.plan) if row is not None else None

    def plans_list(self, work_id: int) -> list[ChapterPlan]:
        with self.session() as s:
            rows = s.scalars(select(ChapterPlanRow).where(ChapterPlanRow.work_id == work_id)
                             .order_by(ChapterPlanRow.chapter))
            return [ChapterPlan.from_dict(r.plan) for r in rows]

    def plan_put(self, work_id: int, plan: ChapterPlan) -> ChapterPlan:
        for attempt in (1, 2):   # a plan stored at the same moment elsewhere: replace that one
            try:
                with self.session() as s:
                    self._work(s, work_id)
                    row = s.scalar(select(ChapterPlanRow).where(ChapterPlanRow.work_id == work_id,
                                                                ChapterPlanRow.chapter == plan.chapter))
                    if row is None:
                        row = ChapterPlanRow(work_id=work_id, chapter=plan.chapter)
                        s.add(row)
                    row.plan, row.updated_at = plan.as_dict(), utcnow()
                    s.flush()
                    return plan
            except IntegrityError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def plan_delete(self, work_id: int, chapter: int) -> bool:
        with self.session() as s:
            result = s.execute(delete(ChapterPlanRow).where(ChapterPlanRow.work_id == work_id,
                                                            ChapterPlanRow.chapter == chapter))
            return bool(getattr(result, "rowcount", 0))

    # ---- the bible -----------------------------------------------------------------------------------------------
    def bible_list(self, work_id: int, entity: str | None = None) -> list[BibleEntry]:
        with self.session() as s:
            q = select(BibleEntryRow).where(BibleEntryRow.work_id == work_id)
            if entity is not None:
                q = q.where(BibleEntryRow.entity == entity)
            return [_entry(r) for r in s.scalars(q.order_by(BibleEntryRow.id))]

    def bible_add(self, work_id: int, entry: NewEntry) -> BibleEntry:
        with self.session() as s:
            self._work(s, work_id)
            row = BibleEntryRow(work_id=work_id, entity=entry.entity.strip()[:300], names=list(entry.names),
                                entity_type=entry.entity_type[:40], kind=entry.kind, text=entry.text.strip(),
                                states=list(entry.states), created_at=utcnow())
            s.add(row)
            s.flush()
            return _entry(row)

    def bible_update(self, work_id: int, entry_id: int, text: str,
                     states: list[dict[str, Any]] | None = None) -> BibleEntry:
        with self.session() as s:
            row = s.get(BibleEntryRow, entry_id)
            if row is None or row.work_id != work_id:
                raise NotFound(f"No note or pin {entry_id} in work {work_id}.")
            row.text = text.strip()
            if states is not None:
                row.states = list(states)
            s.flush()
            return _entry(row)

    def bible_delete(self, work_id: int, entry_id: int) -> bool:
        with self.session() as s:
            result = s.execute(delete(BibleEntryRow).where(BibleEntryRow.work_id == work_id,
                                                           BibleEntryRow.id == entry_id))
            return bool(getattr(result, "rowcount", 0))
