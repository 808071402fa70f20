"""Anthropic messages through the official SDK. ANTHROPIC_BASE_URL (or FABULA_ANTHROPIC_BASE_URL) is honoured, so
a proxy or a compatible server works by URL; the key comes from the Settings page, ANTHROPIC_API_KEY or
.streamlit/secrets.toml.

System messages become the `system` parameter; consecutive turns of the same role are merged, because the
messages API wants user and assistant turns to alternate. temperature, top_p and seed are not sent: the SDK (2.x)
no longer accepts them.
"""
from __future__ import annotations

from collections.abc import Generator
from typing import Any

from core.config import Settings, get_settings
from core.llm.base import (CHAT_API, Completion, FinishReason, GenerationOptions, MessagesIn, Stopwatch, TextStream,
                           normalize_messages)
from core.llm.errors import LLMConfigError
from core.llm.keys import api_key, base_url, is_default_endpoint
from core.llm.remote import Endpoint, bad_reply, estimate_tokens, import_sdk, sdk_failure, usage_number

PLACEHOLDER_KEY = "not-needed"
CONTEXT_WINDOW = 200_000  # every current Claude model


API = "the Anthropic messages API"  # what a base URL must point at (said in errors)


class AnthropicLLM:
    """Claude through the Anthropic messages API (or a server speaking it at another base URL); no sampling
    options (anthropic 2.x takes none), stop sequences and streaming."""

    provider = "anthropic"
    abilities = CHAT_API

    def __init__(self, model: str, *, base_url_override: str | None = None, key: str | None = None,
                 timeout: float | None = None, max_retries: int | None = None,
                 settings: Settings | None = None) -> None:
        anthropic = import_sdk("anthropic")
        settings = settings or get_settings()
        url = base_url_override or base_url("anthropic", settings)[0]
        secret = key or api_key("anthropic", settings=settings)
        if not secret and is_default_endpoint("anthropic", url):
            raise LLMConfigError("anthropic: no API key; type one on the Settings page, or set ANTHROPIC_API_KEY in "
                                 "the environment or .streamlit/secrets.toml", provider="anthropic")
        self._secret = secret
        self.model_name = model
        self.name = f"anthropic:{model}"
        self.context_window = CONTEXT_WINDOW
        self.endpoint = Endpoint("anthropic", model, url, timeout or settings.llm_timeout_s,
                                 settings.llm_max_retries if max_retries is None else max_retries)
        self._anthropic = anthropic
        # An explicit api_key also stops the SDK from looking for profiles and federation settings on disk.
        self._client = anthropic.Anthropic(base_url=url, api_key=secret or PLACEHOLDER_KEY,
                                           timeout=self.endpoint.timeout, max_retries=self.endpoint.max_retries)

    def __repr__(self) -> str:
        return f"AnthropicLLM(name={self.name!r}, base_url={self.endpoint.where!r})"

    def count_tokens(self, text: str) -> int:
        """An estimate (the exact count would need a request to the API)."""
        return estimate_tokens(text)

    def _params(self, messages: MessagesIn, opts: GenerationOptions) -> dict[str, Any]:
        msgs = normalize_messages(messages)
        system = "\n\n".join(m.content for m in msgs if m.role == "system")
        turns: list[dict[str, str]] = []
        for m in msgs:
            if m.role == "system":
                continue
            if turns and turns[-1]["role"] == m.role:
                turns[-1]["content"] += "\n\n" + m.content
            else:
                turns.append({"role": m.role, "content": m.content})
        if turns[0]["role"] != "user":
            turns.insert(0, {"role": "user", "content": "(continue)"})
        # anthropic 2.x no longer takes temperature / top_p / seed (current models choose their own sampling).
        params: dict[str, Any] = {"model": self.model_name, "max_tokens": opts.max_tokens, "messages": turns}
        if system:
            params["system"] = system
        if opts.stop:
            params["stop_sequences"] = list(opts.stop)
        if opts.timeout is not None:
            params["timeout"] = opts.timeout
        return params

    def complete(self, messages: MessagesIn, options: GenerationOptions | None = None,
                 **overrides: Any) -> Completion:
        params = self._params(messages, GenerationOptions.build(options, **overrides))
        watch = Stopwatch()
        try:
            resp = self._client.messages.create(**params)
        except (self._anthropic.AnthropicError, ValueError) as exc:
            raise sdk_failure(exc, self.endpoint, self._secret, self._anthropic.AnthropicError, API) from exc
        blocks = getattr(resp, "content", None)
        if not isinstance(blocks, list):
            raise bad_reply(self.endpoint, "no content", API)
        texts = [b.text for b in blocks
                 if getattr(b, "type", None) == "text" and isinstance(getattr(b, "text", None), str)]
        if not texts and getattr(resp, "stop_reason", None) != "max_tokens":
            raise bad_reply(self.endpoint, "no text content", API)
        text = "".join(texts)
        usage = getattr(resp, "usage", None)
        return Completion(text, _or(usage_number(usage, "input_tokens"), estimate_tokens(_prompt_text(params))),
                          _or(usage_number(usage, "output_tokens"), estimate_tokens(text)), watch.elapsed(),
                          _finish(getattr(resp, "stop_reason", None)), self.model_name)

    def stream(self, messages: MessagesIn, options: GenerationOptions | None = None,
               **overrides: Any) -> TextStream:
        params = self._params(messages, GenerationOptions.build(options, **overrides))
        return TextStream(self._stream(params), self.name)

    def _stream(self, params: dict[str, Any]) -> Generator[str, None, Completion]:
        watch = Stopwatch()
        parts: list[str] = []
        input_tokens = output_tokens = stop_reason = None
        seen_start = False
        try:
            for event in self._client.messages.create(**params, stream=True):
                kind = getattr(event, "type", None)
                if kind == "message_start":
                    seen_start = True
                    input_tokens = usage_number(getattr(getattr(event, "message", None), "usage", None),
                                                "input_tokens")
                elif kind == "content_block_delta":
                    piece = getattr(getattr(event, "delta", None), "text", None)
                    if isinstance(piece, str) and piece:
                        parts.append(piece)
                        yield piece
                elif kind == "message_delta":
                    stop_reason = getattr(getattr(event, "delta", None), "stop_reason", None) or stop_reason
                    output_tokens = usage_number(getattr(event, "usage", None), "output_tokens") or output_tokens
        except (self._anthropic.AnthropicError, ValueError) as exc:
            raise sdk_failure(exc, self.endpoint, self._secret, self._anthropic.AnthropicError, API) from exc
        if not seen_start:
            raise bad_reply(self.endpoint, "an event stream without message_start", API)
        text = "".join(parts)
        return Completion(text, _or(input_tokens, estimate_tokens(_prompt_text(params))),
                          _or(output_tokens, estimate_tokens(text)), watch.elapsed(), _finish(stop_reason),
                          self.model_name)


def _prompt_text(params: dict[str, Any]) -> str:
    return "\n".join([params.get("system", "")] + [m["content"] for m in params["messages"]])


def _or(value: int | None, fallback: int) -> int:
    return value if value is not None else fallback


def _finish(reason: object) -> FinishReason:
    return "length" if reason == "max_tokens" else "stop"
