"""One exception hierarchy for every provider, so callers catch LLMError and never an SDK's own classes.

Messages name the provider and say what to check (base URL, key, model name, server running). They never contain
an API key: providers pass every message through `redact()`, which blanks any key currently configured.
"""
from __future__ import annotations

import os
import re

_KEY_ENV_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
_KEY_LIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,})")


class LLMError(Exception):
    """Base class. `provider` is e.g. "openai"; `retryable` says whether trying again later may succeed."""

    retryable = False

    def __init__(self, message: str, *, provider: str = "", secrets: tuple[str, ...] = ()) -> None:
        self.provider = provider
        super().__init__(redact(message, secrets))


class LLMConfigError(LLMError):
    """Unknown provider or model, malformed PROVIDER:MODEL, missing key or package: fix the settings."""


class LLMAuthError(LLMError):
    """The server rejected the key (401/403)."""


class LLMBadRequest(LLMError):
    """The server refused the request itself (400/404/422): usually a wrong model name or an unsupported option."""


class LLMUnavailable(LLMError):
    """The endpoint could not be reached or kept failing (refused connection, 5xx after retries)."""

    retryable = True


class LLMTimeout(LLMUnavailable):
    """No complete reply within the timeout, after the retries."""


class LLMRateLimited(LLMUnavailable):
    """429 after the retries. `retry_after` is the server's last hint in seconds, when it gave one."""

    def __init__(self, message: str, *, provider: str = "", retry_after: float | None = None,
                 secrets: tuple[str, ...] = ()) -> None:
        super().__init__(message, provider=provider, secrets=secrets)
        self.retry_after = retry_after


class LLMBadResponse(LLMError):
    """The server answered, but not with something we can read (no choices, not JSON, wrong shape)."""

    retryable = True


class LLMContextOverflow(LLMError):
    """The prompt does not fit in the model's context window."""


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with every configured API key (and anything shaped like one) replaced by '***'."""
    candidates = [s for s in secrets if s]
    candidates += [os.environ.get(v, "") for v in _KEY_ENV_VARS]
    try:  # keys from .streamlit/secrets.toml too; imported lazily to keep this module dependency-free
        from core.llm.keys import configured_keys
        candidates += configured_keys()
    except Exception:  # noqa: BLE001 - redaction must never be the thing that fails
        pass
    for secret in sorted({c for c in candidates if len(c) >= 4}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return _KEY_LIKE.sub("***", text)
