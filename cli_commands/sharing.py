"""Read-only shares, with sign-in configured (README "Sign-in"): the owner (--user) shares a work with another user,
revokes a share, or lists them; the same use cases as the Library page's "Share read-only with…"."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from cli_commands import CliError, add_json_flag, not_found_as_cli_error, open_store
from core.services import guarded_store


def _shared_with(work_id: int, use_case: Callable[[], list[str]]) -> dict[str, Any]:
    try:
        return {"work_id": work_id, "shared_with": use_case()}
    except ValueError as exc:  # a bad address, oneself, a share that is not there, or no sign-in configured
        raise CliError(str(exc)) from exc


@not_found_as_cli_error
def cmd_share(args: argparse.Namespace) -> dict[str, Any]:
    return _shared_with(args.work_id, lambda: guarded_store.share(open_store(), args.work_id, args.reader))


@not_found_as_cli_error
def cmd_unshare(args: argparse.Namespace) -> dict[str, Any]:
    return _shared_with(args.work_id, lambda: guarded_store.unshare(open_store(), args.work_id, args.reader))


@not_found_as_cli_error
def cmd_shares(args: argparse.Namespace) -> dict[str, Any]:
    return _shared_with(args.work_id, lambda: guarded_store.shares(open_store(), args.work_id))


def register(sub: argparse._SubParsersAction) -> None:
    p = add_json_flag(sub.add_parser("share", help="share a work read-only with another user (sign-in only)"))
    p.add_argument("work_id", type=int)
    p.add_argument("reader", metavar="EMAIL", help="the other user's email address (or sign-in subject)")
    p.set_defaults(func=cmd_share)
    p = add_json_flag(sub.add_parser("unshare", help="revoke a read-only share (sign-in only)"))
    p.add_argument("work_id", type=int)
    p.add_argument("reader", metavar="EMAIL")
    p.set_defaults(func=cmd_unshare)
    p = add_json_flag(sub.add_parser("shares", help="who a work is shared with (sign-in only)"))
    p.add_argument("work_id", type=int)
    p.set_defaults(func=cmd_shares)
