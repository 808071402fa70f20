"""The reading companion (issue 33): your place in a work, and the X-Ray, recap and timelines as of it.

    cli.py position 3                          # where you are in work 3
    cli.py position 3 --set 12 [--passage 4]   # move your place (the spoiler limit of everything below)
    cli.py xray 3 --chapter 12 --json          # a JSON object per entity on chapter 12, as of your place
    cli.py xray 3 --chapter 12 --entity Jo --json
    cli.py recap 3 --from 1 --to 12 --words 300 --json   # a JSON object per sentence: sentence, chapter
    cli.py timeline 3 Jo --json                # one character's events up to your place; two names: the pair's

Without a place (never set), --chapter or --to is the limit, else the whole work. With sign-in configured the place is
the --user's own. Nothing after the limit is read: each line names the chapter it comes from.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from cli_commands import CliError, add_json_flag, not_found_as_cli_error, open_store
from core.companion.store import ReadingPosition
from core.services import companion_service as cs


def _limit_note(store: Any, work_id: int, given: int | None, what: str) -> None:
    """Say on stderr which chapter limits the output when the reader's place chose it."""
    pos = cs.get_position(store, work_id)
    if given is None and pos is not None:
        print(f"note: {what} as of your place, chapter {pos.chapter} (give a chapter to look elsewhere)",
              file=sys.stderr)
    elif given is not None and pos is not None and given > pos.chapter:
        print(f"warning: chapter {given} is past your place (chapter {pos.chapter}): this may spoil the story",
              file=sys.stderr)


@not_found_as_cli_error
def cmd_position(args: argparse.Namespace) -> dict[str, Any] | str:
    store = open_store()
    store.get_work(args.work_id)
    pos: ReadingPosition | None
    if args.set is not None:
        try:
            pos = cs.set_position(store, args.work_id, args.set, max(args.passage - 1, 0))
        except ValueError as exc:
            raise CliError(str(exc)) from exc
    else:
        pos = cs.get_position(store, args.work_id)
    if pos is None:
        return {"work": args.work_id, "chapter": None} if args.json else "No place set yet (use --set CHAPTER)."
    if args.json:
        return pos.as_json()
    return f"Chapter {pos.chapter}, passage {pos.passage + 1} (set {pos.updated_at:%Y-%m-%d %H:%M} UTC)"


@not_found_as_cli_error
def cmd_xray(args: argparse.Namespace) -> list[dict[str, Any]] | str:
    store = open_store()
    store.get_work(args.work_id)
    pos = cs.get_position(store, args.work_id)
    page = args.chapter or (pos.chapter if pos is not None else 1)
    _limit_note(store, args.work_id, args.chapter, "X-Ray")
    shown = cs.xray_cards(store, args.work_id, page, position=args.chapter, entity=args.entity)
    for note in shown.notes:
        print(f"note: {note}", file=sys.stderr)
    rows = [c.as_json() for c in shown.cards]
    if args.json:
        return rows
    return "\n".join(f"{r['name']} ({r['type']}), chapters {r['first_chapter']}-{r['last_chapter']}: "
                     + "; ".join(f"{x['with']} ({x['label']}, ch{x['chapter']})" for x in r["relationships"][:4])
                     for r in rows) or "No one known on this chapter."


@not_found_as_cli_error
def cmd_recap(args: argparse.Namespace) -> list[dict[str, Any]] | str:
    store = open_store()
    store.get_work(args.work_id)
    _limit_note(store, args.work_id, args.to, "recap")
    try:
        told = cs.recap_of(store, args.work_id, args.first, args.to, words=args.words)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    for note in told.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        return [s.as_json() for s in told.sentences]
    return "\n".join(f"[ch{s.chapter}] {s.text}" for s in told.sentences)


@not_found_as_cli_error
def cmd_timeline(args: argparse.Namespace) -> list[dict[str, Any]] | str:
    store = open_store()
    store.get_work(args.work_id)
    _limit_note(store, args.work_id, args.chapter, "timeline")
    try:
        events = cs.timeline_of(store, args.work_id, args.names, position=args.chapter)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        return [e.as_json() for e in events]
    return "\n".join(f"[ch{e.chapter}] {e.kind}: {e.text} — {e.sentence}" for e in events) or "No events."


def register(sub: argparse._SubParsersAction) -> None:
    p = add_json_flag(sub.add_parser("position", help="your place in a work (the spoiler limit of every view)"))
    p.add_argument("work_id", type=int, metavar="WORK")
    p.add_argument("--set", type=int, default=None, metavar="CHAPTER", help="move your place to this chapter")
    p.add_argument("--passage", type=int, default=1, metavar="P", help="with --set: the passage (from 1)")
    p.set_defaults(func=cmd_position)

    p = add_json_flag(sub.add_parser("xray", help="who and what is on a chapter, as of your place (one JSON object "
                                                  "an entity with --json)"))
    p.add_argument("work_id", type=int, metavar="WORK")
    p.add_argument("--chapter", type=int, default=None, metavar="N",
                   help="the chapter shown and the limit (default: your place)")
    p.add_argument("--entity", default=None, metavar="NAME", help="only the entity best matching NAME")
    p.set_defaults(func=cmd_xray, jsonl=True)

    p = add_json_flag(sub.add_parser("recap", help="what happened in chapters A..B, a cited chapter per sentence "
                                                   "(offline; one JSON object a sentence with --json)"))
    p.add_argument("work_id", type=int, metavar="WORK")
    p.add_argument("--from", dest="first", type=int, default=None, metavar="A", help="first chapter (default 1)")
    p.add_argument("--to", type=int, default=None, metavar="B", help="last chapter (default: your place, else the end)")
    p.add_argument("--words", type=int, default=cs.RECAP_WORDS, metavar="W", help="at most W words")
    p.set_defaults(func=cmd_recap, jsonl=True)

    p = add_json_flag(sub.add_parser("timeline", help="one character's events, or a pair's, up to your place (one "
                                                      "JSON object an event with --json)"))
    p.add_argument("work_id", type=int, metavar="WORK")
    p.add_argument("names", nargs="+", metavar="ENTITY", help="one name, or two for a pair")
    p.add_argument("--chapter", type=int, default=None, metavar="N", help="the limit (default: your place)")
    p.set_defaults(func=cmd_timeline, jsonl=True)
