"""The background worker: long jobs run in threads owned by the server process, not in a page's script, so leaving
the page, reloading it or opening a second tab does not stop them.

    task = background.submit(store, work_id, "kg_build", {"extractor": "offline"})   # JobRefused: work is busy
    view = background.task_view(store, work_id)        # any tab, any process: running, progress, time left, ...
    background.request_stop(store, work_id)            # the job ends at its next safe point, the finished kept
    background.resume(store, work_id)                  # a job killed with its server (or stopped) continues

Each job first claims its work in the work_tasks table (core.tasks; atomic on SQLite and PostgreSQL), so a second
job on the same work is refused wherever it is asked for, while jobs on different works run side by side (up to
MAX_RUNNING at once; more wait their turn). A running job beats a heartbeat every HEARTBEAT_S seconds; its
should_stop() reads the stop request from the database between units. The job kinds are plain functions over the
services (core.services.background_jobs), which still run everything through the one job runner (jobs.JobRunner):
commit per unit, resume, the jobs table. A server killed midway leaves its task "running" with a quiet heartbeat:
task_view calls it interrupted, and resume() runs the same request again, which resumes the unfinished job row.
"""
from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from core.domain import JobStatus
from core.services.job_kinds import KINDS, Controls, JobKind
from core.services.jobs import JobStopped, ProgressFn, error_text
from core.store import Store
from core.tasks import TaskStore, WorkTask, utcnow

HEARTBEAT_S = 3.0
STALE_AFTER = timedelta(seconds=20)     # several missed heartbeats: the server that ran it is gone
MAX_RUNNING = 3                          # jobs running at once in one server; more wait for a free slot


class JobRefused(RuntimeError):
    """The work already has a job running (here or in another tab or server)."""


def _kinds() -> dict[str, JobKind]:
    import core.services.background_jobs  # noqa: F401 - registers the app's job kinds on first use
    return KINDS


def label_of(kind: str) -> str:
    known = _kinds().get(kind)
    return known.label if known else kind


def owner_gone(owner: str) -> bool:
    """A worker of a server on this machine whose process has ended (a restarted server, after a kill): its jobs
    are interrupted now, without waiting for the heartbeat to go stale. Another machine's workers: not known."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists, under another user
        return False
    return False


class Worker:
    """Runs jobs in daemon threads (a server shut down mid-job leaves it interrupted, to resume, rather than hanging
    the shutdown until the job ends). One per process: `worker()`."""

    def __init__(self, max_running: int = MAX_RUNNING, heartbeat_s: float = HEARTBEAT_S,
                 stale_after: timedelta = STALE_AFTER) -> None:
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.heartbeat_s, self.stale_after = heartbeat_s, stale_after
        self._slots = threading.BoundedSemaphore(max_running)
        self._threads: dict[int | str, threading.Thread] = {}   # work id, or "import:<sha256>"

    def submit(self, store: TaskStore, work_id: int, kind: str, params: dict[str, Any] | None = None) -> WorkTask:
        """Claim `work_id` for a `kind` job and start it; JobRefused when a live job holds the work."""
        if kind not in _kinds():
            raise ValueError(f"Unknown job kind {kind!r}.")
        task = self.claim(store, work_id, kind, params)
        thread = threading.Thread(target=self._run, args=(store, task), daemon=True, name=f"fabula-{kind}-{work_id}")
        self._threads[work_id] = thread
        thread.start()
        return task

    def spawn(self, key: str, target: Callable[[], None], name: str) -> None:
        """Run `target` in a daemon thread under the same slots, which wait_all waits for too (imports: they have no
        work to claim yet, core.services.imports keeps their claim)."""
        def run() -> None:
            with self._slots:
                target()
        self._threads[key] = thread = threading.Thread(target=run, daemon=True, name=name)
        thread.start()

    def claim(self, store: TaskStore, work_id: int, kind: str, params: dict[str, Any] | None = None) -> WorkTask:
        store.get_work(work_id)  # NotFound for a work that is gone
        held = store.get_task(work_id)
        dead = held.owner if held and held.status is JobStatus.RUNNING and owner_gone(held.owner) else None
        task = store.claim_task(work_id, kind, self.owner, dict(params or {}), utcnow() - self.stale_after, dead)
        if task is None:
            held = store.get_task(work_id)
            what = label_of(held.kind) if held else "Another job"
            raise JobRefused(f"{what} is already running on this work. Wait for it to finish, or stop it first.")
        return task

    @contextlib.contextmanager
    def claimed(self, store: TaskStore, work_id: int, kind: str, params: dict[str, Any] | None = None,
                on_progress: ProgressFn | None = None) -> Iterator[Controls]:
        """Run a job in the calling thread (the CLI) under the same claim, heartbeat, progress and stop request as a
        background one: a page shows it running and can stop it, and the work takes no second job meanwhile."""
        task = self.claim(store, work_id, kind, params)
        controls = Controls(store, task.work_id, self.owner, relay=on_progress)
        ended = threading.Event()
        threading.Thread(target=self._beat, args=(controls, ended), daemon=True, name=f"fabula-beat-{work_id}").start()
        try:
            yield controls
        except JobStopped as exc:
            store.finish_task(work_id, self.owner, JobStatus.STOPPED, str(exc))
            raise
        except BaseException as exc:  # Ctrl-C too: the row must not say "running" for a run that is over
            store.finish_task(work_id, self.owner, JobStatus.FAILED, error=error_text(exc))
            raise
        else:
            store.finish_task(work_id, self.owner, JobStatus.DONE, controls.outcome)
        finally:
            ended.set()

    def _run(self, store: Store, task: WorkTask) -> None:
        controls = Controls(store, task.work_id, self.owner)
        ended = threading.Event()
        beat = threading.Thread(target=self._beat, args=(controls, ended), daemon=True,
                                name=f"fabula-beat-{task.work_id}")
        beat.start()
        try:
            with self._slots:  # a job waiting for a slot keeps beating, so it is not taken for dead
                if controls.should_stop():
                    store.finish_task(task.work_id, self.owner, JobStatus.STOPPED, "Stopped before it started.")
                    return
                outcome = _kinds()[task.kind].run(store, task.work_id, task.params, controls)
            store.finish_task(task.work_id, self.owner, JobStatus.DONE, outcome)
        except JobStopped as exc:
            store.finish_task(task.work_id, self.owner, JobStatus.STOPPED, str(exc))
        except Exception as exc:  # noqa: BLE001 - the job's error is its outcome, shown by every page
            store.finish_task(task.work_id, self.owner, JobStatus.FAILED, error=error_text(exc))
        finally:
            ended.set()

    def _beat(self, controls: Controls, ended: threading.Event) -> None:
        while not ended.wait(self.heartbeat_s):
            try:
                if controls.store.beat_task(controls.work_id, controls.owner):
                    controls.stopping.set()
            except Exception:  # noqa: BLE001, S112 - a busy database now and then: the next beat tries again
                continue

    def wait(self, work_id: int | str, timeout: float | None = None) -> bool:
        """Wait for this worker's job on `work_id` to end (tests, the CLI); True when it has."""
        thread = self._threads.get(work_id)
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def wait_all(self, timeout: float) -> bool:
        """Wait for every job this worker started to end, and for those they start in turn (an import starts the
        embedding of its passages as it ends); True when they all have."""
        deadline = time.monotonic() + timeout
        while (alive := [t for t in list(self._threads.values()) if t.is_alive()]):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            alive[0].join(left)
        return True


