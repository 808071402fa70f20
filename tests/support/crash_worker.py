"""Crash-test driver: run one Fabula phase on a database and, optionally, freeze itself at an exact point of its
database work so the test can SIGKILL it there.

    python -m tests.support.crash_worker DB_URL PHASE [--kill-at KIND:N] [--book PATH]

PHASE is `import` (library.import_book of BOOK), `graph` (kg_service.build_graph, offline extractor) or `narco`
(narco_service.build_edges with a scripted LLM and a deterministic embedder) on the database's only work.

Points are counted on the store's engine once it is open (so migrations are not counted), by kind:

- execute:   before any statement is sent to the database (SQLite or PostgreSQL);
- write:     before a statement sent while a write transaction is open (inside a transaction, between statements);
- commit:    just before the commit of a write transaction of several statements (the boundaries where atomicity
             matters; a one-statement transaction, such as a job update or a usage record, is covered by the
             `execute` point of its statement, which a kill before its commit is equivalent to);
- committed: just after such a commit.

With `--kill-at write:7` the worker prints a `stopped` line at the 7th `write` point and stops itself with SIGSTOP;
the test then kills it with SIGKILL, a real kill at a point inside the database work. Every line for the test is
one JSON object after PREFIX on stdout: `started`, `progress` (done, total), `stopped` and `done` (with the point
counts and what the service reported).

    python -m tests.support.crash_worker --serve PHASE

is a fork server for a campaign's many runs: it imports what PHASE needs (and loads spaCy for `graph`) once, then
reads one JSON request a line on stdin and answers one a line on stdout. `{"argv": [...], "events": FIFO, "log":
PATH}` forks a run of `main(argv)` whose stdout is the named pipe FIFO and stderr appended to PATH, and answers its
`pid`; `{"wait": PID}` reaps that run and answers its `status` (an exit code, negative for a signal, as subprocess
has it). Each run is still its own process, killed and counted as before; only the start (about 4 s of imports and
model loading for `graph` on 2 cores, paid by every one of a campaign's 20-odd runs) is shared.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Engine, event

from core.config import PROJECT_ROOT

PREFIX = "CRASH-WORKER "
PHASES = ("import", "graph", "narco")
POINT_KINDS = ("execute", "write", "commit", "committed")
BOOK = PROJECT_ROOT / "assets" / "a_christmas_carol.txt"
EMBED_DIM = 384


def emit(event_name: str, **fields: Any) -> None:
    print(PREFIX + json.dumps({"event": event_name, **fields}), flush=True)


class PointCounter:
    """Counts the points of each kind on an engine and freezes the process at the requested one."""

    def __init__(self, engine: Engine, kill_at: tuple[str, int] | None) -> None:
        self.counts: Counter[str] = Counter()
        self.kill_at = kill_at
        self._committing = False
        self._statements_in_transaction = 0  # after the one that opened it
        event.listen(engine, "before_cursor_execute", self._before_execute)
        event.listen(engine, "commit", self._before_commit)
        event.listen(engine, "rollback", self._on_rollback)

    @staticmethod
    def _in_transaction(conn: Any) -> bool:
        """Whether a transaction is open on the connection. sqlite3 opens one before a write; psycopg (PostgreSQL)
        before any statement, so there a read inside a transaction counts as a `write` point too."""
        dbapi = conn.connection.dbapi_connection
        if hasattr(dbapi, "in_transaction"):  # sqlite3
            return bool(dbapi.in_transaction)
        from psycopg.pq import TransactionStatus
        return dbapi.info.transaction_status != TransactionStatus.IDLE

    def _before_execute(self, conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        self._committed_check()
        inside = self._in_transaction(conn)
        self._hit("execute", inside, statement)
        if inside:
            self._statements_in_transaction += 1
            self._hit("write", inside, statement)

    def _before_commit(self, conn: Any) -> None:
        several = self._in_transaction(conn) and self._statements_in_transaction > 0
        self._statements_in_transaction = 0
        if several:
            self._hit("commit", True, "COMMIT")
            self._committing = True

    def _on_rollback(self, conn: Any) -> None:
        self._statements_in_transaction = 0

    def _committed_check(self) -> None:
        """A `committed` point: the session's after_commit (or else the next statement) after a `commit` point."""
        if self._committing:
            self._committing = False
            self._hit("committed", False, "")

    def after_commit(self, _session: Any) -> None:
        self._committed_check()

    def _hit(self, kind: str, inside: bool, statement: str) -> None:
        self.counts[kind] += 1
        if self.kill_at == (kind, self.counts[kind]):
            emit("stopped", kind=kind, n=self.counts[kind], in_transaction=inside, counts=dict(self.counts),
                 statement=" ".join(statement.split())[:120])
            os.kill(os.getpid(), signal.SIGSTOP)


def hash_embed(texts: list[str]) -> np.ndarray:
    """Deterministic unit vectors (the embedding model is not under test; its bytes are compared as stored)."""
    rows = []
    for text in texts:
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(EMBED_DIM)
        rows.append(vector / np.linalg.norm(vector))
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), EMBED_DIM)


