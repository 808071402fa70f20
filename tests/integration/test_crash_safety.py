"""Crash safety (issue 10): SIGKILL the worker at random points inside book import, offline graph building and NARCO
edge building; after every kill the reopened database is intact, a restart resumes, and the end result equals an
uninterrupted run on a separate database.

How. tests/support/crash_worker.py runs one phase in its own process (forked from a server that imported the phase's
code once, so a start costs milliseconds instead of seconds) and counts points on the store's engine: every
statement (`execute`), statements sent while a write transaction is open (`write`: mid-transaction, between
statements), and the moments just before (`commit`) and just after (`committed`) each commit that writes. Asked for
the N-th point of a kind, it prints where it is and freezes itself with SIGSTOP; the test then SIGKILLs it. A
reference run of each phase on its own database counts the points of each kind; kill points are drawn from those
counts with random.Random(FABULA_CRASH_SEED or a fixed default; the seed is in every failure message). A few kills
per phase are timed instead (SIGKILL after a random delay), so they can land anywhere, inside SQLite's commit too.

Kills come in chains on one database: kill, reopen and check, restart (which resumes), kill again at a random point
of the work left, ..., then a last restart runs to the end. After each kill: `PRAGMA integrity_check` is ok,
`PRAGMA foreign_key_check` is empty, and no committed progress was lost. Each restart sets out to do exactly the
work that was not committed, and says it resumed when the killed run's job was unfinished. The finished database's
canonical dump (content, no ids or timestamps) equals the reference's. An import is one transaction and has no job:
after a kill there is either no work at all (then it is imported again) or the complete one, never a partial work or
a second copy.
"""
from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import pytest
from sqlalchemy import Connection

from core.domain import JobStatus, NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM
from core.services import kg_service, narco_service
from storage.repository import SqlStore
from tests.conftest import ROOT
from tests.support.crash_worker import BOOK, PREFIX, sliced_chapters
from tests.support.postgres import PostgresServer

SEED = int(os.environ.get("FABULA_CRASH_SEED", "20240610"))
PRECISE_KILLS = 10          # per phase, at counted points
TIMED_KILLS = 2             # per phase, after a random delay
MAX_PROCESSES = 60          # per phase: a campaign that cannot reach its kills fails instead of looping
KILL_PATTERN = ("write", "commit", "execute", "write", "committed", "execute")
GRAPH_SLICE = (5, 4)        # chapters, passages per chapter
NARCO_SLICE = (3, 4)
WORKER_TIMEOUT_S = 240.0    # a worker that runs longer is hung (a whole phase takes seconds)


# ---- running the worker ------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    killed: bool
    events: list[dict[str, Any]]
    delay: float | None = None

    @property
    def timed(self) -> bool:
        return self.delay is not None

    def first(self, name: str) -> dict[str, Any] | None:
        return next((e for e in self.events if e["event"] == name), None)

    @property
    def stop(self) -> dict[str, Any] | None:
        return self.first("stopped")

    @property
    def done(self) -> dict[str, Any] | None:
        return self.first("done")

    @property
    def todo(self) -> int | None:
        """The total of the first progress report: the work the run set out to do."""
        progress = self.first("progress")
        return None if progress is None else progress["total"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}


def _wait_until_stopped(pid: int, timeout: float = 20.0) -> None:
    """Until the worker has frozen itself (state T), so the kill lands exactly at its point."""
    deadline = time.monotonic() + timeout
    stat = Path(f"/proc/{pid}/stat")
    while time.monotonic() < deadline:
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "T":
                return
        except (OSError, IndexError):
            return
        time.sleep(0.002)