_worker: Worker | None = None
_worker_lock = threading.Lock()


def worker() -> Worker:
    """The process's worker, shared by every Streamlit session and rerun."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = Worker()
        return _worker


def submit(store: TaskStore, work_id: int, kind: str, params: dict[str, Any] | None = None) -> WorkTask:
    return worker().submit(store, work_id, kind, params)


def claimed(store: TaskStore, work_id: int, kind: str, params: dict[str, Any] | None = None,
            on_progress: ProgressFn | None = None) -> contextlib.AbstractContextManager[Controls]:
    return worker().claimed(store, work_id, kind, params, on_progress)


def request_stop(store: TaskStore, work_id: int) -> bool:
    return store.request_stop(work_id)


def resume(store: TaskStore, work_id: int) -> WorkTask:
    """Run the work's last task again with the same request: its unfinished job row resumes where it ended."""
    task = store.get_task(work_id)
    if task is None:
        raise JobRefused("This work has no job to resume.")
    return submit(store, work_id, task.kind, task.params)


@dataclass
class TaskView:
    """What a page shows of a work's background job: `state` is none, running, stopping, interrupted, done, failed
    or stopped."""

    task: WorkTask | None
    state: str
    label: str = ""
    unit: str = ""
    seconds_left: float | None = None

    @property
    def busy(self) -> bool:
        return self.state in ("running", "stopping")


def task_view(store: TaskStore, work_id: int, stale_after: timedelta = STALE_AFTER) -> TaskView:
    task = store.get_task(work_id)
    if task is None:
        return TaskView(None, "none")
    kind = _kinds().get(task.kind)
    label, unit = (kind.label, kind.unit) if kind else (task.kind, "steps")
    now = utcnow()
    if task.interrupted(now, stale_after) or (task.status is JobStatus.RUNNING and owner_gone(task.owner)):
        return TaskView(task, "interrupted", label, unit)
    if task.status is JobStatus.RUNNING:
        return TaskView(task, "stopping" if task.stop_requested else "running", label, unit, task.seconds_left(now))
    return TaskView(task, task.status.value, label, unit)


def time_left(seconds: float | None) -> str:
    """"about 3 min left", or "" before a rate is measured."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "less than a minute left"
    if seconds < 3600:
        return f"about {round(seconds / 60)} min left"
    return f"about {seconds / 3600:.1f} h left"
