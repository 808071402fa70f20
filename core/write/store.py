"""DeskStore: what the writer's desk (issue 34) keeps (storage.desk_repository implements it, migration 0012).

Chapter plans, one per work and chapter (a plan put twice replaces the first), and the story bible's entries: a note
or a pinned fact on an entity, kept by the entity's label and names (they survive a graph rebuild).
"""
from __future__ import annotations

from typing import Any, Protocol

from core.write.bible import BibleEntry, NewEntry
from core.write.plan import ChapterPlan


class DeskStore(Protocol):
    def plan_get(self, work_id: int, chapter: int) -> ChapterPlan | None: ...
    def plans_list(self, work_id: int) -> list[ChapterPlan]: ...          # in chapter order
    def plan_put(self, work_id: int, plan: ChapterPlan) -> ChapterPlan: ...
    def plan_delete(self, work_id: int, chapter: int) -> bool: ...

    def bible_list(self, work_id: int, entity: str | None = None) -> list[BibleEntry]: ...  # oldest first
    def bible_add(self, work_id: int, entry: NewEntry) -> BibleEntry: ...
    def bible_update(self, work_id: int, entry_id: int, text: str,
                     states: list[dict[str, Any]] | None = None) -> BibleEntry: ...   # states: a pin's, re-read
    def bible_delete(self, work_id: int, entry_id: int) -> bool: ...
