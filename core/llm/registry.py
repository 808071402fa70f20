"""The provider registry: `get_llm("local:smollm2")`, `register_provider("mine", factory)`.

A name is PROVIDER:MODEL, split at the first colon, so a model may itself contain ':' or '/'
(`openai:llama3.1:8b`, `openai:meta-llama/Llama-3.1-8B-Instruct`). Providers import their SDK or torch only when
first used, so importing core.llm stays cheap.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.llm.base import LLM
from core.llm.errors import LLMConfigError

ProviderFactory = Callable[..., LLM]  # factory(model: str, *, settings: Settings | None = None, **kw) -> LLM
WindowLookup = Callable[[str], int]  # model name -> its context window, with no key, connection or weights
_PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_\-]*$")


@dataclass
class ProviderInfo:
    name: str
    factory: ProviderFactory
    models: Sequence[str] = ()
    open_models: bool = True  # False: only `models` exist (local); True: any name the server knows (openai)
    description: str = ""
    examples: Sequence[str] = field(default_factory=tuple)
    context_window: WindowLookup | None = None  # declared by the provider; None: build the model to learn it
    listed: bool = True  # False: for tests (the scripted fake), never offered to users
    embedded: bool = False  # its models run in this process (weights to load: the server warms them up)


_providers: dict[str, ProviderInfo] = {}


def register_provider(name: str, factory: ProviderFactory, *, models: Sequence[str] = (), open_models: bool = True,
                      description: str = "", examples: Sequence[str] = (),
                      context_window: WindowLookup | None = None, listed: bool = True,
                      embedded: bool = False) -> None:
    """Make `name:MODEL` resolvable. Re-registering a name replaces it (tests use this to plug in fakes)."""
    if not _PROVIDER_NAME.match(name):
        raise ValueError(f"provider name {name!r} must be lowercase letters, digits, '-' or '_'")
    _providers[name] = ProviderInfo(name, factory, tuple(models), open_models, description, tuple(examples),
                                    context_window, listed, embedded)


def unregister_provider(name: str) -> None:
    _providers.pop(name, None)


def parse_llm_name(spec: str) -> tuple[str, str]:
    """("provider", "model") from "provider:model"; a clear LLMConfigError for anything else."""
    if not isinstance(spec, str) or ":" not in spec:
        raise LLMConfigError(f"LLM name {spec!r} must look like PROVIDER:MODEL, e.g. local:smollm2, "
                             f"openai:gpt-4o-mini, anthropic:claude-haiku-4-5")
    provider, model = (part.strip() for part in spec.split(":", 1))
    if not provider or not model:
        raise LLMConfigError(f"LLM name {spec!r} needs both a provider and a model, e.g. local:smollm2")
    return provider.lower(), model


def check_llm_name(spec: str) -> str:
    """`spec` normalised, after checking the provider exists and (for closed providers) the model too."""
    provider, model = parse_llm_name(spec)
    info = provider_info(provider)
    if not info.open_models and model not in info.models:
        raise LLMConfigError(f"unknown {provider} model {model!r}; available: {', '.join(info.models)}",
                             provider=provider)
    return f"{provider}:{model}"


def provider_info(provider: str) -> ProviderInfo:
    try:
        return _providers[provider]
    except KeyError:
        raise LLMConfigError(f"unknown LLM provider {provider!r}; available: {', '.join(sorted(_providers))}",
                             provider=provider) from None


def get_llm(spec: str, **kwargs: Any) -> LLM:
    """A ready LLM for PROVIDER:MODEL. kwargs go to the provider (e.g. settings=, timeout=, cache_dir=)."""
    provider, model = parse_llm_name(check_llm_name(spec))
    return provider_info(provider).factory(model, **kwargs)


def declared_context_window(spec: str) -> int | None:
    """The context window of PROVIDER:MODEL as its provider declares it, without building the model (an estimate
    needs it before a key or a connection exists); None when the provider declares none."""
    provider, model = parse_llm_name(check_llm_name(spec))
    lookup = provider_info(provider).context_window
    return None if lookup is None else lookup(model)


def is_embedded(spec: str) -> bool:
    """Whether PROVIDER:MODEL runs in this process (as its provider declares), without building it."""
    return provider_info(parse_llm_name(spec)[0]).embedded


def list_providers() -> list[ProviderInfo]:
    return [_providers[name] for name in sorted(_providers)]


# -- built-in providers (imports deferred to first use) -------------------------------------------------------------

def _local(model: str, **kw: Any) -> LLM:
    from core.llm.local import LocalLLM
    return LocalLLM(model, **kw)


def _openai(model: str, **kw: Any) -> LLM:
    from core.llm.openai_llm import OpenAILLM
    return OpenAILLM(model, **kw)


def _anthropic(model: str, **kw: Any) -> LLM:
    from core.llm.anthropic_llm import AnthropicLLM
    return AnthropicLLM(model, **kw)


def _ollama(model: str, **kw: Any) -> LLM:
    from core.llm.local_servers import make_llm
    return make_llm("ollama", model, **kw)


def _lmstudio(model: str, **kw: Any) -> LLM:
    from core.llm.local_servers import make_llm
    return make_llm("lmstudio", model, **kw)


def _local_server_window(_model: str) -> int:
    from core.llm.local_servers import CONTEXT_WINDOW
    return CONTEXT_WINDOW


def _fake(model: str, **kw: Any) -> LLM:
    from core.llm.fake import FakeLLM
    kw.pop("settings", None)
    return FakeLLM(model=model, **kw)  # no script: echoes the last user message


def _local_window(model: str) -> int:
    from core.llm.local_models import spec_for
    return spec_for(model).context_window


def _openai_window(model: str) -> int:
    from core.llm.openai_llm import context_window_for
    return context_window_for(model)


def _anthropic_window(_model: str) -> int:
    from core.llm.anthropic_llm import CONTEXT_WINDOW
    return CONTEXT_WINDOW


def _register_builtins() -> None:
    from core.llm.local_models import LOCAL_MODELS
    register_provider("local", _local, models=tuple(LOCAL_MODELS), open_models=False,
                      description="small model bundled in a package, runs on the CPU, no key, no network",
                      examples=tuple(f"local:{m}" for m in LOCAL_MODELS), context_window=_local_window,
                      embedded=True)
    register_provider("openai", _openai, models=("gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-5-mini"),
                      description="OpenAI, or any OpenAI-compatible server by base URL (Ollama, vLLM, llama.cpp, "
                                  "LM Studio)", examples=("openai:gpt-4o-mini", "openai:llama3.1:8b"),
                      context_window=_openai_window)
    register_provider("anthropic", _anthropic, models=("claude-haiku-4-5", "claude-sonnet-4-5"),
                      description="Anthropic Claude", examples=("anthropic:claude-haiku-4-5",),
                      context_window=_anthropic_window)
    # servers on this machine (core.llm.local_servers finds them); no examples: the Settings page offers the models
    # a running server lists
    register_provider("ollama", _ollama, description="a model of the Ollama server on this machine "
                      "(FABULA_OLLAMA_URL, default http://localhost:11434), no key",
                      context_window=_local_server_window)
    register_provider("lmstudio", _lmstudio, description="a model of the LM Studio server on this machine "
                      "(FABULA_LMSTUDIO_URL, default http://localhost:1234), no key",
                      context_window=_local_server_window)
    register_provider("fake", _fake, description="scripted replies for tests; echoes when unscripted",
                      examples=("fake:echo",), listed=False)


_register_builtins()
