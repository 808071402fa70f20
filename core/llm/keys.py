"""Where API keys and endpoints come from. Keys are read at the moment a provider is built and handed straight to
the SDK; nothing here logs, stores or returns a key except `api_key()`, which only providers call.

Sources, first match wins:
  1. the Settings page: the entry saved for the provider in the data directory's secrets file
     (core.llm.secrets_file), used as a whole: its key and its base URL (the provider's own endpoint when it names
     none), so a key typed for one server never goes to another one named in the environment;
  2. the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY; base URLs: FABULA_*_BASE_URL, then *_BASE_URL);
  3. `.streamlit/secrets.toml` (relative to the project root, then to the working directory) as either a top-level
     `OPENAI_API_KEY = "..."` or a table `[openai] api_key = "..."` (keys only).
The page is the user's latest word, as for the models per role; removing its entry falls back to 2 and 3.
"""
from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

from core.config import PROJECT_ROOT, Settings, get_settings
from core.llm import secrets_file

KeySource = Literal["Settings page", "environment", "secrets.toml", "not set"]
SAVED = "Settings page"  # the source of what the Settings page saved (secrets_file)

KEYED_PROVIDERS = ("openai", "anthropic")
ENV_KEY = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
ENV_BASE_URL = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
DEFAULT_BASE_URL = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


def secrets_paths() -> list[Path]:
    """Candidate secrets files, project root first (Streamlit's own lookup uses the working directory)."""
    paths = [PROJECT_ROOT / ".streamlit" / "secrets.toml"]
    try:
        cwd_file = Path.cwd() / ".streamlit" / "secrets.toml"
    except OSError:  # the working directory was removed
        return paths
    if cwd_file.resolve() != paths[0].resolve():
        paths.append(cwd_file)
    return paths


def _secrets_key(provider: str, paths: list[Path] | None = None) -> str | None:
    for path in paths if paths is not None else secrets_paths():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue  # a missing or broken secrets file means "no key there", never a crash
        value = data.get(ENV_KEY[provider])
        table = data.get(provider)
        if not value and isinstance(table, dict):
            value = table.get("api_key")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _lookup(provider: str, paths: list[Path] | None = None,
            settings: Settings | None = None) -> tuple[str | None, KeySource]:
    if provider not in ENV_KEY:
        return None, "not set"
    if (saved := secrets_file.saved(provider, settings)) is not None:  # a saved server without a key wants none
        return (saved.api_key, "Settings page") if saved.api_key else (None, "not set")
    env_value = os.environ.get(ENV_KEY[provider], "").strip()
    if env_value:
        return env_value, "environment"
    secret = _secrets_key(provider, paths)
    if secret:
        return secret, "secrets.toml"
    return None, "not set"


def key_source(provider: str, paths: list[Path] | None = None, settings: Settings | None = None) -> KeySource:
    """Where the key for `provider` comes from: "Settings page", "environment", "secrets.toml" or "not set". Never
    the key."""
    return _lookup(provider, paths, settings)[1]


def api_key(provider: str, paths: list[Path] | None = None, settings: Settings | None = None) -> str | None:
    """The key itself, for handing to an SDK client. Do not log, store or display the result."""
    return _lookup(provider, paths, settings)[0]


def configured_keys() -> list[str]:
    """Every key known from any source, the ones a saved entry overrides included (for redaction of messages only)."""
    keys = [e.api_key for e in secrets_file.load().values() if e.api_key]
    keys += [os.environ.get(ENV_KEY[p], "").strip() for p in KEYED_PROVIDERS]
    keys += [_secrets_key(p) or "" for p in KEYED_PROVIDERS]
    return list(dict.fromkeys(k for k in keys if k))


def base_url(provider: str, settings: Settings | None = None) -> tuple[str, str]:
    """(base URL, where it came from) for "openai" or "anthropic".

    What the Settings page saved comes first (with the provider's own endpoint when it saved only a key); then a
    FABULA_ setting, the app's own choice, wins over the SDK's environment variable; the provider's public endpoint
    is the fallback.
    """
    settings = settings or get_settings()
    if (saved := secrets_file.saved(provider, settings)) is not None:
        return saved.base_url or DEFAULT_BASE_URL[provider], SAVED
    configured = getattr(settings, f"{provider}_base_url", None)
    if configured:
        return configured, f"FABULA_{provider.upper()}_BASE_URL"
    env_value = os.environ.get(ENV_BASE_URL[provider], "").strip()
    if env_value:
        return env_value, ENV_BASE_URL[provider]
    return DEFAULT_BASE_URL[provider], "default"


def is_default_endpoint(provider: str, url: str) -> bool:
    return url.rstrip("/") == DEFAULT_BASE_URL[provider].rstrip("/")


def display_url(url: str) -> str:
    """A URL safe to show or put in an error message: user info and query string dropped."""
    from urllib.parse import urlsplit, urlunsplit
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid URL>"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
