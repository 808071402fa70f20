"""Model servers running on this machine: Ollama (localhost:11434) and LM Studio (localhost:1234), found by asking
each for its model list, and served as the providers `ollama:MODEL` and `lmstudio:MODEL` (their OpenAI-compatible
API under /v1, no key).

    for server in detect():                 # at most about half a second, then cached for CACHE_SECONDS
        server.label, server.names          # "Ollama", ["ollama:llama3.2:latest", ...]

The addresses are settings (FABULA_OLLAMA_URL, FABULA_LMSTUDIO_URL; empty turns one off), which is also how tests
put a stub server on a free port. Detection never blocks a page for long: both servers are asked at once with a short
timeout, a refused connection answers at once, and the result is kept for a few seconds so a page's reruns cost
nothing. A proxy from the environment is never used for these local addresses.
"""
from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from core.config import Settings, get_settings
from core.llm.base import LLM
from core.llm.errors import LLMConfigError

TIMEOUT_S = 0.5  # per request; a server on this machine answers its model list in milliseconds
CACHE_SECONDS = 15.0
MAX_BODY = 2_000_000  # a model list is a few KB; anything far larger is not one
MAX_MODELS = 200
# Ollama's default context (num_ctx) is 2048-4096 tokens whatever the model could take, and LM Studio's is what the
# model was loaded with (4096 by default): prompts are sized for 4096 so nothing is cut off silently.
CONTEXT_WINDOW = 4096


@dataclass(frozen=True)
class ServerKind:
    provider: str  # the provider name its models get: "ollama:MODEL"
    label: str
    setting: str  # the Settings field with its address
    list_paths: tuple[str, ...]  # tried in order; the first that answers with a model list wins


KINDS = (ServerKind("ollama", "Ollama", "ollama_url", ("/api/tags", "/v1/models")),
         # LM Studio's own list says which models are embedding models; /v1/models (older versions) does not
         ServerKind("lmstudio", "LM Studio", "lmstudio_url", ("/api/v0/models", "/v1/models")))
BY_PROVIDER = {k.provider: k for k in KINDS}


@dataclass(frozen=True)
class Detected:
    """A server that answered: where, and the chat models it offers (embedding models left out)."""

    provider: str
    label: str
    url: str
    models: tuple[str, ...]

    @property
    def names(self) -> list[str]:
        return [f"{self.provider}:{m}" for m in self.models]


def server_url(provider: str, settings: Settings | None = None) -> str | None:
    """The server's address without a trailing slash; None when its setting is empty (detection off)."""
    value = getattr(settings or get_settings(), BY_PROVIDER[provider].setting, None)
    return value.strip().rstrip("/") if isinstance(value, str) and value.strip() else None


# -- detection ---------------------------------------------------------------------------------------------------

_cache: dict[tuple[str, str], tuple[float, Detected | None]] = {}
_cache_lock = threading.Lock()


def detect(settings: Settings | None = None, *, refresh: bool = False, timeout: float = TIMEOUT_S) -> list[Detected]:
    """The known servers that are running now, asked in parallel (each answer kept CACHE_SECONDS; `refresh` asks
    again)."""
    settings = settings or get_settings()
    targets = [(kind, url) for kind in KINDS if (url := server_url(kind.provider, settings))]
    results: dict[str, Detected | None] = {}
    threads = []
    now = time.monotonic()
    for kind, url in targets:
        with _cache_lock:
            hit = _cache.get((kind.provider, url))
        if hit is not None and not refresh and now - hit[0] < CACHE_SECONDS:
            results[kind.provider] = hit[1]
            continue

        def ask(kind: ServerKind = kind, url: str = url) -> None:
            found = probe(kind, url, timeout)
            with _cache_lock:
                _cache[(kind.provider, url)] = (time.monotonic(), found)
            results[kind.provider] = found
        thread = threading.Thread(target=ask, name=f"detect-{kind.provider}", daemon=True)
        thread.start()
        threads.append(thread)
    deadline = time.monotonic() + timeout * 2 + 0.5
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return [found for kind in KINDS if (found := results.get(kind.provider)) is not None]


def forget() -> None:
    """Drop the cached answers (a "Look again" button; tests)."""
    with _cache_lock:
        _cache.clear()


def probe(kind: ServerKind, url: str, timeout: float = TIMEOUT_S) -> Detected | None:
    """Ask one server for its models; None when nothing answers there with a model list."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
    for path in kind.list_paths:
        try:
            with opener.open(urllib.request.Request(url + path, headers={"Accept": "application/json"}),
                             timeout=timeout) as response:
                if response.status != 200:
                    continue
                payload = json.loads(response.read(MAX_BODY + 1)[:MAX_BODY])
        except urllib.error.HTTPError:
            continue  # the server runs, but not this path (an older version): try the next one
        except (OSError, ValueError):
            return None  # refused, timed out, not HTTP, not JSON: no such server here
        models = parse_models(payload)
        if models is not None:
            return Detected(kind.provider, kind.label, url, tuple(models))
    return None


def parse_models(payload: Any) -> list[str] | None:
    """Chat model names from Ollama's /api/tags ({"models": [{"name"}]}), an OpenAI-style list ({"data": [{"id"}]})
    or LM Studio's /api/v0/models (the same, with "type"); None for anything else. Embedding models are left out
    (they cannot chat), and so are names no model could have (empty, spaces, control characters, over 200 chars)."""
    if not isinstance(payload, dict):
        return None
    items = payload.get("models") if isinstance(payload.get("models"), list) else payload.get("data")
    if not isinstance(items, list):
        return None
    names: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        name = item.get("name") or item.get("model") or item.get("id")
        if not isinstance(name, str) or not name or len(name) > 200 or any(c.isspace() or not c.isprintable()
                                                                             for c in name):
            continue
        details = item.get("details")
        family = str(details.get("family") or "").lower() if isinstance(details, dict) else ""
        if item.get("type") == "embeddings" or "embed" in name.lower() or family.endswith("bert"):
            continue
        if name not in names:
            names.append(name)
    return names[:MAX_MODELS]


# -- the providers ---------------------------------------------------------------------------------------------

def make_llm(provider: str, model: str, **kw: Any) -> LLM:
    """`ollama:MODEL` / `lmstudio:MODEL`: the OpenAI provider pointed at the server's /v1, sending no key (never the
    OpenAI key: that is for OpenAI's endpoint, not for whatever listens on a local port)."""
    from core.llm.openai_llm import OpenAILLM
    kind = BY_PROVIDER[provider]
    if not kw.get("base_url_override"):
        root = server_url(provider, kw.get("settings"))
        if root is None:
            raise LLMConfigError(f"{provider}: no {kind.label} address; set FABULA_{kind.setting.upper()} "
                                 f"(e.g. http://localhost:{'11434' if provider == 'ollama' else '1234'})",
                                 provider=provider)
        kw["base_url_override"] = root + "/v1"
    return OpenAILLM(model, provider_name=provider, context_window=CONTEXT_WINDOW, **kw)
