"""SummaryStore: the persistence summaries need (storage.summary_repository implements it), and its value types.

Summaries are never updated in place: a generation or an edit adds a version, so the history is complete. The
summary shown for a chapter and mode is the newest version the user wrote if there is one (an edit is never
overwritten by regeneration), else the newest generated one.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol


@dataclass(frozen=True)
class NewSummary:
    mode: str
    text: str
    model: str
    chapter_revision: int
    kg_lines: list[str] = field(default_factory=list)
    user_edited: bool = False
    job_id: int | None = None
    parent_id: int | None = None          # the version an edit started from
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredSummary:
    id: int
    work_id: int
    chapter_index: int
    mode: str
    text: str
    model: str
    chapter_revision: int
    kg_lines: list[str]
    user_edited: bool
    job_id: int | None
    parent_id: int | None
    stats: dict[str, Any]
    created_at: datetime | None = None

    @property
    def author(self) -> str:
        return "you" if self.user_edited else self.model


class SummaryStore(Protocol):
    def summary_add(self, work_id: int, chapter_index: int, summary: NewSummary) -> StoredSummary: ...
    # every version, oldest first; narrowed to a chapter and/or mode
    def summary_history(self, work_id: int, chapter_index: int | None = None,
                        mode: str | None = None) -> list[StoredSummary]: ...


def current(versions: Sequence[StoredSummary]) -> StoredSummary | None:
    """The version shown: the newest user edit, else the newest generated version (None when there is none)."""
    edits = [v for v in versions if v.user_edited]
    pool = edits or list(versions)
    return max(pool, key=lambda v: v.id) if pool else None


def latest_generated(versions: Sequence[StoredSummary]) -> StoredSummary | None:
    generated = [v for v in versions if not v.user_edited]
    return max(generated, key=lambda v: v.id) if generated else None
