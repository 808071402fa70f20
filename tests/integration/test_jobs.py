"""The one job runner (core.services.jobs) on a real SQLite file: a failed run resumes under the same job, a stop
request ends a run between units (never inside one) and leaves it resumable, usage is metered under the job, and the
three long jobs (graph, NARCO, summaries) stop and resume through it."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from core.domain import JobStatus, NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM
from core.services import kg_service, llm_service, narco_service, summary_service
from core.services.jobs import ERROR_CHARS, JobRunner, JobStopped, error_text, unfinished
from storage.repository import SqlStore

KIND = "test_job"
TEXTS = ["Elena Voss lived in Millbrook with her brother Tomas Voss.\n\nElena Voss loved the old mill by the river.",
         "Tomas Voss sold the mill to Mara Quill.\n\nMara Quill painted the mill red before the winter came.",
         "One night Elena Voss heard a knock at the door.\n\nTomas Voss stood outside in the rain with a lantern."]


def _work(store: SqlStore, title: str = "Millbrook") -> int:
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(TEXTS, start=1)]
    return store.create_work(title, None, WorkKind.BOOK, {}, chapters).id


def run_units(runner: JobRunner, units: list[int], *, fail_at: int | None = None, resume: bool = False) -> list[int]:
    """A service's loop in miniature: each unit is started, then its progress committed; the units started."""
    earlier = runner.resumable(lambda state: state.get("units") == units) if resume else None
    left = units[earlier.state["next"] - 1:] if earlier else units
    started: list[int] = []
    with runner.start(len(left), None if earlier else {"units": units, "next": 1}, resume=earlier) as run:
        for n, unit in enumerate(run.each(left), start=1):
            started.append(unit)
            if unit == fail_at:
                raise RuntimeError("the model went away " + "x" * 600)
            run.advance(n, {"next": unit + 1})
    return started


def test_a_failed_run_resumes_under_the_same_job(store: SqlStore) -> None:
    runner = JobRunner(store, _work(store), KIND)
    with pytest.raises(RuntimeError) as raised:   # the error goes on to the caller (the worker puts it on the task row)
        run_units(runner, [1, 2, 3, 4], fail_at=3)
    shown = error_text(raised.value)
    assert shown.startswith("RuntimeError: the model went away") and len(shown) == ERROR_CHARS
    failed = store.latest_job(runner.work_id, KIND)
    assert failed is not None and failed.status is JobStatus.FAILED and (failed.done, failed.total) == (2, 4)
    assert failed.state["next"] == 3
    assert runner.resumable(lambda state: state.get("units") == [9]) is None      # other work: not this job
    assert run_units(runner, [1, 2, 3, 4], resume=True) == [3, 4]                  # the units left, and only them
    done = store.get_job(failed.id)
    assert store.latest_job(runner.work_id, KIND) == done                          # no second job
    assert done.status is JobStatus.DONE and (done.done, done.total) == (4, 4)
    assert runner.resumable() is None and not unfinished(done)


def test_a_new_run_without_resume_opens_a_new_job(store: SqlStore) -> None:
    runner = JobRunner(store, _work(store), KIND)
    with pytest.raises(RuntimeError):
        run_units(runner, [1, 2, 3], fail_at=2)
    first = store.latest_job(runner.work_id, KIND)
    assert run_units(runner, [1, 2, 3]) == [1, 2, 3]
    latest = store.latest_job(runner.work_id, KIND)
    assert first is not None and latest is not None and latest.id != first.id and latest.status is JobStatus.DONE
    assert store.get_job(first.id).status is JobStatus.FAILED


def test_a_stop_request_ends_the_run_between_units_and_leaves_it_resumable(store: SqlStore) -> None:
    stop = {"after": 2}
    runner = JobRunner(store, _work(store), KIND,
                       should_stop=lambda: (job := store.latest_job(runner.work_id, KIND)) is not None
                       and job.done >= stop["after"])
    with pytest.raises(JobStopped) as raised:
        run_units(runner, [1, 2, 3, 4])
    stopped = store.latest_job(runner.work_id, KIND)
    assert stopped is not None and stopped.status is JobStatus.STOPPED and stopped.done == 2
    assert raised.value.job.id == stopped.id and "2 of 4" in str(raised.value)
    assert unfinished(stopped) and runner.resumable() == stopped
    stop["after"] = 99
    assert run_units(runner, [1, 2, 3, 4], resume=True) == [3, 4]
    assert store.get_job(stopped.id).status is JobStatus.DONE


def test_no_unit_is_cut_and_a_stop_after_the_last_one_changes_nothing(store: SqlStore) -> None:
    work_id = _work(store)
    asked: list[int] = []

    def stream() -> Iterator[int]:  # a lazy stream does a unit's work when the next item is asked for
        for unit in (1, 2, 3):
            asked.append(unit)
            yield unit

    stop = {"now": False}
    runner = JobRunner(store, work_id, KIND, should_stop=lambda: stop["now"])
    with pytest.raises(JobStopped), runner.start(3) as run:
        for n, _unit in enumerate(run.each(stream(), 3), start=1):
            run.advance(n)
            stop["now"] = True
    assert asked == [1]                                    # unit 2 was never begun
    stop["now"] = False
    with runner.start(3) as run:
        for n, _unit in enumerate(run.each([1, 2, 3]), start=1):
            run.advance(n)
            stop["now"] = n == 3                           # asked for during the last unit: nothing left to stop
    latest = store.latest_job(work_id, KIND)
    assert latest is not None and latest.status is JobStatus.DONE and latest.done == 3
    stop["now"] = True
    with pytest.raises(JobStopped), runner.start(3) as run:  # asked before anything began: nothing is done
        for _unit in run.each([1, 2, 3]):
            pytest.fail("a unit ran after the stop request")
    assert run.job.status is JobStatus.STOPPED and run.job.done == 0


