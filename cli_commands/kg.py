"""Knowledge-graph commands: build, update (one chapter), show, export, merge, split, rename, retype."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cli_commands import CliError, add_json_flag, add_llm_flag, not_found_as_cli_error, open_store
from core.kg.export import FORMATS
from core.kg.types import EXTRACTORS, NODE_TYPES
from core.services import kg_service, kg_views
from core.store import Store


def _progress(done: int, total: int, message: str) -> None:
    if sys.stderr.isatty():
        print(f"[{done}/{total}] {message}", file=sys.stderr)


def _llm_name(args: argparse.Namespace, store: Store) -> str | None:
    """The extraction model's name (the service builds the model through llm_service.build_llm)."""
    if args.extractor == "offline":
        return None
    from core.services import llm_service
    return llm_service.resolve_llm_name(store, "extraction", args.llm)


@not_found_as_cli_error
def cmd_build(args: argparse.Namespace) -> dict[str, Any]:
    from core.llm import LLMError
    store = open_store()
    from core.services import background
    from core.services.jobs import JobStopped
    try:
        name = _llm_name(args, store)
        params = {"extractor": args.extractor, "force": args.force, "llm_name": name}
        with background.claimed(store, args.work_id, "kg_build", params, on_progress=_progress) as job:
            report = kg_service.build_graph(store, args.work_id, extractor=args.extractor, llm_name=name,
                                            force=args.force, resume=not args.no_resume, n_process=args.processes,
                                            on_progress=job.on_progress, should_stop=job.should_stop)
            job.outcome = (f"{report.entities} entities, {report.edges} edges, {report.facts} facts in "
                           f"{report.seconds:.1f} s")
    except (kg_service.KgError, LLMError, background.JobRefused, JobStopped) as exc:
        raise CliError(str(exc)) from exc
    return report.as_dict()


@not_found_as_cli_error
def cmd_update(args: argparse.Namespace) -> dict[str, Any]:
    store = open_store()
    state = store.kg_state(args.work_id)
    args.extractor = args.extractor or (state.extractor if state else "offline")
    from core.llm import LLMError
    try:
        return kg_service.update_chapter_graph(store, args.work_id, args.chapter, extractor=args.extractor,
                                               llm_name=_llm_name(args, store)).as_dict()
    except (kg_service.KgError, LLMError) as exc:
        raise CliError(str(exc)) from exc


@not_found_as_cli_error
def cmd_show(args: argparse.Namespace) -> Any:
    store = open_store()
    data = kg_views.load_graph_data(store, args.work_id)
    view = kg_views.build_view(data, kg_views.ViewParams(as_of=args.as_of, top_n=None))
    if args.entity:
        entity = kg_service.find_entity(store, args.work_id, args.entity)
        node = next((n for n, d in view.full.nodes(data=True) if d["entity_id"] == entity.id), None)
        if node is None:
            raise CliError(f"'{entity.label}' does not appear until chapter {entity.first_chapter}.")
        return kg_views.node_details(view, node).__dict__
    rows = [{"id": n, "label": d["label"], "type": d["type"], "first_chapter": d["first_chapter"],
             "mentions": d["mentions"], "aliases": "; ".join(a for a in d["aliases"] if a != d["label"])}
            for n, d in view.full.nodes(data=True)]
    return sorted(rows, key=lambda r: -r["mentions"])[:args.top]


@not_found_as_cli_error
def cmd_export(args: argparse.Namespace) -> dict[str, Any]:
    payload, filename, _ = kg_views.export_work(open_store(), args.work_id, args.format, args.as_of)
    out = Path(args.out) if args.out else Path(filename)
    try:
        out.write_bytes(payload)
    except OSError as exc:
        raise CliError(f"Cannot write {out}: {exc.strerror}") from exc
    return {"path": str(out), "format": args.format, "bytes": len(payload), "as_of": args.as_of}


def _entity(e: Any) -> dict[str, Any]:
    return {"id": e.id, "label": e.label, "type": e.type, "names": e.aliases, "first_chapter": e.first_chapter,
            "mentions": e.mentions}


