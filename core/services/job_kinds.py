"""What a background job kind is, and the registry of them: the function a kind runs and the controls it gets
(progress to the task row, the stop check). Its own module so that the kinds (core.services.background_jobs,
continuation_job) and the worker that runs them (core.services.background) both import it, not each other."""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.services.jobs import ProgressFn
from core.tasks import TaskStore


@dataclass
class Controls:
    """A running job's wiring: its progress goes to the task row, its stop check reads the task row."""

    store: TaskStore
    work_id: int
    owner: str
    stopping: threading.Event = field(default_factory=threading.Event)
    relay: ProgressFn | None = None    # a caller's own progress display too (the CLI's)
    outcome: str = ""                  # the line a page shows when a job run with `claimed` is done

    def on_progress(self, done: int, total: int, message: str) -> None:
        if self.store.beat_task(self.work_id, self.owner, done=done, total=total, message=message[:500]):
            self.stopping.set()
        if self.relay is not None:
            self.relay(done, total, message)

    def show(self, done: int, total: int, text: str) -> None:
        """Progress with a long message (a draft as it grows), which on_progress would cut."""
        if self.store.beat_task(self.work_id, self.owner, done=done, total=total, message=text):
            self.stopping.set()

    def should_stop(self) -> bool:
        """Asked by the job runner between units: a Stop pressed in any tab, or the task taken from this worker."""
        if not self.stopping.is_set() and self.store.beat_task(self.work_id, self.owner):
            self.stopping.set()
        return self.stopping.is_set()


JobFn = Callable[[Any, int, dict[str, Any], Controls], str]   # (store, work_id, params, controls) -> outcome line


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str          # "Graph build": how pages name a running job
    unit: str           # "chapters": what done/total count
    run: JobFn


KINDS: dict[str, JobKind] = {}


def job_kind(name: str, label: str, unit: str) -> Callable[[JobFn], JobFn]:
    """Register a function as the job kind `name` (core.services.background_jobs registers the app's kinds)."""
    def register(fn: JobFn) -> JobFn:
        KINDS[name] = JobKind(name, label, unit, fn)
        return fn
    return register
