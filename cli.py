"""Fabula's command line: every job the UI does, headless, through the same services.

Each command group lives in cli_commands/<group>.py with `register(subparsers)`; a command function takes the
parsed arguments and returns a JSON-able result (printed with --json) or raises. Errors end with a non-zero exit
status and one line on stderr.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from cli_commands import GROUPS, CliError, act_as, render_text  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cli.py", description="Fabula: long fiction with a knowledge graph.")
    parser.add_argument("--user", metavar="EMAIL", default=None,
                        help="with sign-in configured: the user to act as (default: FABULA_USER)")
    sub = parser.add_subparsers(dest="command", required=True)
    for register in GROUPS:
        register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    act_as(args.user)
    try:
        result = args.func(args)
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        print("error: interrupted; finished work was saved and the job can be resumed", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - last line of defence: one line, never a traceback dump
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"error: {message}", file=sys.stderr)
        return 1
    if result is None:
        return 0
    if getattr(args, "json", False):
        if isinstance(result, list) and getattr(args, "jsonl", False):
            for item in result:
                print(json.dumps(item, ensure_ascii=False))
        else:
            print(json.dumps(result, ensure_ascii=False, indent=None, default=str))
    else:
        print(render_text(result))
    return 0


if __name__ == "__main__":
    if hasattr(signal, "SIGPIPE"):   # "cli.py kg show 1 | head": end quietly when the reader stops, as Unix tools do
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
