"""Whole libraries: import every book under a folder, each with its offline graph if asked, one book after another
(here) or one Ray task per book (core.services.library_ray). Both engines run `ingest_book` on each book, so a
book comes out of either the same.

    plan = plan_folder(store, Path("books"))   # the books to import; duplicates and other files set aside, said why
    for result in run_sequential(store, plan.books, graph=True): print(result.line())

A book's import is one transaction (library.import_book): a crash leaves the whole book or none of it. Its graph is
built under the work's claim (core.tasks, as `cli.py kg build` takes it) and commits chapter by chapter, so a build
that died midway resumes when run again and ends with the graph an uninterrupted build gives (kg_service). A book
found stored when `ingest_book` runs (stored after the plan: an earlier attempt of the same task that died after
its import committed, or another import meanwhile) is not imported twice: its graph is built or finished.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.ingest import IngestError
from core.services import background, kg_service, library
from core.services.jobs import error_text
from core.store import Store
from core.wording import counted

RETRY_CLAIM_S = background.STALE_AFTER.total_seconds() + 2 * background.HEARTBEAT_S


@dataclass(frozen=True)
class BookFile:
    """A file to import: `name` is its path under the folder (what the lines show), `digest` its SHA-256."""

    name: str
    path: str
    digest: str
    size: int

    def read(self) -> bytes:
        return Path(self.path).read_bytes()


@dataclass
class BookResult:
    """One file's outcome: `status` is imported, duplicate, failed or skipped (not a book format)."""

    file: str
    status: str
    title: str = ""
    work_id: int | None = None
    chapters: int = 0
    words: int = 0
    entities: int | None = None      # None: no graph was asked for (or the book failed)
    triples: int | None = None       # graph edges and facts
    seconds: float = 0.0
    message: str = ""
    found_stored: bool = False       # the book was stored after the plan (an earlier attempt): not imported again
    graph_resumed: bool = False      # its graph build continued an unfinished one
    pid: int | None = None           # the process that ran it

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        if self.status != "imported":
            return f"{self.status}: {self.file}: {self.message}"
        graph = "" if self.entities is None else f", {self.entities:,} entities, {self.triples:,} triples"
        note = f" ({self.message})" if self.message else ""
        return (f"imported: {self.file}: “{self.title}” (work {self.work_id}), "
                f"{counted(self.chapters, 'chapter')}{graph}, "
                f"{self.seconds:.1f} s{note}")


@dataclass
class Plan:
    books: list[BookFile] = field(default_factory=list)
    set_aside: list[BookResult] = field(default_factory=list)   # duplicates, unreadable files, other formats


@dataclass(frozen=True)
class BookEvent:
    """Progress from inside a book's run: `stage` is started, import, graph or done; `pid` the process running it."""

    file: str
    pid: int
    stage: str
    done: int = 0
    total: int = 0
    message: str = ""


EventFn = Callable[[BookEvent], None]


def plan_folder(store: Store, folder: Path) -> Plan:
    """Every file under `folder` (hidden ones aside) in path order: the books to import, and the rest with the
    reason: another format, unreadable, already in the library (by content), or the same file twice in the folder."""
    if not folder.is_dir():
        raise IngestError(f"No such folder: {folder}")
    plan, seen = Plan(), dict[str, str]()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in Path(name).parts):
            continue
        if path.suffix.lower() not in library.ALLOWED_SUFFIXES:
            plan.set_aside.append(BookResult(name, "skipped", message="not a book format Fabula imports "
                                             f"({', '.join(library.ALLOWED_SUFFIXES)})"))
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            plan.set_aside.append(BookResult(name, "failed", message=f"cannot read it: {exc.strerror}"))
            continue
        digest = library.content_hash(data)
        if digest in seen:
            plan.set_aside.append(BookResult(name, "duplicate", message=f"the same file as {seen[digest]}; skipped"))
        elif same := store.find_works_by_content(digest):
            plan.set_aside.append(BookResult(name, "duplicate", title=same[0].title, work_id=same[0].id,
                                             message=f"already in the library as “{same[0].title}” "
                                                     f"(work {same[0].id}); skipped"))
        else:
            seen[digest] = name
            plan.books.append(BookFile(name, str(path), digest, len(data)))
    return plan


