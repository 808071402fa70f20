"""The background worker (core.services.background) on real databases: a work is claimed atomically (a second job
on it is refused, on SQLite and PostgreSQL, from another store too), jobs on two works run at once, a stop asked
through the database ends a job within one unit with what it finished kept, and a job whose server died (a running
task with a quiet heartbeat) is shown as interrupted and resumes to the end under the same job row."""
from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from core.domain import JobStatus, NewChapter, WorkKind
from core.ingest import chunk_text
from core.services import background
from core.services.background import JobRefused, Worker
from core.services.job_kinds import Controls, job_kind
from core.services.jobs import JobRunner
from core.tasks import utcnow
from storage.models_tasks import WorkTaskRow
from storage.repository import SqlStore

TEXTS = ["Elena Voss lived in Millbrook with her brother Tomas Voss.\n\nElena Voss loved the old mill by the river.",
         "Tomas Voss sold the mill to Mara Quill.\n\nMara Quill painted the mill red before the winter came.",
         "One night Elena Voss heard a knock at the door.\n\nTomas Voss stood outside in the rain with a lantern."]
GATES: dict[int, threading.Semaphore] = {}     # work_id -> one release per unit the test lets the job run
STARTED: dict[int, threading.Event] = {}


@job_kind("test_units", "Test job", "units")
def _units_job(store: Any, work_id: int, params: dict[str, Any], controls: Controls) -> str:
    """A job of params["units"] units, each waiting for the test to let it go; committed through the job runner."""
    units = int(params["units"])
    runner = JobRunner(store, work_id, "test_units", on_progress=controls.on_progress,
                       should_stop=controls.should_stop)
    earlier = runner.resumable()
    first = earlier.done if earlier else 0
    with runner.start(units - first, {"units": units}, resume=earlier) as run:
        STARTED.setdefault(work_id, threading.Event()).set()
        for n, _ in enumerate(run.each(range(first, units)), start=1):
            assert GATES[work_id].acquire(timeout=30), "the test never let the unit go"
            run.advance(n)
            run.report(first + n, units, f"unit {first + n}")
    return f"{units} units"


def _work(store: SqlStore, title: str = "Millbrook") -> int:
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(TEXTS, start=1)]
    return store.create_work(title, None, WorkKind.BOOK, {}, chapters).id