def narco_params() -> Any:
    from core.services.narco_service import NarcoParams
    return NarcoParams(window=2, batch_size=2)


def sliced_chapters(book: Path, chapters: int, passages: int) -> list[Any]:
    """The first `passages` passages of the first `chapters` chapters of `book`, as chapters to store."""
    from core.domain import NewChapter
    from core.ingest import chunk_text, read_book
    parsed = read_book(book.name, book.read_bytes())
    out = []
    for chapter in parsed.chapters[:chapters]:
        chunks = chunk_text(chapter.text)[:passages]
        out.append(NewChapter(chapter.title, "\n\n".join(chunks), chunks))
    return out


def _only_work(store: Any) -> int:
    works = store.list_works()
    if len(works) != 1:
        raise SystemExit(f"expected exactly one work in the database, found {len(works)}")
    return works[0].id


def _progress(done: int, total: int, message: str) -> None:
    emit("progress", done=done, total=total)


def run_phase(store: Any, phase: str, book: Path) -> dict[str, Any]:
    """Run the phase to its end; what the service reported, as plain JSON."""
    if phase == "import":
        from core.services import library
        work = library.import_book(store, book.name, book.read_bytes(), on_progress=_progress)
        return {"work_id": work.id}
    work_id = _only_work(store)
    if phase == "graph":
        from core.services import kg_service
        report = kg_service.build_graph(store, work_id, on_progress=_progress)
        return {"resumed": report.resumed, "extracted": report.extracted, "chapters": report.chapters}
    from core.services import narco_service
    from tests.integration.test_qa_narco_build import narco_llm
    narco = narco_service.build_edges(store, work_id, narco_llm(), narco_params(), llm_name="fake:narco",
                                      on_progress=_progress, embed=hash_embed)
    return {"resumed": narco.resumed, "passages": narco.passages, "job_id": narco.job_id, "edges": narco.edges_total}


def _parse_kill(spec: str | None) -> tuple[str, int] | None:
    if not spec:
        return None
    kind, _, n = spec.partition(":")
    if kind not in POINT_KINDS or not n.isdigit() or int(n) < 1:
        raise SystemExit(f"--kill-at wants KIND:N with KIND in {POINT_KINDS} and N >= 1, not {spec!r}")
    return kind, int(n)


PRELOAD = {"graph": ("core.services.kg_service",), "import": ("core.services.library",),
           "narco": ("core.services.narco_service", "tests.integration.test_qa_narco_build")}


def _preload(phase: str) -> None:
    """What a run of `phase` imports and loads before its database work, done once in the fork server. Nothing here
    opens a database: each forked run opens its own engine."""
    import importlib
    if phase == "graph":
        # spaCy's thinc imports torch when it can (seconds per start) though the small CPU pipeline never uses it;
        # the reference run and every killed run load the same pipeline without it.
        sys.modules.setdefault("torch", None)  # type: ignore[arg-type]
        from core.nlp import load_spacy
        load_spacy()
    for module in (*PRELOAD[phase], "sqlalchemy.orm", "storage.repository"):
        importlib.import_module(module)


def _forked_run(request: dict[str, Any]) -> int:
    """In the server: fork a run of main(request["argv"]); the child's pid."""
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:  # the child: its stdout the test's named pipe (opened first, so the reader never waits on nothing)
        os.dup2(os.open(request["events"], os.O_WRONLY), 1)
        os.dup2(os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), 2)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        code = main(request["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - a run's failure goes to its log; the exit code tells the test
        import traceback
        traceback.print_exc()
    finally:  # never back into the server's loop, whatever happens here
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - a reader gone after the kill: nothing left to tell
                pass
        os._exit(code)


def serve(phase: str) -> int:
    """The fork server: requests on stdin, answers on stdout, until stdin closes."""
    _preload(phase)
    print(json.dumps({"ready": phase}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if "wait" in request:
            _, status = os.waitpid(int(request["wait"]), 0)
            answer = {"status": os.waitstatus_to_exitcode(status)}
        else:
            answer = {"pid": _forked_run(request)}
        print(json.dumps(answer), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.crash_worker")
    parser.add_argument("db_url")
    parser.add_argument("phase", choices=PHASES)
    parser.add_argument("--kill-at", default=None, help="KIND:N, e.g. write:12 or commit:3")
    parser.add_argument("--book", type=Path, default=BOOK)
    args = parser.parse_args(argv)
    kill_at = _parse_kill(args.kill_at)
    # before the clock starts: imports and the model load are not database work (a run forked from the server
    # finds them done)
    _preload(args.phase)
    from sqlalchemy.orm import Session

    from storage.repository import SqlStore
    store = SqlStore.from_url(args.db_url)
    counter = PointCounter(store.engine, kill_at)
    event.listen(Session, "after_commit", counter.after_commit)
    emit("started")
    started = time.perf_counter()
    report = run_phase(store, args.phase, args.book)
    emit("done", counts=dict(counter.counts), seconds=round(time.perf_counter() - started, 4), report=report)
    store.engine.dispose()
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"] and len(sys.argv) == 3 and sys.argv[2] in PHASES:
        sys.exit(serve(sys.argv[2]))
    sys.exit(main())
