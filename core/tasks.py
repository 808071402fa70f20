"""Background tasks: which long job a server is running on a work, seen from any process through the database.

One row per work (table work_tasks, migration 0008): the work's current or last background task. A task *claims*
its work atomically, so two tabs, sessions or servers can never run two jobs on one work at once; it beats a
heartbeat while it runs, writes its progress, and reads a stop request that any tab may set. A task whose heartbeat
went quiet was killed with its server: it is shown as interrupted and can be resumed (its job row is resumable).
This row is the one record of a work's job state that pages read: its status (core.domain.JobStatus, the one
vocabulary), progress, message and error. The jobs table (core.services.jobs) keeps only the resume record of each
unit job: whether its units are all done and where to continue.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol

from core.domain import JobProgress, JobStatus, Work


@dataclass(kw_only=True)
class WorkTask(JobProgress):
    """A work's current or last background job: its status, done, total, message and error (JobProgress)."""

    work_id: int
    kind: str                                      # a core.services.background job kind: "kg_build", "narco", ...
    owner: str                                     # the worker (host, process, instance) that claimed it
    params: dict[str, Any] = field(default_factory=dict)   # what the job was asked to do: Resume runs it again
    stop_requested: bool = False
    started_at: datetime | None = None
    heartbeat_at: datetime | None = None
    finished_at: datetime | None = None
    rate_since: datetime | None = None             # first progress report: the measured rate starts there
    rate_base: int = 0                             # `done` at that report

    def alive(self, now: datetime, stale_after: timedelta) -> bool:
        """Running, and its worker beat recently: a running task with a quiet heartbeat was killed with its server."""
        return (self.status is JobStatus.RUNNING and self.heartbeat_at is not None
                and now - self.heartbeat_at <= stale_after)

    def interrupted(self, now: datetime, stale_after: timedelta) -> bool:
        return self.status is JobStatus.RUNNING and not self.alive(now, stale_after)

    def seconds_left(self, now: datetime) -> float | None:
        """Time left at the rate measured since the first progress report; None before two reports tell a rate."""
        if self.rate_since is None or self.done <= self.rate_base or self.total <= self.done:
            return None
        rate = (self.done - self.rate_base) / max((now - self.rate_since).total_seconds(), 1e-6)
        return (self.total - self.done) / rate


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class TaskStore(Protocol):
    """What the background worker needs from persistence (storage.task_repository implements it)."""

    def get_work(self, work_id: int) -> Work: ...  # core.store.NotFound for a work that is gone

    def claim_task(self, work_id: int, kind: str, owner: str, params: dict[str, Any], stale_before: datetime,
                   dead_owner: str | None = None) -> WorkTask | None:
        """Atomically make `owner` the runner of a new task on `work_id`; None when a live task holds the work
        (running, with a heartbeat at or after `stale_before`, and not held by `dead_owner`, a worker known gone)."""
        ...

    def get_task(self, work_id: int) -> WorkTask | None: ...

    def list_tasks(self) -> list[WorkTask]: ...

    def beat_task(self, work_id: int, owner: str, *, done: int | None = None, total: int | None = None,
                  message: str | None = None) -> bool:
        """Heartbeat (and progress, when given) of `owner`'s task; True when it should stop: a stop was requested,
        or the task is no longer `owner`'s."""
        ...

    def request_stop(self, work_id: int) -> bool:
        """Ask the running task on `work_id` to stop at its next safe point; False when none is running."""
        ...

    def finish_task(self, work_id: int, owner: str, status: JobStatus, message: str | None = None,
                    error: str | None = None) -> None: ...
