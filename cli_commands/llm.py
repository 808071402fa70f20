"""LLM commands: ping (one short real request), models, status (endpoints, key sources, roles), prepare (the embedded
models' files, once), use (assign)."""
from __future__ import annotations

import argparse
from typing import Any

from cli_commands import CliError, add_json_flag, add_llm_flag, open_store
from core.llm import LLMError
from core.services import llm_service


def _name(args: argparse.Namespace) -> str:
    # an explicit --llm needs no database; otherwise the Settings page's stored choice may apply
    store = None if args.llm else open_store()
    return llm_service.resolve_llm_name(store, args.role, args.llm)


def cmd_ping(args: argparse.Namespace) -> dict[str, Any]:
    try:
        return llm_service.test_connection(_name(args))
    except LLMError as exc:
        raise CliError(str(exc)) from exc


def cmd_models(args: argparse.Namespace) -> list[dict[str, Any]]:
    return llm_service.list_models()


def cmd_status(args: argparse.Namespace) -> dict[str, Any]:
    return {"endpoints": llm_service.endpoints(), "roles": llm_service.effective_roles(open_store())}


def cmd_prepare(args: argparse.Namespace) -> list[dict[str, Any]]:
    try:
        return llm_service.prepare_local_models()
    except (LLMError, OSError, ValueError) as exc:
        raise CliError(f"the embedded models could not be prepared: {exc}") from exc


def cmd_use(args: argparse.Namespace) -> dict[str, Any]:
    store = open_store()
    if args.reset:
        llm_service.clear_role_assignment(store)
    elif not args.name:
        raise CliError("give PROVIDER:MODEL, or --reset")
    else:
        current = llm_service.load_role_assignment(store)
        try:
            if args.role:
                llm_service.save_role_assignment(store, current.default, {**current.roles, args.role: args.name})
            else:  # one LLM for everything: per-role choices are cleared
                llm_service.save_role_assignment(store, args.name, {})
        except LLMError as exc:
            raise CliError(str(exc)) from exc
    return {"roles": llm_service.effective_roles(store)}


def register(sub: argparse._SubParsersAction) -> None:
    group = sub.add_parser("llm", help="LLM providers: test a connection, list models, assign roles")
    llm_sub = group.add_subparsers(dest="llm_command", required=True)

    p = add_llm_flag(add_json_flag(llm_sub.add_parser("ping", help="send one short request and show the reply")))
    p.add_argument("--role", choices=llm_service.ROLES, default="answering",
                   help="whose LLM to test when --llm is not given (default: answering)")
    p.set_defaults(func=cmd_ping)

    add_json_flag(llm_sub.add_parser("models", help="providers and known models")).set_defaults(func=cmd_models)
    add_json_flag(llm_sub.add_parser("status", help="base URLs, where keys come from (never the keys), roles")
                  ).set_defaults(func=cmd_status)

    add_json_flag(llm_sub.add_parser("prepare", help="write the embedded models' files into the model cache once, "
                                     "so the app starts fast (the set-up command runs it)")).set_defaults(
        func=cmd_prepare)

    p = add_json_flag(llm_sub.add_parser("use", help="assign an LLM to every role, or to one with --role"))
    p.add_argument("name", nargs="?", metavar="PROVIDER:MODEL")
    p.add_argument("--role", choices=llm_service.ROLES, default=None)
    p.add_argument("--reset", action="store_true", help="forget the stored choice; use FABULA_LLM* again")
    p.set_defaults(func=cmd_use)
