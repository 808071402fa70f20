"""What the OpenAI and Anthropic providers share: turning SDK failures into LLMError messages that say what to
check, and reading usage from response objects that may be missing pieces.

Both SDKs retry 408/409/429/5xx, timeouts and refused connections themselves (`max_retries`, exponential backoff,
Retry-After honoured up to a limit); what reaches `translate_error` has already used up those retries.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from core.llm.errors import (LLMAuthError, LLMBadRequest, LLMBadResponse, LLMConfigError, LLMError, LLMRateLimited,
                             LLMTimeout, LLMUnavailable)
from core.llm.keys import ENV_KEY, SAVED, display_url, key_source


@dataclass(frozen=True)
class Endpoint:
    """Where a remote provider sends requests; safe to show (no key)."""

    provider: str
    model: str
    base_url: str
    timeout: float
    max_retries: int

    @property
    def where(self) -> str:
        return display_url(self.base_url)


def translate_error(exc: BaseException, ep: Endpoint, secret: str | None) -> LLMError:
    """An SDK exception (openai.* or anthropic.*, matched by class name so both SDKs share this) as an LLMError."""
    secrets = (secret,) if secret else ()
    cls = type(exc).__name__
    attempts = f"{ep.max_retries + 1} attempt{'s' if ep.max_retries else ''}"
    status = getattr(exc, "status_code", None)
    if cls == "APITimeoutError":
        return LLMTimeout(f"{ep.provider}: no reply from {ep.where} within {ep.timeout:g} s ({attempts}); check that "
                          "the server is running and not overloaded, or raise FABULA_LLM_TIMEOUT_S",
                          provider=ep.provider, secrets=secrets)
    if cls == "APIConnectionError":
        return LLMUnavailable(f"{ep.provider}: cannot connect to {ep.where} ({attempts}); check the base URL and that "
                              "the server is running", provider=ep.provider, secrets=secrets)
    if cls == "APIResponseValidationError":
        return LLMBadResponse(f"{ep.provider}: {ep.where} sent a reply that is not a valid {ep.provider} response; "
                              "check that the base URL points at an API of that kind", provider=ep.provider,
                              secrets=secrets)
    if status is None:
        return LLMError(f"{ep.provider}: request to {ep.where} failed: {type(exc).__name__}: {exc}",
                        provider=ep.provider, secrets=secrets)
    if status in (401, 403):
        return LLMAuthError(f"{ep.provider}: {ep.where} rejected the API key (HTTP {status}); check "
                            f"{_key_hint(ep.provider)} and that it may use model {ep.model!r}",
                            provider=ep.provider, secrets=secrets)
    if status == 429:
        return LLMRateLimited(f"{ep.provider}: rate limited by {ep.where} (HTTP 429, {attempts}); wait and resume the "
                              "job, or lower the request rate / check the account's quota",
                              provider=ep.provider, retry_after=_retry_after(exc), secrets=secrets)
    if status >= 500:
        return LLMUnavailable(f"{ep.provider}: server error HTTP {status} from {ep.where} ({attempts}); the service "
                              "may be down or the model failed to load there; try again later",
                              provider=ep.provider, secrets=secrets)
    detail = _server_message(exc)
    if status == 404:
        return LLMBadRequest(f"{ep.provider}: {ep.where} does not know model {ep.model!r} or the path (HTTP 404); "
                             f"check the model name and the base URL{detail}", provider=ep.provider, secrets=secrets)
    return LLMBadRequest(f"{ep.provider}: {ep.where} refused the request (HTTP {status}){detail}; check the model "
                         "name and the options", provider=ep.provider, secrets=secrets)


def import_sdk(module: str) -> Any:
    """A provider's SDK module (its provider has the same name), or a configuration error saying it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise LLMConfigError(f"{module}: the {module} package is not installed", provider=module) from exc


def sdk_failure(exc: BaseException, ep: Endpoint, secret: str | None, sdk_error: type[BaseException],
                api: str) -> LLMError:
    """What to raise for an exception out of a provider SDK's call: the SDK's own errors translated; anything else
    (a reply the SDK could not read: the base URL points at something else) said plainly, naming the `api` it
    should point at."""
    if isinstance(exc, sdk_error):
        return translate_error(exc, ep, secret)
    return LLMBadResponse(f"{ep.provider}: unreadable reply from {ep.where} ({type(exc).__name__}); check that the "
                          f"base URL points at {api}", provider=ep.provider, secrets=(secret or "",))


def bad_reply(ep: Endpoint, what: str, api: str) -> LLMBadResponse:
    """A reply the SDK read but that lacks `what` the request needs."""
    return LLMBadResponse(f"{ep.provider}: the reply from {ep.where} has {what}; check that the base URL points at "
                          f"{api}", provider=ep.provider)


def _key_hint(provider: str) -> str:
    """Where the key that was sent came from, for a 401/403 message."""
    if provider not in ENV_KEY:  # a local server's provider (ollama, lmstudio): Fabula sends it no key
        return "the server's own access settings (Fabula sends it no key)"
    source = key_source(provider)
    return "the key saved on the Settings page" if source == SAVED else f"{ENV_KEY[provider]} (currently: {source})"


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _server_message(exc: BaseException) -> str:
    """The server's own error message, shortened (it is redacted by LLMError like everything else)."""
    body = getattr(exc, "body", None)
    message = None
    if isinstance(body, dict):
        err = body.get("error", body)
        message = err.get("message") if isinstance(err, dict) else err
    if not message:
        return ""
    text = " ".join(str(message).split())
    return f": {text[:200]}"


def usage_number(obj: Any, *names: str) -> int | None:
    """The first of `names` on `obj` that is a non-negative int (servers differ, and some send nothing)."""
    for name in names:
        value = getattr(obj, name, None) if obj is not None else None
        if isinstance(value, int) and value >= 0:
            return value
    return None


def estimate_tokens(text: str) -> int:
    """Rough token count (about 4 characters a token for English) where no tokenizer is available."""
    return max(1, round(len(text) / 4)) if text else 0
