"""OpenAI chat completions through the official SDK, and so any OpenAI-compatible server (Ollama, vLLM, llama.cpp
server, LM Studio) by base URL: `FABULA_OPENAI_BASE_URL` or `OPENAI_BASE_URL`, e.g. http://localhost:11434/v1.

A custom base URL needs no key (a placeholder is sent when none is set); the public endpoint does.
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

PLACEHOLDER_KEY = "not-needed"  # OpenAI-compatible local servers ignore the key, but the SDK insists on one
DEFAULT_CONTEXT = 8192  # unknown model on a custom server: a conservative guess
CONTEXT_WINDOWS = {"gpt-4o": 128_000, "gpt-4.1": 1_047_576, "gpt-5": 400_000, "o3": 200_000, "o4": 200_000,
                   "gpt-4-turbo": 128_000, "gpt-3.5-turbo": 16_385}
REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")  # these refuse temperature/top_p other than the default


def context_window_for(model: str) -> int:
    for prefix, size in sorted(CONTEXT_WINDOWS.items(), key=lambda kv: -len(kv[0])):
        if model.startswith(prefix):
            return size
    return DEFAULT_CONTEXT


API = "an OpenAI-compatible chat-completions API"  # what a base URL must point at (said in errors)


class OpenAILLM:
    """The OpenAI chat-completions API, or any server that speaks it (Ollama, LM Studio, vLLM...)."""

    provider = "openai"
    abilities = CHAT_API

    def __init__(self, model: str, *, base_url_override: str | None = None, key: str | None = None,
                 timeout: float | None = None, max_retries: int | None = None,
                 settings: Settings | None = None, provider_name: str = "openai",
                 context_window: int | None = None, configured_key: bool = True) -> None:
        """`provider_name` other than "openai" (core.llm.local_servers: "ollama", "lmstudio") names a local server's
        provider: its requests carry only the `key` given here, never the OpenAI key. `configured_key=False` does the
        same for "openai" (Settings tries a server typed in the page with the key typed beside it, or none)."""
        openai = import_sdk("openai")
        settings = settings or get_settings()
        self.provider = provider_name
        url = base_url_override or base_url("openai", settings)[0]
        self._official = provider_name == "openai" and is_default_endpoint("openai", url)
        secret = key or (api_key("openai", settings=settings) if provider_name == "openai" and configured_key
                         else None)
        if not secret and self._official:
            raise LLMConfigError("openai: no API key; type one on the Settings page, set OPENAI_API_KEY in the "
                                 "environment or .streamlit/secrets.toml, or point FABULA_OPENAI_BASE_URL / "
                                 "OPENAI_BASE_URL at an OpenAI-compatible server", provider="openai")
        self._secret = secret
        self.model_name = model
        self.name = f"{provider_name}:{model}"
        self.context_window = context_window or context_window_for(model)
        self.endpoint = Endpoint(provider_name, model, url, timeout or settings.llm_timeout_s,
                                 settings.llm_max_retries if max_retries is None else max_retries)
        self._openai = openai
        self._client = openai.OpenAI(base_url=url, api_key=secret or PLACEHOLDER_KEY, timeout=self.endpoint.timeout,
                                     max_retries=self.endpoint.max_retries)

    def __repr__(self) -> str:  # the key is deliberately absent
        return f"OpenAILLM(name={self.name!r}, base_url={self.endpoint.where!r})"

    def count_tokens(self, text: str) -> int:
        """An estimate (no tokenizer is bundled for remote models)."""
        return estimate_tokens(text)

    def _params(self, messages: MessagesIn, opts: GenerationOptions) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model_name,
                                  "messages": [m.as_dict() for m in normalize_messages(messages)]}
        # The public API wants max_completion_tokens; compatible servers know max_tokens.
        params["max_completion_tokens" if self._official else "max_tokens"] = opts.max_tokens
        if not (self._official and self.model_name.startswith(REASONING_PREFIXES)):
            params["temperature"] = opts.temperature
            if opts.top_p is not None:
                params["top_p"] = opts.top_p
        if opts.stop:
            params["stop"] = list(opts.stop)
        if opts.seed is not None:
            params["seed"] = opts.seed
        if opts.timeout is not None:
            params["timeout"] = opts.timeout
        return params

    def complete(self, messages: MessagesIn, options: GenerationOptions | None = None,
                 **overrides: Any) -> Completion:
        opts = GenerationOptions.build(options, **overrides)
        params = self._params(messages, opts)
        watch = Stopwatch()
        try:
            resp = self._client.chat.completions.create(**params)
        except (self._openai.OpenAIError, ValueError) as exc:  # ValueError: a body that is not JSON
            raise sdk_failure(exc, self.endpoint, self._secret, self._openai.OpenAIError, API) from exc
        choices = getattr(resp, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise bad_reply(self.endpoint, "no choices", API)
        message = getattr(choices[0], "message", None)
        text = getattr(message, "content", None)
        refusal = getattr(message, "refusal", None)
        if text is None and refusal:
            text = refusal
        if not isinstance(text, str):
            raise bad_reply(self.endpoint, "no message content", API)
        usage = getattr(resp, "usage", None)
        prompt_text = "\n".join(m["content"] for m in params["messages"])
        return Completion(text,
                          _or(usage_number(usage, "prompt_tokens"), estimate_tokens(prompt_text)),
                          _or(usage_number(usage, "completion_tokens"), estimate_tokens(text)),
                          watch.elapsed(), _finish(getattr(choices[0], "finish_reason", None)), self.model_name)

    def stream(self, messages: MessagesIn, options: GenerationOptions | None = None,
               **overrides: Any) -> TextStream:
        opts = GenerationOptions.build(options, **overrides)
        params = self._params(messages, opts)
        params.update(stream=True, stream_options={"include_usage": True})
        return TextStream(self._stream(params), self.name)

    def _stream(self, params: dict[str, Any]) -> Generator[str, None, Completion]:
        watch = Stopwatch()
        parts: list[str] = []
        finish, usage = None, None
        try:
            chunks = self._client.chat.completions.create(**params)
            for chunk in chunks:
                usage = getattr(chunk, "usage", None) or usage
                choices = getattr(chunk, "choices", None) or []
                if not choices:
                    continue
                finish = getattr(choices[0], "finish_reason", None) or finish
                piece = getattr(getattr(choices[0], "delta", None), "content", None)
                if isinstance(piece, str) and piece:
                    parts.append(piece)
                    yield piece
        except (self._openai.OpenAIError, ValueError) as exc:
            raise sdk_failure(exc, self.endpoint, self._secret, self._openai.OpenAIError, API) from exc
        text = "".join(parts)
        if finish is None and not parts:
            raise bad_reply(self.endpoint, "an empty stream (no chunks with choices)", API)
        prompt_text = "\n".join(m["content"] for m in params["messages"])
        return Completion(text, _or(usage_number(usage, "prompt_tokens"), estimate_tokens(prompt_text)),
                          _or(usage_number(usage, "completion_tokens"), estimate_tokens(text)),
                          watch.elapsed(), _finish(finish), self.model_name)


def _or(value: int | None, fallback: int) -> int:
    return value if value is not None else fallback


def _finish(reason: object) -> FinishReason:
    return "length" if reason == "length" else "stop"