def _wait(predicate: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _gate(work_id: int) -> threading.Semaphore:
    GATES[work_id] = threading.Semaphore(0)
    STARTED[work_id] = threading.Event()
    return GATES[work_id]


def test_a_work_is_claimed_once_on_each_database(any_db_url: str) -> None:
    """Two stores (two servers) on one database: the second claim is refused while the first task lives; it is
    granted once the task ended, or once its heartbeat is older than the caller's stale limit."""
    first, second = SqlStore.from_url(any_db_url), SqlStore.from_url(any_db_url)
    try:
        work, other = _work(first), _work(first, "Other")
        fresh = utcnow() - timedelta(seconds=20)
        held = first.claim_task(work, "kg_build", "server-a", {"extractor": "offline"}, fresh)
        assert held is not None and held.status is JobStatus.RUNNING and held.owner == "server-a"
        assert second.claim_task(work, "narco", "server-b", {}, fresh) is None
        assert second.claim_task(other, "narco", "server-b", {}, fresh) is not None   # another work: granted
        assert second.beat_task(work, "server-b") is True                             # not b's: told to stop
        assert first.beat_task(work, "server-a", done=1, total=3, message="one") is False
        first.finish_task(work, "server-a", JobStatus.DONE, "built")
        again = second.claim_task(work, "narco", "server-b", {"window": 3}, fresh)
        assert again is not None and (again.kind, again.params, again.done) == ("narco", {"window": 3}, 0)
        # b's task goes quiet: a claim that counts a heartbeat older than a minute ago as dead takes it over
        assert first.claim_task(work, "kg_build", "server-a", {}, fresh) is None
        taken = first.claim_task(work, "kg_build", "server-a", {}, utcnow() + timedelta(seconds=1))
        assert taken is not None and taken.owner == "server-a"
        second.finish_task(work, "server-b", JobStatus.DONE)                         # not b's any more: no effect
        assert first.get_task(work).status is JobStatus.RUNNING
    finally:
        first.engine.dispose()
        second.engine.dispose()


def test_claims_race_from_many_threads_and_exactly_one_wins(any_db_url: str) -> None:
    stores = [SqlStore.from_url(any_db_url) for _ in range(6)]
    try:
        work = _work(stores[0])
        barrier = threading.Barrier(len(stores))
        won: list[str] = []

        def claim(n: int) -> None:
            barrier.wait()
            if stores[n].claim_task(work, "kg_build", f"server-{n}", {}, utcnow() - timedelta(seconds=20)):
                won.append(f"server-{n}")

        threads = [threading.Thread(target=claim, args=(n,)) for n in range(len(stores))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(won) == 1 and stores[0].get_task(work).owner == won[0]
    finally:
        for s in stores:
            s.engine.dispose()


def test_a_second_job_on_a_work_is_refused_and_two_works_run_at_once(store: SqlStore) -> None:
    worker = Worker(heartbeat_s=0.1)
    a, b = _work(store), _work(store, "Other")
    gate_a, gate_b = _gate(a), _gate(b)
    worker.submit(store, a, "test_units", {"units": 2})
    with pytest.raises(JobRefused, match="Test job is already running on this work"):
        worker.submit(store, a, "test_units", {"units": 2})
    with pytest.raises(JobRefused):  # another server (its own worker and store) is refused too
        Worker().submit(SqlStore(store.engine), a, "test_units", {"units": 2})
    worker.submit(store, b, "test_units", {"units": 2})
    assert STARTED[a].wait(30) and STARTED[b].wait(30)                     # both running at the same time
    assert background.task_view(store, a).state == background.task_view(store, b).state == "running"
    for gate in (gate_a, gate_b):
        gate.release(2)
    assert worker.wait(a, 30) and worker.wait(b, 30)
    for work in (a, b):
        view = background.task_view(store, work)
        assert view.state == "done" and view.task.message == "2 units" and (view.task.done, view.task.total) == (2, 2)
        assert store.latest_job(work, "test_units").status is JobStatus.DONE


def test_stop_from_another_store_ends_the_job_within_one_unit(store: SqlStore) -> None:
    worker = Worker(heartbeat_s=0.1)
    work = _work(store)
    gate = _gate(work)
    worker.submit(store, work, "test_units", {"units": 5})
    gate.release(2)
    _wait(lambda: store.get_task(work).done == 2)
    assert background.request_stop(SqlStore(store.engine), work)             # any tab: through the database
    assert background.task_view(store, work).state == "stopping"
    gate.release(1)                                                          # the unit in progress may finish
    assert worker.wait(work, 30)
    job = store.latest_job(work, "test_units")
    assert job.status is JobStatus.STOPPED and job.done in (2, 3)            # within one unit, the finished kept
    view = background.task_view(store, work)
    assert view.state == "stopped" and "of 5" in view.task.message
    gate.release(5)
    worker.submit(store, work, "test_units", {"units": 5})                  # Resume: the same job row goes on
    assert worker.wait(work, 30)
    assert store.latest_job(work, "test_units").id == job.id and store.get_job(job.id).status is JobStatus.DONE
    assert not background.request_stop(store, work)                           # nothing running: nothing to stop


def test_progress_gives_a_time_left_from_the_measured_rate(store: SqlStore) -> None:
    work = _work(store)
    store.claim_task(work, "test_units", "me", {}, utcnow())
    store.beat_task(work, "me", done=0, total=10, message="starting")
    assert background.task_view(store, work).seconds_left is None          # no rate yet
    time.sleep(0.2)
    store.beat_task(work, "me", done=2, total=10, message="unit 2")
    left = background.task_view(store, work).seconds_left
    assert left is not None and 0.6 < left < 3.0                            # 8 units at ~0.1 s each
    assert background.time_left(left) == "less than a minute left" and background.time_left(600) == "about 10 min left"


@pytest.mark.slow
def test_a_build_killed_with_its_server_is_interrupted_and_resumes(store: SqlStore) -> None:
    """A graph build whose server died after chapter 1: the job row says running, the task's heartbeat is quiet. The
    page shows it interrupted; Resume reads chapters 2 and 3 only, under the same job, and the graph is whole."""
    from core.services import kg_service
    work = _work(store)
    calls = {"n": 0}

    def die_after_one() -> bool:
        calls["n"] += 1
        if calls["n"] == 2:  # asked before chapter 2: the server "dies" (no chance to close the job)
            raise KeyboardInterrupt
        return False

    store.claim_task(work, "kg_build", "dead-server", {"extractor": "offline"}, utcnow())
    with pytest.raises(KeyboardInterrupt):
        kg_service.build_graph(store, work, should_stop=die_after_one)
    job = store.latest_job(work, "kg_build")
    store.update_job(job.id, status=JobStatus.RUNNING.value)   # a kill leaves it running (no except clause ran)
    with store.session() as s:
        s.execute(update(WorkTaskRow).values(heartbeat_at=utcnow() - timedelta(minutes=5)))
    assert set(store.kg_extracted_chapters(work)) == {1}
    view = background.task_view(store, work)
    assert view.state == "interrupted" and not view.busy
    worker = Worker(heartbeat_s=0.1)
    background._worker = worker  # resume() goes through the process's worker
    try:
        background.resume(store, work)
        assert worker.wait(work, 300)
    finally:
        background._worker = None
    view = background.task_view(store, work)
    assert view.state == "done", view.task
    assert "entities" in view.task.message
    assert set(store.kg_extracted_chapters(work)) == {1, 2, 3}
    resumed = store.latest_job(work, "kg_build")
    assert resumed.id == job.id and resumed.status is JobStatus.DONE and (resumed.done, resumed.total) == (3, 3)


def test_the_cli_takes_the_same_claim(db_url: str, fresh_settings, capsys: pytest.CaptureFixture[str],  # noqa: ANN001
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`cli.py kg build` on a work a server is building is refused with the page's message; once the server's task
    ended, the CLI's own build holds the claim while it runs and leaves its outcome for the pages."""
    import cli
    monkeypatch.setenv("FABULA_DB_URL", db_url)
    store = SqlStore.from_url(db_url)
    work = _work(store)
    store.claim_task(work, "summaries", "a-server", {}, utcnow())
    assert cli.main(["kg", "build", str(work), "--json"]) == 1
    assert "Summaries is already running on this work" in capsys.readouterr().err
    assert store.latest_job(work, "kg_build") is None                       # refused before any job row
    store.finish_task(work, "a-server", JobStatus.DONE)
    assert cli.main(["kg", "build", str(work), "--json"]) == 0, capsys.readouterr().err
    task = store.get_task(work)
    assert (task.kind, task.status, task.params["extractor"]) == ("kg_build", JobStatus.DONE, "offline")
    assert "entities" in task.message and task.done == task.total == 3
    store.engine.dispose()


def test_a_task_of_a_dead_process_on_this_machine_is_interrupted_at_once(store: SqlStore) -> None:
    """A restarted server need not wait for the heartbeat to go stale: the claimant's process is gone."""
    import socket
    import subprocess
    ended = subprocess.Popen(["true"])
    ended.wait()
    work = _work(store)
    store.claim_task(work, "test_units", f"{socket.gethostname()}:{ended.pid}:x", {"units": 1}, utcnow())
    assert background.task_view(store, work).state == "interrupted"         # the heartbeat is still fresh
    gate = _gate(work)
    gate.release(1)
    worker = Worker(heartbeat_s=0.1)
    worker.submit(store, work, "test_units", {"units": 1})                   # taken over, not refused
    assert worker.wait(work, 30) and background.task_view(store, work).state == "done"
    assert not background.owner_gone(worker.owner) and not background.owner_gone("elsewhere:1:x")


def test_the_next_chapter_is_priced_before_it_starts(store: SqlStore) -> None:
    """Story chapters are LLM jobs: the Write page shows their tokens and price first (the grapher's read included
    for a story with the graph; none for one without)."""
    from core.services import write_service as ws
    from core.write import DecodeParams, WriteParams
    with_kg = ws.start_story(store, "With", WriteParams("A premise", "Cinderella", llm="fake:echo")).id
    est = ws.chapter_estimate(store, with_kg, "openai:gpt-4o-mini")
    chapter = ws.story_params(store, with_kg).chapter_tokens()
    assert est.calls == 2 and est.output_tokens == chapter + ws.GRAPHER_OUTPUT_TOKENS
    assert est.input_tokens == 2 * ws.PROMPT_OVERHEAD_TOKENS + chapter and est.usd and est.usd > 0
    without = ws.start_story(store, "Without", WriteParams("A premise", "Cinderella", use_kg=False)).id
    short = ws.chapter_estimate(store, without, "openai:gpt-4o-mini", DecodeParams(max_tokens=100))
    assert (short.calls, short.output_tokens, short.input_tokens) == (1, 100, ws.PROMPT_OVERHEAD_TOKENS)
