"""Library commands: ingest, works, chapters, chapter, rename, delete, story-less housekeeping; `library ingest` for
a whole folder of books (cli_commands.library_folder)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cli_commands import CliError, add_json_flag, not_found_as_cli_error, open_store
from core.ingest import IngestError
from core.services import library

DUPLICATE_STATUS = 3  # exit status of `ingest` refusing a file already in the library


def _progress(done: int, total: int, message: str) -> None:
    if sys.stderr.isatty():
        print(f"[{done}/{total}] {message}", file=sys.stderr)


@not_found_as_cli_error
def cmd_ingest(args: argparse.Namespace) -> dict[str, Any]:
    path = Path(args.path)
    if not path.is_file():
        raise CliError(f"No such file: {args.path}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CliError(f"Cannot read {args.path}: {exc.strerror}") from exc
    store = open_store()
    try:
        work = library.import_book(store, path.name, data, title=args.title, on_progress=_progress,
                                   allow_copy=args.copy)
    except library.AlreadyInLibrary as exc:
        raise CliError(f"{exc} Open it (cli.py chapters {exc.existing.id}), or pass --copy to import another copy.",
                       status=DUPLICATE_STATUS) from exc
    except IngestError as exc:
        raise CliError(str(exc)) from exc
    chapters = store.list_chapters(work.id)
    return {"work_id": work.id, "title": work.title,
            "chapters": [{"index": c.index, "title": c.title, "words": c.word_count} for c in chapters]}


def cmd_works(args: argparse.Namespace) -> list[dict[str, Any]]:
    return [{"work_id": w.id, "title": w.title, "author": w.author, "kind": w.kind.value,
             "chapters": w.chapter_count, "words": w.word_count} for w in open_store().list_works()]


@not_found_as_cli_error
def cmd_chapters(args: argparse.Namespace) -> list[dict[str, Any]]:
    return [{"index": c.index, "title": c.title, "words": c.word_count, "source": c.source.value,
             "revision": c.revision} for c in open_store().list_chapters(args.work_id)]


@not_found_as_cli_error
def cmd_chapter(args: argparse.Namespace) -> dict[str, Any] | str:
    ch = open_store().get_chapter(args.work_id, args.index)
    if not args.json:
        return f"{ch.title}\n\n{ch.text}"
    return {"index": ch.index, "title": ch.title, "words": ch.word_count, "source": ch.source.value,
            "revision": ch.revision, "text": ch.text}


@not_found_as_cli_error
def cmd_rename(args: argparse.Namespace) -> dict[str, Any]:
    try:
        work = library.rename_work(open_store(), args.work_id, args.title)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    return {"work_id": work.id, "title": work.title}


@not_found_as_cli_error
def cmd_delete(args: argparse.Namespace) -> dict[str, Any]:
    store = open_store()
    work = store.get_work(args.work_id)
    store.delete_work(args.work_id)
    return {"deleted": work.id, "title": work.title}


def cmd_seed(args: argparse.Namespace) -> dict[str, Any]:
    """The sample book, imported once, with its passages embedded now (the set-up step of `dev.sh app`), so the
    first question about it does not wait for MiniLM to read the whole book."""
    from core.services.qa_corpus import ensure_vectors
    store = open_store()
    work = library.ensure_sample(store)
    embedded = ensure_vectors(store, work.id) if work is not None else 0
    return {"seeded": work is not None, "work_id": work.id if work else None, "embedded": embedded}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_json_flag(sub.add_parser("ingest", help="import a .txt, .md, .epub, .docx or .pdf book"))
    p.add_argument("path")
    p.add_argument("--title", default=None)
    p.add_argument("--copy", action="store_true",
                   help="import the file even when the same file is already in the library (as a second work)")
    p.set_defaults(func=cmd_ingest)

    add_json_flag(sub.add_parser("works", help="list the library")).set_defaults(func=cmd_works)

    p = add_json_flag(sub.add_parser("chapters", help="list a work's chapters"))
    p.add_argument("work_id", type=int)
    p.set_defaults(func=cmd_chapters)

    p = add_json_flag(sub.add_parser("chapter", help="print one chapter"))
    p.add_argument("work_id", type=int)
    p.add_argument("index", type=int)
    p.set_defaults(func=cmd_chapter)

    p = add_json_flag(sub.add_parser("rename", help="rename a work"))
    p.add_argument("work_id", type=int)
    p.add_argument("title")
    p.set_defaults(func=cmd_rename)

    p = add_json_flag(sub.add_parser("delete", help="delete a work and everything derived from it"))
    p.add_argument("work_id", type=int)
    p.set_defaults(func=cmd_delete)

    add_json_flag(sub.add_parser("seed-sample", help="import the bundled sample book once")).set_defaults(
        func=cmd_seed)

    from cli_commands import library_folder
    library_folder.register(sub)
