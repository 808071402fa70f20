"""The one job runner: every long job (graph build, NARCO build, summaries) finds, opens, advances and closes its row
in the jobs table through it, so resuming, failing and stopping mean the same thing for all of them.

    runner = JobRunner(store, work_id, "kg_build", on_progress=cb, should_stop=stop_event.is_set)
    earlier = runner.resumable(lambda state: state.get("extractor") == "offline")     # None: start afresh
    with runner.start(len(todo), {"extractor": "offline"}, resume=earlier) as run:
        for n, unit in enumerate(run.each(todo), start=1):   # the stop check comes between units, never inside one
            ...                                              # do the unit and commit what it made
            run.advance(n, state={"next": unit + 1})         # then its progress: a killed run resumes after it
            run.report(n, len(todo), f"unit {unit}")
    # Leaving the block normally marks the job done. An exception marks it failed with its error, JobStopped (from
    # should_stop() between units) marks it stopped; both leave it resumable and go on to the caller.

A job stopped or killed midway keeps every unit it committed; the service's next run finds it with `resumable` and
continues it (the same job row), so the job's `done` counts the units of every run and `total` what they set out
to do. The jobs table is the resume record only (is the kind's work finished, where to continue): what a page shows
of a job (status, progress, message, error) is the work's task row (core.tasks), which the worker writes from the
progress callback and the run's outcome.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from core.domain import Job, JobStatus
from core.llm import LLM, MeteredLLM
from core.store import Store

ProgressFn = Callable[[int, int, str], None]
StopFn = Callable[[], bool]
T = TypeVar("T")

RESUMABLE = (JobStatus.RUNNING, JobStatus.FAILED, JobStatus.STOPPED)  # running: killed without a chance to say so
ERROR_CHARS = 500


class JobStopped(Exception):
    """should_stop() said so at a safe point between units: the job is marked stopped, everything it finished is kept
    and the next run resumes it. An Exception, so a service's "show what is finished" handling applies to it too."""

    def __init__(self, job: Job) -> None:
        super().__init__(f"Stopped after {job.done} of {job.total}; the next run continues from there.")
        self.job = job


def unfinished(job: Job | None) -> bool:
    """A job that stopped before the end (killed, failed or stopped) and can be resumed."""
    return bool(job and job.status in RESUMABLE)


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


def _no_progress(done: int, total: int, message: str) -> None:
    return None


def _never() -> bool:
    return False


@dataclass
class JobRun:
    """One run of a job, from `JobRunner.start`: a context manager that closes the job however the block ends.

    `first` is what earlier runs of a resumed job finished; `advance` and `finish` count this run's units from 0."""

    store: Store
    job: Job
    resumed: bool
    first: int = 0
    on_progress: ProgressFn = _no_progress
    should_stop: StopFn = _never
    closed: bool = field(default=False, init=False)

    @property
    def id(self) -> int:
        return self.job.id

    def report(self, done: int, total: int, message: str) -> None:
        self.on_progress(done, total, message)

    def check_stop(self) -> None:
        if self.should_stop():
            raise JobStopped(self.job)

    def each(self, items: Iterable[T], count: int | None = None) -> Iterator[T]:
        """`items` one by one, checking for a stop before each is asked for (a lazy stream does its unit's work when
        asked). No check once `count` items (default: len(items)) came: a stop after the last unit changes nothing."""
        if count is None and isinstance(items, Sized):
            count = len(items)
        if count is None or count > 0:
            self.check_stop()
        for n, item in enumerate(items, start=1):
            yield item  # the caller's unit runs here; the stream is asked for the next one only after the check
            if count is None or n < count:
                self.check_stop()

    def advance(self, done: int, state: dict[str, Any] | None = None) -> None:
        """Commit progress: `done` units of this run are finished (and committed), `state` merged into the job's."""
        self.job = self.store.update_job(self.job.id, done=self.first + done, state=state)

    def finish(self, done: int | None = None) -> None:
        """Mark the job done (optionally with this run's final count); leaving the block normally does it too."""
        self.job = self.store.update_job(self.job.id, status=JobStatus.DONE.value,
                                         done=None if done is None else self.first + done)
        self.closed = True

    def metered(self, llm: LLM, role: str) -> MeteredLLM:
        """`llm` recording its usage under this job, this work and `role`: re-contexted when already metered."""
        if isinstance(llm, MeteredLLM):
            return llm.with_context(role=role, work_id=self.job.work_id, job_id=self.job.id)
        from core.services import llm_service
        return llm_service.metered(self.store, llm, role, work_id=self.job.work_id, job_id=self.job.id)

    def __enter__(self) -> JobRun:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self.closed:
            return
        self.closed = True
        if exc is None:
            self.job = self.store.update_job(self.job.id, status=JobStatus.DONE.value)
        elif isinstance(exc, JobStopped):
            self.job = self.store.update_job(self.job.id, status=JobStatus.STOPPED.value)
        else:  # anything, an interruption too: the row must not say "running" for a run that is over. The error
            # itself goes on to the caller: the worker writes it on the work's task row, the one record pages read
            self.job = self.store.update_job(self.job.id, status=JobStatus.FAILED.value)


class JobRunner:
    """Finds and starts the jobs of one kind for one work. `on_progress(done, total, message)` receives the
    service's reports; `should_stop()` is asked between units (a page's Stop button, a worker shutting down)."""

    def __init__(self, store: Store, work_id: int, kind: str, *, on_progress: ProgressFn | None = None,
                 should_stop: StopFn | None = None) -> None:
        self.store, self.work_id, self.kind = store, work_id, kind
        self.on_progress = on_progress or _no_progress
        self.should_stop = should_stop or _never

    def latest(self) -> Job | None:
        return self.store.latest_job(self.work_id, self.kind)

    def resumable(self, matches: Callable[[dict[str, Any]], bool] = lambda state: True) -> Job | None:
        """The latest job of this kind when it is unfinished and `matches` its state (set out to do the same work)."""
        job = self.latest()
        return job if unfinished(job) and job is not None and matches(job.state) else None

    def start(self, total: int, state: dict[str, Any] | None = None, resume: Job | None = None) -> JobRun:
        """Open a job for `total` units, or continue `resume` (from `resumable`) with `total` units left; `state` is
        merged into the job's. A new job retires an earlier one of the kind still marked running (Store.open_job).

        A resumed job counts as done what it set out to do less what is left: a unit is committed before its
        progress, so a process killed between the two left one unit finished but uncounted (the services read what
        is left from the store, so it is not done twice). Never fewer than the job counted: units added since (a
        chapter saved) make the total grow."""
        if resume is None:
            job = self.store.open_job(self.work_id, self.kind, total=total)
            if state:
                job = self.store.update_job(job.id, state=state)
            return JobRun(self.store, job, False, 0, self.on_progress, self.should_stop)
        first = max(resume.done, resume.total - total)
        job = self.store.update_job(resume.id, status=JobStatus.RUNNING.value, done=first, total=first + total,
                                    state=state)
        return JobRun(self.store, job, True, first, self.on_progress, self.should_stop)
