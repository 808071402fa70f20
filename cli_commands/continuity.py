"""Continuity: the flags of a work (a later sentence that contradicts an earlier one), one JSON object a line.

    cli.py continuity 3 --json                 # every flag not marked intended
    cli.py continuity 3 --chapter 12 --json    # the flags whose new sentence is in chapter 12
    cli.py continuity 3 --recheck              # check again from the stored states first (no parse)
    cli.py continuity 3 --read 12 --estimate   # what having chapter 12 read by the extraction model would cost
    cli.py continuity 3 --read 12 [--llm openai:gpt-4o-mini] --json   # have it read: the findings found in the book

The flags come with the offline graph build (`cli.py kg build`); chapters whose states are missing are named on
stderr. The exit status is 0 with or without flags.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from cli_commands import add_json_flag, not_found_as_cli_error, open_store
from core.services import continuity_reading, continuity_service
from core.wording import counted


@not_found_as_cli_error
def cmd_continuity(args: argparse.Namespace) -> list[dict[str, Any]] | str:
    store = open_store()
    store.get_work(args.work_id)
    if args.read is not None:
        return _read(store, args)
    if args.recheck:
        continuity_service.check_work(store, args.work_id)
    status = continuity_service.status(store, args.work_id)
    if status.stale:
        shown = ", ".join(str(i) for i in status.stale[:10]) + ("…" if len(status.stale) > 10 else "")
        print(f"note: {counted(len(status.stale), 'chapter')} without current story states ({shown}); "
              f"run `cli.py kg build {args.work_id}` to read them", file=sys.stderr)
    views = continuity_service.list_flags(store, args.work_id, args.chapter, include_intended=args.include_intended)
    rows = [v.flag.as_json() | ({"intended": True} if v.intended else {}) for v in views]
    if args.json:
        return rows
    if not rows:
        return "No continuity flags. " + continuity_service.NO_FLAGS_CAVEAT
    return "\n".join(f"ch{r['chapter']} [{r['kind']}] {r['entity']} ({r['confidence']:.2f}): {r['sentence']}\n"
                     f"    contradicts ch{r['contradicts']['chapter']}: {r['contradicts']['sentence']}"
                     for r in rows)


def _read(store: Any, args: argparse.Namespace) -> list[dict[str, Any]] | str:
    """--read N: the cost first (on stderr, or alone with --estimate), then the model's findings that were found in
    the book; notes (a malformed reply, quotations not in the book, an embedded model) on stderr."""
    if not continuity_reading.can_read(store, args.llm):
        raise SystemExit(f"error: {continuity_reading.EMBEDDED_NOTE} (or pass --llm PROVIDER:MODEL)")
    try:
        plan = continuity_reading.reading_plan(store, args.work_id, args.read, args.llm)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from exc
    if args.estimate:
        return [plan.as_dict()] if args.json else (f"{plan.model}: {counted(plan.calls, 'call')}, about "
                                                   f"{plan.input_tokens:,} tokens sent, {plan.label}")
    print(f"note: {plan.model} reads chapter {args.read}: {counted(plan.calls, 'call')}, about "
          f"{plan.input_tokens:,} tokens sent, {plan.label}", file=sys.stderr)
    done = continuity_reading.read_chapter(store, args.work_id, args.read, args.llm)
    for note in done.notes:
        print(f"note: {note}", file=sys.stderr)
    rows = [f.as_json() for f in done.flags]
    if args.json:
        return rows
    if not rows:
        return f"{done.llm} found no contradiction in chapter {args.read} (a second reader, not a proof)."
    return "\n".join(f"ch{r['chapter']} [{r['kind']}] {r['entity']}: {r['sentence']}\n"
                     f"    contradicts ch{r['contradicts']['chapter']}: {r['contradicts']['sentence']}\n"
                     f"    {r['detail']}" for r in rows)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_json_flag(sub.add_parser("continuity", help="continuity flags: later sentences that contradict earlier "
                                                        "ones (one JSON object a line with --json)"))
    p.add_argument("work_id", type=int, metavar="WORK")
    p.add_argument("--chapter", type=int, default=None, metavar="N", help="only flags whose sentence is in chapter N")
    p.add_argument("--include-intended", action="store_true", help="also the flags marked intended")
    p.add_argument("--recheck", action="store_true", help="check again from the stored states before listing")
    p.add_argument("--read", type=int, default=None, metavar="N",
                   help="have chapter N read for contradictions by the extraction model (a capable one, not embedded)")
    p.add_argument("--llm", default=None, metavar="PROVIDER:MODEL", help="with --read: the model that reads")
    p.add_argument("--estimate", action="store_true", help="with --read: print the cost only, send nothing")
    p.set_defaults(func=cmd_continuity, jsonl=True)
