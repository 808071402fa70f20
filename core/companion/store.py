"""PositionStore: where a reader is in a work (storage.position_repository implements it, migration 0011).

One place per work and user: `user` is the signed-in user's key, or "" in local mode (one reader). The guarded store
(core.services.guarded_store) stamps the signed-in user itself, so a reader only ever reads and moves their own
place; a reader of a work shared read-only has a place in it too (reading changes nothing of the work).

A place also remembers where the reader's last visit began (`visit_chapter`, `visit_at`): a reader who comes back
after a while is offered the recap of the chapters read since then (core.services.companion_service.welcome_back).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

LOCAL_READER = ""   # the one reader of the local (no sign-in) app


@dataclass(frozen=True)
class ReadingPosition:
    """A reader's place: chapter (its index) and passage (0-based, within the chapter) of the last text read."""

    work_id: int
    user: str
    chapter: int
    passage: int
    updated_at: datetime
    visit_chapter: int          # the place when the visit that last moved it began
    visit_at: datetime          # when that visit began

    def as_json(self) -> dict[str, object]:
        return {"work": self.work_id, "chapter": self.chapter, "passage": self.passage,
                "updated_at": self.updated_at.isoformat(), "visit_chapter": self.visit_chapter,
                "visit_at": self.visit_at.isoformat()}


class PositionStore(Protocol):
    def position_get(self, work_id: int, user: str = LOCAL_READER) -> ReadingPosition | None: ...
    # creates or moves the place; `now` is for tests and imports (default: the current time); `visit_*` as given
    def position_set(self, work_id: int, chapter: int, passage: int, user: str = LOCAL_READER, *,
                     visit_chapter: int | None = None, visit_at: datetime | None = None,
                     now: datetime | None = None) -> ReadingPosition: ...
