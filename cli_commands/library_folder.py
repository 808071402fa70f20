"""`library ingest DIR [--graph] [--engine sequential|ray]`: import every book under a folder, with its offline
graph if asked, one book after another or one Ray task per book (core.services.library_ingest, library_ray).

A line per file as it ends (imported with chapters, entities, triples and seconds; duplicate; failed with why;
skipped), then a summary; with --json the lines go to stderr and one JSON object (summary and books) to stdout.
Files that could not be imported end the command with status 1, after every other book was imported.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path
from typing import Any

from cli_commands import CliError, add_json_flag, open_store
from core.config import get_settings
from core.services import library_ingest
from core.services.library_ingest import BookEvent, BookResult


def _live(event: BookEvent) -> None:
    """A book's progress on a terminal (a graph build of a long book takes a while)."""
    if event.stage == "graph" and event.total:
        print(f"  {event.file}: graph {event.done}/{event.total} (pid {event.pid})", file=sys.stderr, flush=True)


def cmd_library_ingest(args: argparse.Namespace) -> None:
    folder = Path(args.folder)
    if not folder.is_dir():
        raise CliError(f"No such folder: {args.folder}")
    store = open_store()
    plan = library_ingest.plan_folder(store, folder)
    total = len(plan.books) + len(plan.set_aside)
    if not total:
        raise CliError(f"Nothing to import: no files under {args.folder}.")
    out = sys.stderr if args.json else sys.stdout
    results: list[BookResult] = []

    def show(result: BookResult) -> None:
        results.append(result)
        print(f"[{len(results)}/{total}] {result.line()}", file=out, flush=True)

    for result in plan.set_aside:
        show(result)
    started = time.perf_counter()
    engine = args.engine
    live = _live if sys.stderr.isatty() else None   # no progress stream from the workers when nobody watches
    if args.engine == "ray":
        from core.services.library_ray import ray_cluster, run_ray
        from storage.repository import SqlStore
        with ray_cluster(args.cpus) as cpus:
            engine = f"ray ({cpus} CPUs)"
            for result in run_ray(SqlStore.from_url, get_settings().database_url, plan.books, graph=args.graph,
                                  scope=_scope(store), on_event=live):
                show(result)
    else:
        for result in library_ingest.run_sequential(store, plan.books, graph=args.graph, on_event=live):
            show(result)
    summary = library_ingest.summary(results, time.perf_counter() - started, engine)
    if args.json:
        print(json.dumps({"summary": summary, "books": [r.as_dict() for r in results]}, ensure_ascii=False))
    else:
        print(_summary_line(summary, args.graph))
    if summary["failed"]:
        raise CliError(f"{summary['failed']} of {total} files could not be imported (see above); the others were.")


def _scope(store: Any) -> Any:
    """With sign-in, the workers' stores act as the user this command acts as (open_store's guarded store)."""
    from core.services.guarded_store import GuardedStore, guarded
    if not isinstance(store, GuardedStore):
        return None
    return functools.partial(guarded, user=store.user, legacy_owner=store.legacy_owner)


def _summary_line(s: dict[str, Any], graph: bool) -> str:
    graphs = f", {s['entities']:,} entities, {s['triples']:,} triples" if graph else ""
    return (f"{s['files']} files: {s['imported']} imported ({s['chapters']:,} chapters{graphs}), "
            f"{s['duplicate']} duplicates, {s['failed']} failed, {s['skipped']} skipped in {s['seconds']:.1f} s "
            f"({s['engine']})")


def register(sub: argparse._SubParsersAction) -> None:
    group = sub.add_parser("library", help="whole libraries: import every book under a folder")
    library = group.add_subparsers(dest="library_command", required=True)
    p = add_json_flag(library.add_parser(
        "ingest", help="import every .txt, .md, .epub, .docx and .pdf file under a folder (duplicates skipped)"))
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--graph", action="store_true", help="build each book's offline knowledge graph too")
    p.add_argument("--engine", choices=("sequential", "ray"), default="sequential",
                   help="one book after another (default), or one Ray task per book: a local Ray cluster, or the "
                        "cluster RAY_ADDRESS names")
    p.add_argument("--cpus", type=int, default=None,
                   help="CPUs of the local Ray cluster (default: all of this machine's; ignored with RAY_ADDRESS)")
    p.set_defaults(func=cmd_library_ingest)