@not_found_as_cli_error
def cmd_merge(args: argparse.Namespace) -> dict[str, Any]:
    try:
        return _entity(kg_service.merge_entities(open_store(), args.work_id, args.entities))
    except kg_service.KgError as exc:
        raise CliError(str(exc)) from exc


@not_found_as_cli_error
def cmd_split(args: argparse.Namespace) -> dict[str, Any]:
    try:
        kept, moved = kg_service.split_entity(open_store(), args.work_id, args.entity, args.names)
    except kg_service.KgError as exc:
        raise CliError(str(exc)) from exc
    return {"kept": _entity(kept), "new": _entity(moved)}


@not_found_as_cli_error
def cmd_rename(args: argparse.Namespace) -> dict[str, Any]:
    try:
        return _entity(kg_service.rename_entity(open_store(), args.work_id, args.entity, args.label))
    except kg_service.KgError as exc:
        raise CliError(str(exc)) from exc


@not_found_as_cli_error
def cmd_retype(args: argparse.Namespace) -> dict[str, Any]:
    try:
        return _entity(kg_service.retype_entity(open_store(), args.work_id, args.entity, args.type))
    except kg_service.KgError as exc:
        raise CliError(str(exc)) from exc


def register(sub: argparse._SubParsersAction) -> None:
    group = sub.add_parser("kg", help="knowledge graph: build, show, export, merge / split / rename / retype entities")
    kg = group.add_subparsers(dest="kg_command", required=True)

    p = add_llm_flag(add_json_flag(kg.add_parser("build", help="extract the graph chapter by chapter (resumable)")))
    p.add_argument("work_id", type=int)
    p.add_argument("--extractor", choices=EXTRACTORS, default="offline")
    p.add_argument("--force", action="store_true", help="re-extract chapters that are already in the graph")
    p.add_argument("--no-resume", action="store_true", help="start over instead of resuming an unfinished build")
    p.add_argument("--processes", type=int, default=1, help="spaCy worker processes for the offline extractor")
    p.set_defaults(func=cmd_build)

    p = add_llm_flag(add_json_flag(kg.add_parser("update", help="re-extract one added or edited chapter")))
    p.add_argument("work_id", type=int)
    p.add_argument("chapter", type=int)
    p.add_argument("--extractor", choices=EXTRACTORS, default=None, help="default: the one the graph was built with")
    p.set_defaults(func=cmd_update)

    p = add_json_flag(kg.add_parser("show", help="list entities, or one entity's details"))
    p.add_argument("work_id", type=int)
    p.add_argument("--as-of", type=int, default=None, metavar="N", help="only chapters 1..N")
    p.add_argument("--entity", default=None, help="an entity id, label or name: show its details")
    p.add_argument("--top", type=int, default=30)
    p.set_defaults(func=cmd_show)

    p = add_json_flag(kg.add_parser("export", help="write the graph as JSON, GraphML, GEXF, CSV (zip) or lorebook"))
    p.add_argument("work_id", type=int)
    p.add_argument("--format", choices=list(FORMATS), default="json")
    p.add_argument("--as-of", type=int, default=None, metavar="N", help="only chapters 1..N")
    p.add_argument("--out", default=None, help="output file (default: a name from the title)")
    p.set_defaults(func=cmd_export)

    p = add_json_flag(kg.add_parser("merge", help="merge two or more entities (by id, label or name)"))
    p.add_argument("work_id", type=int)
    p.add_argument("entities", nargs="+")
    p.set_defaults(func=cmd_merge)

    p = add_json_flag(kg.add_parser("split", help="move some names out of an entity into a new one"))
    p.add_argument("work_id", type=int)
    p.add_argument("entity")
    p.add_argument("names", nargs="+")
    p.set_defaults(func=cmd_split)

    p = add_json_flag(kg.add_parser("rename", help="give an entity a new label"))
    p.add_argument("work_id", type=int)
    p.add_argument("entity")
    p.add_argument("label")
    p.set_defaults(func=cmd_rename)

    p = add_json_flag(kg.add_parser("retype", help=f"give an entity another type ({', '.join(NODE_TYPES)})"))
    p.add_argument("work_id", type=int)
    p.add_argument("entity")
    p.add_argument("type", help=", ".join(NODE_TYPES))
    p.set_defaults(func=cmd_retype)