def test_usage_is_metered_once_under_the_job(store: SqlStore) -> None:
    work_id = _work(store)
    runner = JobRunner(store, work_id, KIND)
    with runner.start(1) as run:
        run.metered(FakeLLM(["plain"]), "extraction").complete("one")
        already = llm_service.metered(store, FakeLLM(["metered"]), "writing", work_id=work_id)
        run.metered(already, "extraction").complete("two")    # re-contexted, not wrapped twice
    assert store.llm_usage(job_id=run.id)["calls"] == 2
    assert store.llm_usage(work_id=work_id)["calls"] == 2


def test_summaries_stop_between_chapters_and_resume(store: SqlStore) -> None:
    work_id = _work(store)
    made = lambda: len(store.summary_history(work_id))  # noqa: E731
    llm = FakeLLM("Summary: a chapter.", repeat_last=True)
    with pytest.raises(JobStopped):
        summary_service.summarize(store, work_id, modes=("no_kg",), llm=llm, should_stop=lambda: made() >= 1)
    assert made() == 1 and len(llm.calls) == 1                        # the second chapter was never asked for
    assert summary_service.unfinished_job(store, work_id) == {"job_id": 1, "done": 1, "total": 3}
    report = summary_service.summarize(store, work_id, modes=("no_kg",), llm=FakeLLM("Summary.", repeat_last=True))
    assert report.resumed and report.job_id == 1 and report.summarized == 2 and made() == 3
    assert store.get_job(1).status is JobStatus.DONE and summary_service.unfinished_job(store, work_id) is None


def test_narco_stops_between_batches_and_resumes(store: SqlStore) -> None:
    work_id = _work(store)                                            # a passage a chapter
    params = narco_service.NarcoParams(window=1, batch_size=2)
    built = lambda: len(store.narco_built(work_id))  # noqa: E731
    embed = lambda texts: np.zeros((len(texts), 384), dtype=np.float32)  # noqa: E731
    with pytest.raises(JobStopped):
        narco_service.build_edges(store, work_id, FakeLLM("No link.", repeat_last=True), params, llm_name="fake:test",
                                  embed=embed, should_stop=lambda: built() >= 2)
    assert built() == 2 and narco_service.status(store, work_id)["unfinished"]
    job = store.latest_job(work_id, narco_service.JOB_KIND)
    assert job is not None and job.status is JobStatus.STOPPED and (job.done, job.total) == (2, 3)
    report = narco_service.build_edges(store, work_id, FakeLLM("No link.", repeat_last=True), params,
                                       llm_name="fake:test", embed=embed)
    assert report.resumed and report.job_id == job.id and report.passages == 1 and built() == 3
    assert not narco_service.status(store, work_id)["unfinished"]


@pytest.mark.slow
def test_a_stopped_graph_build_shows_what_it_finished_and_resumes_to_the_same_graph(store: SqlStore) -> None:
    stopped, clean = _work(store, "stopped"), _work(store, "clean")
    with pytest.raises(JobStopped):
        kg_service.build_graph(store, stopped, should_stop=lambda: len(store.kg_extracted_chapters(stopped)) >= 1)
    assert sorted(store.kg_extracted_chapters(stopped)) == [1]
    assert "Elena Voss" in {e.label for e in store.kg_entities(stopped)}   # resolved: the graph so far is shown
    assert kg_service.graph_status(store, stopped).unfinished_job
    report = kg_service.build_graph(store, stopped)
    assert report.resumed and report.extracted == 2 and not kg_service.graph_status(store, stopped).unfinished_job
    kg_service.build_graph(store, clean)
    labels = {w: sorted((e.label, e.mentions) for e in store.kg_entities(w)) for w in (stopped, clean)}
    assert labels[stopped] == labels[clean]


@pytest.mark.slow
def test_a_build_killed_between_a_chapter_and_its_count_resumes_to_the_full_count(
        store: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chapter is committed to the graph, then counted on the job in a second transaction: a process killed
    between the two leaves the job one behind the graph. The resumed job counts that chapter (it is not read again)
    and ends at every chapter of the book, as the page says (e2e: a server killed mid-build)."""
    work_id = _work(store)
    update_job = store.update_job

    def killed_at_second_count(job_id: int, **changes: object) -> object:
        if changes.get("done") == 2:
            monkeypatch.setattr(store, "update_job", update_job)  # the process is gone: the next one counts
            raise KeyboardInterrupt("killed")
        return update_job(job_id, **changes)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "update_job", killed_at_second_count)
    with pytest.raises(KeyboardInterrupt):
        kg_service.build_graph(store, work_id)
    killed = store.latest_job(work_id, kg_service.JOB_KIND)
    assert killed is not None and (killed.done, killed.state["next_chapter"]) == (1, 2)
    assert sorted(store.kg_extracted_chapters(work_id)) == [1, 2]          # chapter 2 committed, not counted
    report = kg_service.build_graph(store, work_id)
    assert report.resumed and report.extracted == 1                       # chapter 3 only
    job = store.get_job(killed.id)
    assert job.status is JobStatus.DONE and (job.done, job.total) == (3, 3)
