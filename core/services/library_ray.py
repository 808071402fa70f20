"""Whole libraries on Ray: one task per book, each running library_ingest.ingest_book (the sequential engine's
function) in a Ray worker process that opens the store itself from the database URL.

    with ray_cluster(num_cpus=2) as cpus:          # a local cluster sized to the CPUs, or the one RAY_ADDRESS names
        for result in run_ray(SqlStore.from_url, url, plan.books, graph=True): print(result.line())

A worker that dies (killed, out of memory) has its task retried up to MAX_RETRIES times, in another worker. The
retry never finds half a book: the import is one transaction, so the book is stored whole (the retry finds it and
goes on to the graph) or not at all (imported again); a graph build that died midway resumes and ends with the
graph an uninterrupted build gives. The claim of a worker that died is taken over at once on this machine (its
process is gone); on another machine when its heartbeat goes stale. Several workers writing to one SQLite file wait
for each other's commits (storage.db sets a busy timeout); a cluster of several machines needs a database server
they all reach (FABULA_DB_URL=postgresql+psycopg://...) and Fabula installed at the same path on every node.
Ray is imported only here, and only when this engine runs.
"""
from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from core.config import PROJECT_ROOT
from core.services.jobs import error_text
from core.services.library_ingest import BookEvent, BookFile, BookResult, EventFn, ingest_book
from core.store import Store

MAX_RETRIES = 3              # attempts after the first when a worker dies
IN_FLIGHT_PER_CPU = 2        # tasks submitted ahead per CPU: the files are read as their turn comes
WAIT_S = 0.2                 # how often the driver passes on progress while it waits

StoreOpener = Callable[[str], Store]
StoreScope = Callable[[Store], Store]
_stores: dict[str, Store] = {}   # in a worker: one store per database URL (and scope), kept for its next tasks


@contextlib.contextmanager
def ray_cluster(num_cpus: int | None = None) -> Iterator[int]:
    """Ray for this process: the cluster RAY_ADDRESS names, or a local one with `num_cpus` CPUs (default: all of
    this machine's). Yields the cluster's CPU count; a cluster started here is shut down at the end, one that was
    already up (a test's) is left running."""
    import ray
    started = not ray.is_initialized()
    if started:
        runtime_env = {"env_vars": {"PYTHONPATH": _pythonpath()}}
        if os.environ.get("RAY_ADDRESS"):
            ray.init(address=os.environ["RAY_ADDRESS"], runtime_env=runtime_env, log_to_driver=False,
                     logging_level=logging.WARNING)
        else:
            ray.init(num_cpus=num_cpus or os.cpu_count() or 1, include_dashboard=False, runtime_env=runtime_env,
                     log_to_driver=False, logging_level=logging.WARNING)
    try:
        yield int(ray.cluster_resources().get("CPU", 1))
    finally:
        if started:
            ray.shutdown()


def _pythonpath() -> str:
    """Fabula's root first, so a worker imports core and storage whatever folder the driver was started in."""
    return os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)


def _store(open_store: StoreOpener, db_url: str, scope: StoreScope | None) -> Store:
    key = f"{db_url} {scope!r}"
    if key not in _stores:
        store = open_store(db_url)
        _stores[key] = store if scope is None else scope(store)
    return _stores[key]


def _ingest_task(open_store: StoreOpener, db_url: str, scope: StoreScope | None, book: BookFile, data: bytes,
                 graph: bool, events: Any) -> BookResult:
    """One book in a Ray worker: the same function and the same kind of store as the sequential engine."""
    return ingest_book(_store(open_store, db_url, scope), book, data, graph=graph,
                       on_event=None if events is None else events.put)


def run_ray(open_store: StoreOpener, db_url: str, books: Sequence[BookFile], *, graph: bool,
            scope: StoreScope | None = None, on_event: EventFn | None = None,
            max_retries: int = MAX_RETRIES) -> Iterator[BookResult]:
    """Each book as a Ray task on the running cluster (ray_cluster), the largest files first; a result as each ends,
    in the order they end.

    `open_store(db_url)` runs in the workers (storage.repository.SqlStore.from_url), then `scope(store)` when given
    (with sign-in: partial(guarded_store.guarded, user=...), the store as the user the driver acts as may use it).
    `on_event` receives the books' progress in this process. A book whose worker died more than `max_retries`
    times, or whose task raised, gives a failed result; the other books go on."""
    import ray
    from ray.util.queue import Queue

    events = Queue(actor_options={"num_cpus": 0}) if on_event is not None else None
    task = ray.remote(_ingest_task).options(num_cpus=1, max_retries=max_retries, retry_exceptions=False)
    window = max(1, int(ray.cluster_resources().get("CPU", 1)) * IN_FLIGHT_PER_CPU)
    todo = sorted(books, key=lambda b: -b.size)   # the longest first: none is left alone at the end
    pending = dict[Any, BookFile]()
    try:
        while todo or pending:
            while todo and len(pending) < window:
                book = todo.pop(0)
                try:
                    data = book.read()
                except OSError as exc:
                    yield BookResult(book.name, "failed", message=f"cannot read it: {exc.strerror}")
                    continue
                pending[task.remote(open_store, db_url, scope, book, data, graph, events)] = book
            if not pending:
                continue
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=WAIT_S, fetch_local=False)
            _relay(events, on_event)
            for ref in ready:
                yield _outcome(ref, pending.pop(ref), max_retries)
        _relay(events, on_event)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if events is not None:
            events.shutdown()


def _relay(events: Any, on_event: EventFn | None) -> None:
    """Pass on the progress the workers sent since the last call."""
    if events is None or on_event is None:
        return
    while not events.empty():
        event: BookEvent = events.get_nowait()
        on_event(event)


def _outcome(ref: Any, book: BookFile, max_retries: int) -> BookResult:
    import ray
    try:
        result: BookResult = ray.get(ref)
        return result
    except ray.exceptions.RayTaskError as exc:  # the task raised: its own error, not Ray's wrapping
        cause = exc.cause if isinstance(exc.cause, BaseException) else exc
        return BookResult(book.name, "failed", message=error_text(cause))
    except ray.exceptions.RayError as exc:  # its worker died on every attempt, or the cluster went away
        return BookResult(book.name, "failed", message=f"its Ray worker died {max_retries + 1} times "
                          f"({type(exc).__name__}); nothing of an unfinished import is stored, and a graph build "
                          "resumes when run again")
