"""Retention commands: per-chapter character/relationship retention of a work, and the comparison of two works."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from cli_commands import CliError, add_json_flag, not_found_as_cli_error, open_store
from core.services import retention_service as retention


def _progress(done: int, total: int, message: str) -> None:
    if sys.stderr.isatty():
        print(f"[{done}/{total}] {message}", file=sys.stderr)


def _params(args: argparse.Namespace) -> retention.RetentionParams:
    if args.window < 1:
        raise CliError("--window must be at least 1 sentence.")
    if args.min_pair_count < 1:
        raise CliError("--min-pair-count must be at least 1.")
    return retention.RetentionParams(window_sentences=args.window, verb_links=not args.no_verb_links,
                                     min_pair_count=args.min_pair_count)


@not_found_as_cli_error
def cmd_retention(args: argparse.Namespace) -> Any:
    result = retention.analyse_work(open_store(), args.work_id, _params(args), on_progress=_progress)
    if args.csv:
        return retention.retention_csv(result).rstrip("\n")
    if args.dropped is not None:
        kind = "relationships" if args.relationships else "characters"
        return [{"thread": d.thread if isinstance(d.thread, str) else " & ".join(d.thread),
                 "first_seen": d.first_seen, "last_seen": d.last_seen, "absent_for": d.absent_for,
                 "returned_at": d.returned_at, "chapters_present": d.chapters_present, "mentions": d.mentions}
                for d in result.dropped(args.dropped, kind)]
    if args.json:
        return result.to_json()
    return [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items() if k != "characters_names"}
            for row in retention.table_rows(result)]


@not_found_as_cli_error
def cmd_compare(args: argparse.Namespace) -> Any:
    if set(args.a) & set(args.b):
        raise CliError("A work cannot be in both groups.")
    comparison = retention.compare_works(open_store(), args.a, args.b, _params(args), on_progress=_progress)
    if args.csv:
        return comparison.csv().rstrip("\n")
    if args.json:
        return comparison.to_json()
    return [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}
            for kind in retention.KINDS for row in comparison.table(kind)]


def _add_params(p: argparse.ArgumentParser) -> None:
    add_json_flag(p)
    p.add_argument("--csv", action="store_true", help="CSV on stdout")
    p.add_argument("--window", type=int, default=retention.RetentionParams.window_sentences,
                   help="co-occurrence window in sentences (1 = same sentence)")
    p.add_argument("--min-pair-count", type=int, default=1, help="drop relationships seen fewer times per chapter")
    p.add_argument("--no-verb-links", action="store_true", help="relationships from co-occurrence only")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("retention", help="character and relationship retention per chapter (Remember Me metrics)")
    p.add_argument("work_id", type=int)
    p.add_argument("--dropped", type=int, metavar="K", default=None,
                   help="list threads absent for more than K chapters after being prominent")
    p.add_argument("--relationships", action="store_true", help="with --dropped: relationships, not characters")
    _add_params(p)
    p.set_defaults(func=cmd_retention)

    p = sub.add_parser("retention-compare", help="Welch t-tests and Cohen's d between two works (or groups)")
    p.add_argument("a", type=int, nargs="+", metavar="WORK_A", help="work id(s) of group A")
    p.add_argument("--vs", dest="b", type=int, nargs="+", metavar="WORK_B", default=None,
                   help="work id(s) of group B (with several A works)")
    _add_params(p)
    p.set_defaults(func=_compare_entry)


def _compare_entry(args: argparse.Namespace) -> Any:
    """`retention-compare A B` compares two works; `retention-compare A1 A2 --vs B1 B2` compares two groups."""
    if args.b is None:
        if len(args.a) != 2:
            raise CliError("Give two work ids (WORK_A WORK_B), or groups with --vs.")
        args.a, args.b = [args.a[0]], [args.a[1]]
    return cmd_compare(args)
