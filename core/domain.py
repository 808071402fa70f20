"""Plain dataclasses shared by every layer. Storage maps to and from these; pages and the CLI render them."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any


class WorkKind(str, Enum):
    BOOK = "book"
    STORY = "story"


class ChapterSource(str, Enum):
    UPLOADED = "uploaded"
    WRITTEN = "written"
    GENERATED = "generated"


class JobStatus(str, Enum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    STOPPED = "stopped"    # asked to stop between units; resumable like a failed one


@dataclass(kw_only=True)
class JobProgress:
    """What a page shows of any background job, one shape for all of them: a work's job (core.tasks.WorkTask, the
    work_tasks row: the one record of its status, progress, message and error) and a large-file import that has no
    work yet (core.services.imports.ImportJob, in the server's memory). views/_jobs.py renders this shape."""

    status: JobStatus = JobStatus.RUNNING
    done: int = 0
    total: int = 0
    message: str = ""
    error: str | None = None

    @property
    def fraction(self) -> float:
        """How far along, 0..1 (0 before the total is known)."""
        return min(self.done / self.total, 1.0) if self.total else 0.0


@dataclass
class Work:
    id: int
    title: str
    author: str | None
    kind: WorkKind
    settings: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    chapter_count: int = 0
    word_count: int = 0
    owner: str | None = None  # the signed-in user who made it; None: made in local mode (core.services.access)


@dataclass(frozen=True)
class WorkSharing:
    """Who may open a work: its owner (None: made in local mode) and the users it is shared with read-only."""

    work_id: int
    owner: str | None
    readers: tuple[str, ...] = ()


@dataclass
class Chapter:
    id: int
    work_id: int
    index: int  # 1-based reading order
    title: str
    text: str
    word_count: int
    source: ChapterSource = ChapterSource.UPLOADED
    revision: int = 1


@dataclass
class ChapterInfo:
    """A chapter without its text, for listings."""

    id: int
    index: int
    title: str
    word_count: int
    source: ChapterSource
    revision: int


@dataclass
class Chunk:
    id: int
    chapter_id: int
    chapter_index: int
    index: int  # position within the chapter, 0-based
    text: str
    word_count: int


@dataclass
class Job:
    """A resumable unit job's resume record (the jobs table, core.services.jobs): whether its units are all done
    (`status`), how many are (`done` of `total`) and where to continue (`state`). What a page shows of a running or
    ended job, its error included, is the work's task row (core.tasks.WorkTask), not this."""

    id: int
    work_id: int
    kind: str
    status: JobStatus
    done: int
    total: int
    state: dict[str, Any] = field(default_factory=dict)


@dataclass
class NewChapter:
    """A chapter about to be stored, with its passages already cut."""

    title: str
    text: str
    chunks: list[str]
    source: ChapterSource = ChapterSource.UPLOADED


def count_words(text: str) -> int:
    return len(text.split())