def ingest_book(store: Store, book: BookFile, data: bytes, *, graph: bool,
                on_event: EventFn | None = None) -> BookResult:
    """Import one book and, with `graph`, build its offline graph (or finish it): the one function both engines run.

    A file that cannot be imported gives a failed result (nothing stored); any other error is raised."""
    started, pid = time.perf_counter(), os.getpid()
    emit = on_event or (lambda event: None)
    emit(BookEvent(book.name, pid, "started"))
    try:
        work = library.import_book(store, Path(book.name).name, data, allow_copy=False,
                                   on_progress=lambda d, t, m: emit(BookEvent(book.name, pid, "import", d, t, m)))
        found = False
    except library.AlreadyInLibrary as exc:
        work, found = exc.existing, True
    except IngestError as exc:
        return BookResult(book.name, "failed", message=str(exc), seconds=_since(started), pid=pid)
    result = BookResult(book.name, "imported", work.title, work.id, work.chapter_count, work.word_count,
                        found_stored=found, pid=pid)
    if found:
        result.message = "already stored when its turn came (an earlier attempt, or another import); not imported again"
    if graph:
        report = _build_graph(store, work.id, lambda d, t, m: emit(BookEvent(book.name, pid, "graph", d, t, m)))
        result.entities, result.triples = report.entities, report.edges + report.facts
        result.graph_resumed = report.resumed
    result.seconds = _since(started)
    emit(BookEvent(book.name, pid, "done"))
    return result


def _build_graph(store: Store, work_id: int, on_progress: Callable[[int, int, str], None]) -> kg_service.BuildReport:
    """The offline build under the work's claim, as `cli.py kg build` runs it, resuming an unfinished build."""
    params = {"extractor": "offline", "force": False, "llm_name": None}
    with contextlib.ExitStack() as stack:
        controls = _claim(stack, store, work_id, params, on_progress)
        report = kg_service.build_graph(store, work_id, extractor="offline", resume=True,
                                        on_progress=controls.on_progress, should_stop=controls.should_stop)
        controls.outcome = f"{report.entities} entities, {report.edges} edges, {report.facts} facts"
        return report


def _claim(stack: contextlib.ExitStack, store: Store, work_id: int, params: dict[str, Any],
           on_progress: Callable[[int, int, str], None]) -> background.Controls:
    """The work's claim for a graph build. One still held by a worker that died on another machine frees itself when
    its heartbeat goes stale (a dead worker on this machine is seen at once): wait that long, then give up."""
    deadline = time.monotonic() + RETRY_CLAIM_S
    while True:
        try:
            return stack.enter_context(background.claimed(store, work_id, kg_service.JOB_KIND, params,
                                                          on_progress=on_progress))
        except background.JobRefused:
            if time.monotonic() > deadline:
                raise
            time.sleep(1.0)


def run_sequential(store: Store, books: Sequence[BookFile], *, graph: bool,
                   on_event: EventFn | None = None) -> Iterator[BookResult]:
    """Each book in turn in this process; a result as each ends (a file that cannot be read gives a failed one)."""
    for book in books:
        try:
            data = book.read()
        except OSError as exc:
            yield BookResult(book.name, "failed", message=f"cannot read it: {exc.strerror}")
            continue
        try:
            yield ingest_book(store, book, data, graph=graph, on_event=on_event)
        except Exception as exc:  # noqa: BLE001 - one book's failure is its result; the others go on
            yield BookResult(book.name, "failed", message=error_text(exc), pid=os.getpid())


def summary(results: Iterable[BookResult], seconds: float, engine: str) -> dict[str, Any]:
    results = list(results)
    count = {s: sum(1 for r in results if r.status == s) for s in ("imported", "duplicate", "failed", "skipped")}
    return {"engine": engine, "files": len(results), **count, "seconds": round(seconds, 2),
            "chapters": sum(r.chapters for r in results if r.status == "imported"),
            "entities": sum(r.entities or 0 for r in results if r.status == "imported"),
            "triples": sum(r.triples or 0 for r in results if r.status == "imported")}


def fingerprint(store: Store, work_id: int) -> dict[str, Any]:
    """What a stored book is, without database ids: its chapters, a hash of its sorted passages, and hashes of its
    graph's sorted entities (names, type, first chapter, mentions) and triples. Equal for equal books on any store."""
    chunks = sorted((c.chapter_index, c.index, c.text) for c in store.list_chunks(work_id))
    entities = sorted((e.label, e.type, sorted(e.aliases), e.first_chapter, e.mentions)
                      for e in store.kg_entities(work_id))
    triples = sorted((t.chapter_index, t.chunk_index, t.subject, t.relation, t.object, t.sentence,
                      t.subject_name or "", t.object_name or "") for t in store.kg_triples(work_id))
    return {"chapters": len(store.list_chapters(work_id)), "passages": len(chunks), "passages_sha": _sha(chunks),
            "entities": len(entities), "entities_sha": _sha(entities), "triples": len(triples),
            "triples_sha": _sha(triples)}


def _sha(rows: list[Any]) -> str:
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()[:16]


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 2)