class WorkerServer:
    """tests.support.crash_worker's fork server for one phase: a campaign's 20-odd runs are forked from one process
    that imported (and, for the graph, loaded spaCy) once, instead of each paying seconds to start. Each run is its
    own process all the same: stopped at its point, SIGKILLed, reaped."""

    def __init__(self, phase: str, log: Path) -> None:
        self.phase, self.log, self.runs = phase, log, 0
        with log.open("a") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.support.crash_worker", "--serve", phase],
                                         cwd=ROOT, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, text=True)
        assert self._ask(None) == {"ready": phase}, log.read_text()[-3000:]

    def _ask(self, request: dict[str, Any] | None) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if request is not None:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the fork server of {self.phase} ended: {self.log.read_text()[-3000:]}"
        return json.loads(line)

    def fork(self, argv: list[str], events: Path) -> int:
        self.runs += 1
        return int(self._ask({"argv": argv, "events": str(events), "log": str(self.log)})["pid"])

    def reap(self, pid: int) -> int:
        return int(self._ask({"wait": pid})["status"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@contextmanager
def worker_server(phase: str, log: Path) -> Iterator[WorkerServer]:
    server = WorkerServer(phase, log)
    try:
        yield server
    finally:
        server.close()


def _unblock(events: Path) -> None:
    """A reader still waiting for a run that died before opening its pipe gets end-of-file."""
    try:
        os.close(os.open(events, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def run_worker(server: WorkerServer, url: str, kill_at: tuple[str, int] | None = None,
               delay: float | None = None) -> Outcome:
    """One worker run: killed at `kill_at` (when it gets there) or `delay` seconds after it started its work."""
    argv = [url, server.phase] + (["--kill-at", f"{kill_at[0]}:{kill_at[1]}"] if kill_at else [])
    events_path = server.log.with_name(f"{server.phase}-run{server.runs}.events")
    os.mkfifo(events_path)
    hung = threading.Event()
    pid = server.fork(argv, events_path)

    def on_hang() -> None:
        hung.set()
        _kill(pid)
        _unblock(events_path)

    timers = [threading.Timer(WORKER_TIMEOUT_S, on_hang)]
    timers[0].start()
    try:
        with events_path.open() as stream:  # the run opens its end first thing
            events = _read_events(stream, pid, delay, timers)
        returncode = server.reap(pid)
    finally:
        for timer in timers:
            timer.cancel()
        events_path.unlink()
    if hung.is_set() or returncode not in (0, -signal.SIGKILL):
        pytest.fail(f"worker {' '.join(argv[1:])} {'hung' if hung.is_set() else 'exited with'} {returncode}:\n"
                    f"{server.log.read_text()[-3000:]}")
    return Outcome(returncode == -signal.SIGKILL, events, delay)


def _kill(pid: int) -> None:
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _read_events(stream: TextIO, pid: int, delay: float | None,
                 timers: list[threading.Timer]) -> list[dict[str, Any]]:
    """The worker's lines until it ends, or until it froze at its point, which is when it is killed."""
    events: list[dict[str, Any]] = []
    for line in stream:
        if not line.startswith(PREFIX):
            continue
        events.append(json.loads(line[len(PREFIX):]))
        if events[-1]["event"] == "started" and delay is not None:
            timers.append(threading.Timer(delay, _kill, args=(pid,)))
            timers[-1].start()
        if events[-1]["event"] == "stopped":
            _wait_until_stopped(pid)
            _kill(pid)
            break
    return events


# ---- databases -----------------------------------------------------------------------------------------------------

def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def copy_db(src: Path, dst: Path) -> str:
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return _url(dst)


class Databases:
    """Where a campaign's databases live: SQLite files under `tmp`, or databases on the test PostgreSQL server (a
    copy is CREATE DATABASE ... TEMPLATE there, a file backup here)."""

    def __init__(self, tmp: Path, server: PostgresServer | None = None) -> None:
        self.tmp, self.server = tmp, server

    def new(self, name: str) -> str:
        return _url(self.tmp / f"{name}.db") if self.server is None else self.server.fresh_database("crash")

    def copy(self, template_url: str, name: str) -> str:
        if self.server is None:
            return copy_db(Path(template_url.removeprefix("sqlite:///")), self.tmp / f"{name}.db")
        return self.server.fresh_database("crash", template_url=template_url)


@contextmanager
def reopened(url: str) -> Iterator[SqlStore]:
    """The database opened the way the app opens it (migrations, WAL recovery), checked, then closed. SQLite is
    asked for its integrity and foreign-key checks; PostgreSQL enforces its constraints itself, and no constraint
    may be left unvalidated."""
    store = SqlStore.from_url(url)
    try:
        with store.engine.connect() as conn:
            if url.startswith("sqlite"):
                assert conn.exec_driver_sql("PRAGMA integrity_check").all() == [("ok",)], "integrity_check failed"
                assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == [], "foreign_key_check found rows"
            else:
                invalid = conn.exec_driver_sql("SELECT conname FROM pg_constraint WHERE NOT convalidated").all()
                assert invalid == [], f"constraints left unvalidated: {invalid}"
        yield store
    finally:
        store.engine.dispose()


def _rows(conn: Connection, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in conn.exec_driver_sql(sql).all()]


def dump_import(store: SqlStore) -> dict[str, Any]:
    with store.engine.connect() as c:
        return {
            "works": _rows(c, "SELECT title, author, kind, settings FROM works ORDER BY id"),
            "chapters": _rows(c, 'SELECT "index", title, text, word_count, source, revision FROM chapters '
                                 'ORDER BY work_id, "index"'),
            "revisions": _rows(c, 'SELECT c."index", r.revision, r.source, r.text FROM chapter_revisions r '
                                  'JOIN chapters c ON c.id = r.chapter_id ORDER BY c.work_id, c."index", r.revision'),
            "chunks": _rows(c, 'SELECT c."index", k."index", k.text, k.word_count FROM chunks k '
                               'JOIN chapters c ON c.id = k.chapter_id ORDER BY c.work_id, c."index", k."index"'),
            "table_counts": store.table_counts(),
        }


_CHUNK_KEY = ('LEFT JOIN chunks k ON k.id = t.chunk_id LEFT JOIN chapters kc ON kc.id = k.chapter_id '
              'JOIN chapters c ON c.id = t.chapter_id')


def dump_graph(store: SqlStore) -> dict[str, Any]:
    with store.engine.connect() as c:
        names = _rows(c, "SELECT e.label, e.type, e.first_chapter, e.mentions, e.user_label, n.name, n.first_chapter, "
                         "n.count, n.joined_via, n.joined_chapter FROM kg_entity_names n "
                         "JOIN kg_entities e ON e.id = n.entity_id")
        return {
            "chapters": _rows(c, 'SELECT c."index", g.revision, g.extractor, g.stats FROM kg_chapters g '
                                 'JOIN chapters c ON c.id = g.chapter_id ORDER BY c."index"'),
            "mentions": _rows(c, f'SELECT c."index", t.chunk_index, kc."index", k."index", t.name, t.type, t.count '
                                 f'FROM kg_mentions t {_CHUNK_KEY} ORDER BY c."index", t.id'),
            "triples": _rows(c, f'SELECT c."index", t.chunk_index, kc."index", k."index", t.subject, t.relation, '
                                f't.object, t.subject_name, t.object_name, t.sentence FROM kg_triples t {_CHUNK_KEY} '
                                f'ORDER BY c."index", t.id'),
            "aliases": _rows(c, 'SELECT c."index", t.chunk_index, t.name_a, t.name_b, t.kind, t.sentence '
                                'FROM kg_aliases t JOIN chapters c ON c.id = t.chapter_id ORDER BY c."index", t.id'),
            "entities": sorted(_rows(c, "SELECT label, type, first_chapter, mentions, user_label FROM kg_entities")),
            "entity_names": sorted(names),
            "state": _rows(c, "SELECT extractor, llm, chapters, stats FROM kg_state"),
        }


def dump_narco(store: SqlStore) -> dict[str, Any]:
    with store.engine.connect() as c:
        return {
            "edges": _rows(c, 'SELECT fc."index", f."index", tc."index", t."index", e.question, e.evidence, e.answer, '
                              'e.embedding FROM narco_edges e JOIN chunks f ON f.id = e.from_chunk_id '
                              'JOIN chapters fc ON fc.id = f.chapter_id JOIN chunks t ON t.id = e.to_chunk_id '
                              'JOIN chapters tc ON tc.id = t.chapter_id '
                              'ORDER BY tc."index", t."index", fc."index", f."index", e.id'),
            "nodes": _rows(c, 'SELECT c."index", k."index", n.window, n.model FROM narco_nodes n '
                              'JOIN chunks k ON k.id = n.chunk_id JOIN chapters c ON c.id = k.chapter_id '
                              'ORDER BY c."index", k."index"'),
        }


# ---- phases ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Progress:
    done: int            # committed units: works (import), extracted chapters (graph), built passages (NARCO)
    unfinished: bool     # the phase's latest job is running or failed
    job_id: int | None = None


def _job_progress(store: SqlStore, job_kind: str, done: int) -> Progress:
    work_id = store.list_works()[0].id
    job = store.latest_job(work_id, job_kind)
    return Progress(done, bool(job and job.status in (JobStatus.RUNNING, JobStatus.FAILED)), job and job.id)


def graph_progress(store: SqlStore) -> Progress:
    return _job_progress(store, kg_service.JOB_KIND, len(store.kg_extracted_chapters(store.list_works()[0].id)))


def narco_progress(store: SqlStore) -> Progress:
    return _job_progress(store, narco_service.JOB_KIND, len(store.narco_built(store.list_works()[0].id)))


def import_progress(store: SqlStore) -> Progress:
    return Progress(len(store.list_works()), False)


@dataclass(frozen=True)
class Phase:
    name: str
    template: str                                # URL of the database each chain starts from (copied)
    units: int                                   # what a finished run has done, in Progress.done units
    dump: Callable[[SqlStore], dict[str, Any]]
    progress: Callable[[SqlStore], Progress]
    job_kind: str | None
    essential: tuple[str, ...]                   # dump parts an uninterrupted run must fill


@dataclass
class Tally:
    """What a campaign did, for the report and the assertion messages."""

    phase: str
    seed: int = SEED
    precise: Counter[str] = field(default_factory=Counter)
    mid_transaction: int = 0
    timed: int = 0
    chains: int = 0
    processes: int = 0
    points: list[str] = field(default_factory=list)
    left_nothing: int = 0       # import: kills after which no work (and no row) existed, so it was imported again
    left_complete: int = 0      # import: kills after which the complete work existed
    restarts_checked: int = 0   # restarts whose planned work was exactly the uncommitted work
    resumes_checked: int = 0    # restarts after a partly done job that continued it (same job, report.resumed)
    seconds: float = 0.0

    def line(self) -> str:
        outcome = (f"{self.left_nothing} left nothing and {self.left_complete} the complete work, "
                   if self.phase == "import" else "")
        return (f"{self.phase}: {sum(self.precise.values())} kills at counted points {dict(self.precise)} "
                f"({self.mid_transaction} inside an open write transaction), {self.timed} timed kills, {outcome}"
                f"{self.chains} chains, {self.processes} worker processes, {self.restarts_checked} restarts did "
                f"only the uncommitted work, {self.resumes_checked} continued the killed job, {self.seconds:.1f} s, "
                f"seed {self.seed}")


class Campaign:
    """Kill chains on copies of a phase's template until enough kills were survived."""

    def __init__(self, phase: Phase, dbs: Databases, server: WorkerServer, reference: dict[str, Any],
                 reference_dump: dict[str, Any]) -> None:
        self.phase, self.dbs, self.server = phase, dbs, server
        self.ref_counts: dict[str, int] = reference["counts"]     # points of each kind in an uninterrupted run
        self.ref_seconds = float(reference["seconds"])
        self.ref_dump = reference_dump
        self.rng = random.Random(f"{SEED}:{phase.name}")
        self.timer_rng = random.Random(f"{SEED}:{phase.name}:timed")
        self.used: set[tuple[str, int]] = set()
        self.tally = Tally(phase.name)
        self.log = server.log

    def context(self) -> str:
        return f"[{self.tally.line()}; kill points so far: {self.tally.points}; worker log {self.log}]"

    def enough(self) -> bool:
        return sum(self.tally.precise.values()) >= PRECISE_KILLS and self.tally.timed >= TIMED_KILLS

    def run(self) -> Tally:
        started = time.perf_counter()
        while not self.enough():
            assert self.tally.processes < MAX_PROCESSES, f"too many worker starts {self.context()}"
            self.chain(f"{self.phase.name}-chain{self.tally.chains}")
        self.tally.seconds = time.perf_counter() - started
        return self.tally

    # -- one chain ---------------------------------------------------------------------------------------------------
    def chain(self, name: str) -> None:
        url = self.dbs.copy(self.phase.template, name)
        self.tally.chains += 1
        consumed: Counter[str] = Counter()
        before = Progress(0, False)
        while not self.enough():
            outcome = self.next_run(url, consumed, first=before == Progress(0, False) and not consumed)
            if outcome is None:
                break
            self.check_todo(outcome, before)
            if not outcome.killed:
                self.check_finished(url, outcome, before)
                return
            after = self.after_kill(url, outcome, before)
            consumed.update(outcome.stop["counts"] if outcome.stop else {})
            if not self.needs_restart(after):
                return
            before = after
        self.check_finished(url, self.start(url, None, None), before)

    def next_run(self, url: str, consumed: Counter[str], first: bool) -> Outcome | None:
        """A run to kill at a drawn point; once those kills are done, a timed kill as the first run of a fresh chain
        (its whole work lies ahead, so the random delay falls inside it). None: finish the chain. The counted kills
        come first and draw from their own generator, so a seed replays them exactly."""
        if sum(self.tally.precise.values()) >= PRECISE_KILLS:
            return self.start(url, None, self.timer_rng.uniform(0.0, self.ref_seconds)) if first else None
        point = self.draw(consumed)
        return None if point is None else self.start(url, point, None)

    def draw(self, consumed: Counter[str]) -> tuple[str, int] | None:
        """A point not used before in this phase, of the next kind in KILL_PATTERN that has work left."""
        offset = sum(self.tally.precise.values())
        for step in range(len(KILL_PATTERN)):
            kind = KILL_PATTERN[(offset + step) % len(KILL_PATTERN)]
            remaining = self.ref_counts.get(kind, 0) - consumed[kind]
            free = [n for n in range(1, remaining + 1) if (kind, n) not in self.used]
            if free:
                n = self.rng.choice(free)
                self.used.add((kind, n))
                return kind, n
        return None

    def start(self, url: str, point: tuple[str, int] | None, delay: float | None) -> Outcome:
        self.tally.processes += 1
        return run_worker(self.server, url, point, delay)

    # -- checks --------------------------------------------------------------------------------------------------------
    def after_kill(self, url: str, outcome: Outcome, before: Progress) -> Progress:
        stop = outcome.stop
        if outcome.timed:
            self.tally.timed += 1
            self.tally.points.append(f"timed:{outcome.delay:.4f}s")
        else:
            assert stop is not None, f"the worker was killed without reaching its point {self.context()}"
            self.tally.precise[stop["kind"]] += 1
            self.tally.mid_transaction += bool(stop["in_transaction"])
            self.tally.points.append(f"{stop['kind']}:{stop['n']}")
        try:
            with reopened(url) as store:
                after = self.phase.progress(store)
                assert after.done >= before.done, f"committed progress was lost: {before} -> {after}"
                self.check_same_job(before, after)
                if self.phase.name == "import":
                    self.check_import_after_kill(store, after)
        except AssertionError as exc:
            raise AssertionError(f"after the kill at {self.tally.points[-1]}: {exc} {self.context()}") from exc
        return after

    def check_import_after_kill(self, store: SqlStore, after: Progress) -> None:
        """All or nothing: no work and no row of one, or exactly the complete work."""
        if after.done == 0:
            assert not any(store.table_counts().values()), f"a partial import is stored: {store.table_counts()}"
            self.tally.left_nothing += 1
        else:
            assert after.done == 1 and self.phase.dump(store) == self.ref_dump, "the stored work is not complete"
            self.tally.left_complete += 1

    def needs_restart(self, after: Progress) -> bool:
        """An import that committed is finished (importing again would add a second copy); builds always resume."""
        return not (self.phase.name == "import" and after.done == 1)

    def check_todo(self, outcome: Outcome, before: Progress) -> None:
        """A (re)started build sets out to do exactly the work that is not committed yet."""
        if self.phase.job_kind is None or outcome.todo is None:
            return
        assert outcome.todo == self.phase.units - before.done, (
            f"a restart after {before} set out to do {outcome.todo} of {self.phase.units} {self.context()}")
        self.tally.restarts_checked += before.done > 0

    def must_resume(self, before: Progress) -> bool:
        """A restart after this state has a partly done, unfinished job to continue."""
        return self.phase.job_kind is not None and before.unfinished and 0 < before.done < self.phase.units

    def check_same_job(self, before: Progress, after: Progress) -> None:
        """A restart that continued a partly done job works under that job; starting over would open a new one."""
        if self.must_resume(before):
            assert after.job_id == before.job_id, f"the restart after {before} opened a new job: {after}"
            self.tally.resumes_checked += 1

    def check_finished(self, url: str, outcome: Outcome, before: Progress) -> None:
        assert outcome.done is not None, f"the final run did not finish {self.context()}"
        report = outcome.done["report"]
        if self.must_resume(before):
            assert report["resumed"], f"the restart after {before} started over: {report} {self.context()}"
        with reopened(url) as store:
            assert self.phase.dump(store) == self.ref_dump, (
                f"the crashed-and-resumed result differs from the uninterrupted run {self.context()}")
            if self.phase.job_kind is not None:
                final = self.phase.progress(store)
                self.check_same_job(before, final)
                job = store.get_job(final.job_id) if final.job_id else None
                assert job is not None and job.status is JobStatus.DONE, f"job left as {job} {self.context()}"


# ---- fixtures and tests ----------------------------------------------------------------------------------------------

def _template(dbs: Databases, name: str, chapters: tuple[int, int] | None) -> str:
    url = dbs.new(name)
    store = SqlStore.from_url(url)
    if chapters:
        store.create_work("A Christmas Carol (slice)", "Charles Dickens", WorkKind.BOOK, {},
                          sliced_chapters(BOOK, *chapters))
    store.engine.dispose()
    return url


def campaign(phase: Phase, dbs: Databases) -> Tally:
    reference_url = dbs.copy(phase.template, f"{phase.name}-reference")
    with worker_server(phase.name, dbs.tmp / f"{phase.name}-worker.log") as server:
        reference = run_worker(server, reference_url)
        assert reference.done is not None and not reference.killed
        with reopened(reference_url) as store:
            reference_dump = phase.dump(store)
            assert phase.progress(store).done == phase.units
        assert all(reference_dump[key] for key in phase.essential), f"the reference {phase.name} stored too little"
        tally = Campaign(phase, dbs, server, reference.done, reference_dump).run()
    tally.processes += 1
    return tally


@pytest.fixture(params=["sqlite", "postgresql"])
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Databases:
    """Each campaign on a SQLite file and on the test PostgreSQL server (issue 20: crash safety on both)."""
    if request.param == "sqlite":
        return Databases(tmp_path)
    return Databases(tmp_path, request.getfixturevalue("postgres_server"))


def _report(tally: Tally, capsys: pytest.CaptureFixture[str]) -> None:
    """The counts, printed past pytest's capture so a plain run shows them."""
    with capsys.disabled():
        print(f"\ncrash safety {tally.line()}; kill points {' '.join(tally.points)}")


def _assert_tally(tally: Tally) -> None:
    assert sum(tally.precise.values()) >= PRECISE_KILLS and tally.timed >= TIMED_KILLS, tally.line()
    assert len(set(tally.points)) == len(tally.points), f"kill points repeat: {tally.points} ({tally.line()})"
    assert tally.precise["write"] >= 2 and tally.precise["commit"] >= 1, tally.line()


@pytest.mark.slow
def test_import_survives_kills(dbs: Databases, capsys: pytest.CaptureFixture[str]) -> None:
    phase = Phase("import", _template(dbs, "empty", None), 1, dump_import, import_progress, None,
                  ("works", "chapters", "revisions", "chunks"))
    tally = campaign(phase, dbs)
    _report(tally, capsys)
    _assert_tally(tally)


@pytest.mark.slow
def test_graph_build_survives_kills(dbs: Databases, capsys: pytest.CaptureFixture[str]) -> None:
    template = _template(dbs, "graph-template", GRAPH_SLICE)
    phase = Phase("graph", template, GRAPH_SLICE[0], dump_graph, graph_progress, kg_service.JOB_KIND,
                  ("chapters", "mentions", "triples", "entities", "entity_names", "state"))
    tally = campaign(phase, dbs)
    _report(tally, capsys)
    _assert_tally(tally)


@pytest.mark.slow
def test_narco_build_survives_kills(dbs: Databases, capsys: pytest.CaptureFixture[str]) -> None:
    template = _template(dbs, "narco-template", NARCO_SLICE)
    phase = Phase("narco", template, NARCO_SLICE[0] * NARCO_SLICE[1], dump_narco, narco_progress,
                  narco_service.JOB_KIND, ("edges", "nodes"))
    tally = campaign(phase, dbs)
    _report(tally, capsys)
    _assert_tally(tally)


# ---- a bug the graph campaign found --------------------------------------------------------------------------------

CAROL_NAMES = ("Scrooge", "Marley", "Bob Cratchit", "Tiny Tim", "Fred")
CAROL_TEXTS = ["Scrooge and Marley kept the counting-house.", "Bob Cratchit copied letters while Scrooge watched.",
               "Fred asked Scrooge to dinner; Bob Cratchit smiled; Marley was dead.", "Tiny Tim blessed them all."]


def _names_in(messages, options) -> str:  # noqa: ANN001 - a FakeLLM reply: the names in the excerpt, chained
    excerpt = messages[-1].content.rsplit("[Begin story excerpt]", 1)[-1]
    found = [n for n in CAROL_NAMES if n in excerpt]
    edges = [f"{i}. {a}; knew; {b}" for i, (a, b) in enumerate(zip(found, found[1:]), start=1)]
    return "\n".join(found) + "\nKnowledge graph edges (select up to 15):\n" + "\n".join(edges)


def _carol_work(store: SqlStore, title: str) -> int:
    chapters = [NewChapter(f"Stave {i}", t, chunk_text(t)) for i, t in enumerate(CAROL_TEXTS, start=1)]
    return store.create_work(title, None, WorkKind.BOOK, {}, chapters).id


def test_a_resumed_or_repeated_graph_build_records_the_same_stats(store: SqlStore) -> None:
    """The build's stats (stored in kg_state and reported) counted only what the last run extracted: after a crash
    and a resume they missed every chapter extracted before the crash, and a restart after a crash that came after
    the build had finished wiped them."""
    whole, broken = _carol_work(store, "whole"), _carol_work(store, "broken")
    clean = kg_service.build_graph(store, whole, extractor="llm", llm=FakeLLM(_names_in))

    def crash_after_two(done: int, total: int, message: str) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        kg_service.build_graph(store, broken, extractor="llm", llm=FakeLLM(_names_in), on_progress=crash_after_two)
    resumed = kg_service.build_graph(store, broken, extractor="llm", llm=FakeLLM(_names_in))
    assert resumed.resumed and resumed.extracted == 2
    assert clean.stats["llm_calls"] == len(CAROL_TEXTS) and clean.stats["edges"] == clean.edges > 0
    assert resumed.stats == clean.stats
    assert store.kg_state(broken).stats == store.kg_state(whole).stats == clean.stats
    again = kg_service.build_graph(store, broken, extractor="llm", llm=FakeLLM([]))
    assert again.extracted == 0 and not again.resumed
    assert again.stats == clean.stats and store.kg_state(broken).stats == clean.stats
