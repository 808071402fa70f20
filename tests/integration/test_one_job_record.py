"""One record of a job's state (issue 35): the work's task row is what a page reads (status, progress, message,
error) and it says what the runner wrote; the jobs table holds only the resume record. A database from before
migration 0014 (when a failed job's error was in both) upgrades on SQLite and PostgreSQL with its failed job still
shown, with its error, and resumable to the end under the same job row."""
from __future__ import annotations

from typing import Any

from alembic import command
from sqlalchemy import inspect, text

from core.domain import JobProgress, JobStatus, NewChapter, WorkKind
from core.services import background
from core.services.imports import ImportJob
from core.services.job_kinds import Controls, job_kind
from core.services.jobs import JobRunner
from core.tasks import WorkTask
from storage.db import alembic_config, make_engine, migrate
from storage.repository import SqlStore

UNITS = 4
FAIL_ONCE: dict[int, int] = {}   # work id -> the unit its next run fails at (once)


@job_kind("test_record", "Record test", "units")
def _record_job(store: Any, work_id: int, params: dict[str, Any], controls: Controls) -> str:
    """UNITS units through the job runner; fails once at FAIL_ONCE[work_id], then resumes where it ended."""
    runner = JobRunner(store, work_id, "test_record", on_progress=controls.on_progress,
                       should_stop=controls.should_stop)
    earlier = runner.resumable()
    first = earlier.done if earlier else 0
    with runner.start(UNITS - first, {"units": UNITS}, resume=earlier) as run:
        for n, unit in enumerate(run.each(range(first + 1, UNITS + 1)), start=1):
            if FAIL_ONCE.get(work_id) == unit:
                del FAIL_ONCE[work_id]
                raise RuntimeError(f"unit {unit} broke")
            run.advance(n)
            run.report(first + n, UNITS, f"unit {unit}")
    return f"{UNITS} units"


def _work(store: SqlStore) -> int:
    return store.create_work("Millbrook", None, WorkKind.BOOK, {}, [NewChapter("One", "Once.", ["Once."])]).id


def _fail_a_run(store: SqlStore, work_id: int, at: int) -> None:
    FAIL_ONCE[work_id] = at
    worker = background.Worker()
    worker.submit(store, work_id, "test_record", {"units": UNITS})
    assert worker.wait(work_id, 30)


def test_the_page_reads_what_the_runner_wrote(store: SqlStore) -> None:
    work_id = _work(store)
    _fail_a_run(store, work_id, at=3)
    view = background.task_view(store, work_id)
    task = view.task
    assert isinstance(task, WorkTask) and isinstance(task, JobProgress)
    assert (view.state, task.status, task.done, task.total) == ("failed", JobStatus.FAILED, 2, UNITS)
    assert task.error == "RuntimeError: unit 3 broke" and task.message == "unit 2"
    job = store.latest_job(work_id, "test_record")  # the resume record: the same status vocabulary, no error of its own
    assert job is not None and (job.status, job.done, job.total) == (JobStatus.FAILED, 2, UNITS)
    assert not hasattr(job, "error")

    worker = background.Worker()
    worker.submit(store, work_id, "test_record", {"units": UNITS})   # Resume: the same request, the same job row
    assert worker.wait(work_id, 30)
    view = background.task_view(store, work_id)
    assert view.task is not None and (view.state, view.task.error, view.task.message) == ("done", None, "4 units")
    resumed = store.latest_job(work_id, "test_record")
    assert resumed is not None and (resumed.id, resumed.status, resumed.done) == (job.id, JobStatus.DONE, UNITS)


def test_an_import_has_the_shape_the_job_panels_render() -> None:
    job = ImportJob(key="0" * 64, name="big.txt", title=None, allow_copy=False)
    assert isinstance(job, JobProgress) and job.status is JobStatus.RUNNING and job.running
    job.done = 1
    assert job.fraction == 1 / 3 and job.message == "Waiting for a free slot"


def test_a_failed_job_from_before_0014_still_shows_and_resumes(any_db_url: str) -> None:
    engine = make_engine(any_db_url)
    command.upgrade(alembic_config(any_db_url), "0013")
    old = SqlStore(engine)  # the models match 0013 but for jobs.error, which is nullable: inserts still work
    shown, silent = _work(old), _work(old)
    _fail_a_run(old, shown, at=2)
    _fail_a_run(old, silent, at=3)
    with engine.begin() as conn:  # what the runner of 0013 wrote: the error in the job row too; on `silent`, only there
        conn.execute(text("update jobs set error = 'RuntimeError: unit 2 broke' where work_id = :w"), {"w": shown})
        conn.execute(text("update jobs set error = 'RuntimeError: unit 3 broke' where work_id = :w"), {"w": silent})
        conn.execute(text("update work_tasks set error = null where work_id = :w"), {"w": silent})
    assert "error" in {c["name"] for c in inspect(engine).get_columns("jobs")}
    engine.dispose()

    engine = make_engine(any_db_url)
    migrate(engine)
    assert "error" not in {c["name"] for c in inspect(engine).get_columns("jobs")}
    store = SqlStore(engine)
    for work_id, error, done in ((shown, "RuntimeError: unit 2 broke", 1), (silent, "RuntimeError: unit 3 broke", 2)):
        view = background.task_view(store, work_id)
        assert view.task is not None and (view.state, view.task.error) == ("failed", error)
        job = store.latest_job(work_id, "test_record")
        assert job is not None and (job.status, job.done) == (JobStatus.FAILED, done)

    worker = background.Worker()
    task = store.get_task(shown)
    assert task is not None
    worker.submit(store, shown, task.kind, task.params)   # what Resume does (background.resume), on this worker
    assert worker.wait(shown, 30)
    job_after = store.latest_job(shown, "test_record")
    assert job_after is not None and (job_after.status, job_after.done, job_after.total) == (JobStatus.DONE, UNITS,
                                                                                             UNITS)
    assert background.task_view(store, shown).state == "done"

    command.downgrade(alembic_config(any_db_url), "0013")   # and back: the error returns to the job row
    with engine.connect() as conn:
        assert conn.execute(text("select error from jobs where work_id = :w"), {"w": silent}).scalar_one() == (
            "RuntimeError: unit 3 broke")
    engine.dispose()
