"""CLI command groups. Each module defines `register(subparsers)`; GROUPS lists them in help order."""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from core.config import get_settings
from core.store import NotFound, Store


class CliError(Exception):
    """A user-facing failure: printed as one line on stderr, exit status `status`."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


_store: Store | None = None
_user: str | None = None  # --user, set by cli.main before a command runs


def act_as(user: str | None) -> None:
    """The user the commands act as when sign-in is configured (--user; FABULA_USER when None)."""
    global _user, _store
    if user != _user:  # another user: the store opened for the last one is not theirs
        _user, _store = user, None


def open_store() -> Store:
    """The Store for FABULA_DB_URL (or the default SQLite file), migrated to the newest schema. With sign-in
    configured ([auth] in the Streamlit secrets), the Store as the --user / FABULA_USER user may use it: the same
    checks as the pages (core.services.guarded_store); no user is a CliError."""
    global _store
    if _store is None:
        from core.services.guarded_store import guarded
        from storage.repository import SqlStore
        settings = get_settings()
        store: Store = SqlStore.from_url(settings.database_url)
        if settings.sign_in_configured():
            user = _user or settings.user
            if not user or not user.strip():
                raise CliError("sign-in is configured ([auth] in .streamlit/secrets.toml): say who you are with "
                               "--user EMAIL or FABULA_USER")
            try:
                store = guarded(store, user, settings.admin)
            except ValueError as exc:
                raise CliError(f"--user: {exc}") from exc
        _store = store
    return _store


def add_json_flag(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    return p


def add_llm_flag(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("--llm", metavar="PROVIDER:MODEL", default=None,
                   help="LLM to use (default: FABULA_LLM or the settings; e.g. local:smollm2, openai:gpt-4o-mini)")
    return p


def not_found_as_cli_error(fn: Callable[[argparse.Namespace], Any]) -> Callable[[argparse.Namespace], Any]:
    def wrapper(args: argparse.Namespace) -> Any:
        try:
            return fn(args)
        except NotFound as exc:
            raise CliError(str(exc)) from exc
    return wrapper


def render_text(result: Any) -> str:
    """Human-readable output for commands run without --json."""
    if isinstance(result, str):
        return result
    if isinstance(result, list) and result and isinstance(result[0], dict):
        keys = list(result[0].keys())
        lines = ["\t".join(keys)]
        lines += ["\t".join(str(r.get(k, "")) for k in keys) for r in result]
        return "\n".join(lines)
    return json.dumps(result, ensure_ascii=False, indent=2, default=str)


def _groups() -> list[Callable[[argparse._SubParsersAction], None]]:
    """Every group's register(), in help order (imported here: the groups import the helpers above)."""
    from cli_commands import companion, continuity, kg, library, llm, qa, retention, sharing, summaries, write
    return [group.register for group in (library, sharing, llm, kg, continuity, qa, summaries, write, retention,
                                         companion)]


GROUPS = _groups()
