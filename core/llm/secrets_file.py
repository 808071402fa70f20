"""The data directory's secrets file: the API keys and endpoints typed into the Settings page.

    $FABULA_DATA_DIR/secrets.toml          (owner-only: 0600, replaced atomically on every change)
    [openai]
    api_key = "sk-..."                     # optional for an OpenAI-compatible server
    base_url = "http://gpu-box:8000/v1"    # absent: OpenAI's own endpoint
    [anthropic]
    api_key = "sk-ant-..."

A saved entry is used as a whole: its key goes only to its own base URL (core.llm.keys), so a key typed for one
server is never sent to another one named in the environment. Keys live here and nowhere else: not in the database
(the store never sees them), not in logs (nothing in this module logs a value, and `SavedEndpoint`'s repr hides the
key), not in exports (they read the store only).

Writes go to a temporary file created 0600 in the same folder, are flushed to disk, and then renamed over the file,
so a crash leaves either the old file or the new one, never half a file and never a moment with looser permissions.
Concurrent writers (two tabs, two server processes) are serialised by a lock on the data directory. A file that is
not valid TOML is never overwritten: what the user wrote by hand is not lost, the error says how to fix it.
"""
from __future__ import annotations

import json
import logging
import os
import re
import stat
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from core.config import Settings, get_settings
from core.filelock import file_lock

log = logging.getLogger(__name__)

FILE_NAME = "secrets.toml"
PROVIDERS = ("openai", "anthropic")
MAX_KEY_CHARS = 512
MAX_URL_CHARS = 500
_KEY_CHARS = re.compile(r"^[!-~]+$")  # printable ASCII without spaces: every provider's key alphabet


class SecretsFileError(ValueError):
    """The secrets file cannot be read or written; the message says what to do (never contains a key)."""


@dataclass(frozen=True)
class SavedEndpoint:
    """One provider's entry. `api_key` None: a server that wants no key; `base_url` None: the provider's own."""

    provider: str
    api_key: str | None = None
    base_url: str | None = None

    def __repr__(self) -> str:  # the key is deliberately absent
        return (f"SavedEndpoint(provider={self.provider!r}, base_url={self.base_url!r}, "
                f"api_key={'<set>' if self.api_key else None})")


def path(settings: Settings | None = None) -> Path:
    """Where the file is: the data directory, beside the database (and, like it, never in git: data/ is ignored)."""
    return (settings or get_settings()).data_dir / FILE_NAME


# -- validation ------------------------------------------------------------------------------------------------

def clean_key(text: str | None) -> str | None:
    """A typed key, stripped; None for an empty one. ValueError for one that cannot be a key (the message never
    quotes it)."""
    key = (text or "").strip()
    if not key:
        return None
    if len(key) > MAX_KEY_CHARS:
        raise ValueError(f"That key is {len(key)} characters long; API keys are at most {MAX_KEY_CHARS}.")
    if not _KEY_CHARS.match(key):
        raise ValueError("A key is one word of letters, digits and punctuation: spaces, line breaks and other "
                         "characters cannot be part of it. Copy it again from your provider's page.")
    return key


def clean_base_url(text: str | None) -> str | None:
    """A typed base URL, checked (http or https, a host, no user name or password, no query) and without its
    trailing slash; None for an empty one."""
    url = (text or "").strip()
    if not url:
        return None
    if len(url) > MAX_URL_CHARS or any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError("The base URL must be one line without spaces, e.g. http://localhost:11434/v1.")
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises for a port that is not a number in range
    except ValueError:
        raise ValueError("That base URL cannot be read; write it like http://localhost:11434/v1.") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("The base URL must start with http:// or https:// and name a host, "
                         "e.g. http://localhost:11434/v1.")
    if parts.username or parts.password:
        raise ValueError("Put the key in the key field, not in the URL.")
    if parts.query or parts.fragment:
        raise ValueError("The base URL takes no ?query or #fragment: give the address the API lives under, "
                         "e.g. http://localhost:11434/v1.")
    return url.rstrip("/")


# -- reading -----------------------------------------------------------------------------------------------------

def _read(file: Path) -> dict[str, Any]:
    """The file's tables; {} when there is none. SecretsFileError when it is unreadable or not TOML."""
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretsFileError(f"{file} cannot be read ({type(exc).__name__}); check its owner, or delete it and "
                               "save the key again.") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # the message names a line and column, never the content
        raise SecretsFileError(f"{file} is not valid TOML ({exc}); fix it by hand or delete it and save the key "
                               "again. It was left as it is.") from None


def _entry(provider: str, table: Any) -> SavedEndpoint | None:
    if not isinstance(table, dict):
        return None
    key, url = table.get("api_key"), table.get("base_url")
    key = key.strip() if isinstance(key, str) and key.strip() else None
    url = url.strip() if isinstance(url, str) and url.strip() else None
    return SavedEndpoint(provider, key, url) if key or url else None


def load(settings: Settings | None = None) -> dict[str, SavedEndpoint]:
    """Every saved entry by provider. A broken or unreadable file counts as empty here (a warning is logged, and the
    Settings page shows `problems()`): a key lookup never crashes a page or a job."""
    file = path(settings)
    try:
        data = _read(file)
    except SecretsFileError as exc:
        log.warning("%s", exc)
        return {}
    entries = {p: _entry(p, data.get(p)) for p in PROVIDERS}
    return {p: e for p, e in entries.items() if e is not None}


def saved(provider: str, settings: Settings | None = None) -> SavedEndpoint | None:
    return load(settings).get(provider)


def problems(settings: Settings | None = None) -> list[str]:
    """What is wrong with the file, for the Settings page: unreadable, not TOML, or readable by other users."""
    file = path(settings)
    try:
        _read(file)
        mode = file.stat().st_mode
    except FileNotFoundError:
        return []
    except SecretsFileError as exc:
        return [str(exc)]
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        return [f"{file} can be read by other users of this machine (mode {stat.filemode(mode)}): run "
                f"`chmod 600 {file}`, or save a key here again, which rewrites it owner-only."]
    return []


# -- writing -----------------------------------------------------------------------------------------------------

def save(provider: str, api_key: str | None, base_url: str | None = None,
         settings: Settings | None = None) -> SavedEndpoint:
    """Replace `provider`'s entry with this key and base URL (validated); the other entries stay as they were."""
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}; keys are kept for {', '.join(PROVIDERS)}")
    entry = SavedEndpoint(provider, clean_key(api_key), clean_base_url(base_url))
    if not entry.api_key and not entry.base_url:
        raise ValueError("Give a key, a base URL, or both.")
    table = {k: v for k, v in (("api_key", entry.api_key), ("base_url", entry.base_url)) if v}
    _update(path(settings), lambda data: {**data, provider: table})
    return entry


def remove(provider: str, settings: Settings | None = None) -> bool:
    """Forget `provider`'s entry (the file goes when nothing is left in it); whether there was one."""
    file = path(settings)
    found = False

    def drop(data: dict[str, Any]) -> dict[str, Any]:
        nonlocal found
        found = provider in data
        return {k: v for k, v in data.items() if k != provider}
    _update(file, drop)
    return found


def _update(file: Path, change: Any) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(file.parent):  # flock of the folder, as before
        data = change(_read(file))
        if not data:
            file.unlink(missing_ok=True)
            return
        try:  # the writer below is small: never write what would read back otherwise
            text = _dump(data)
            same = tomllib.loads(text) == data
        except (TypeError, tomllib.TOMLDecodeError):
            same = False
        if not same:
            raise SecretsFileError(f"{file} holds values Fabula cannot write back (added by hand?); edit it by "
                                   "hand instead. It was left as it is.")
        _write_atomically(file, text)


def _write_atomically(file: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=file.parent)  # created 0600
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, file)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:  # the rename itself reaches the disk
        dir_fd = os.open(file.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string for these characters
    raise TypeError(type(value).__name__)


def _dump(data: dict[str, Any]) -> str:
    """TOML for what this file holds: top-level values and one level of tables of simple values (a hand-added
    table or value is kept; anything deeper is refused rather than written wrongly)."""
    lines = ["# Written by Fabula's Settings page: API keys and endpoints. Owner-only; never commit or share it."]
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    lines += [f"{json.dumps(k)} = {_value(v)}" for k, v in data.items() if k not in tables]
    for name, table in tables.items():
        lines += ["", f"[{json.dumps(name)}]"]
        lines += [f"{json.dumps(k)} = {_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"
