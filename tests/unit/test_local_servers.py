"""Finding Ollama / LM Studio on this machine (core.llm.local_servers) with a stub server on a free port standing in
for each (FABULA_OLLAMA_URL / FABULA_LMSTUDIO_URL): their models listed, embedding models left out, nothing found
where nothing answers, never a long wait, answers cached briefly; and `ollama:MODEL` served without the OpenAI key."""
from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from core.llm import get_llm, local_servers
from core.llm.pricing import price_for
from tests.support.llm_server import LLMServer, Reply, refused_url

MODELS = ["llama3.2:latest", "qwen3:8b", "nomic-embed-text:latest"]


@pytest.fixture
def servers(fresh_settings: pytest.MonkeyPatch) -> Iterator[tuple[LLMServer, LLMServer]]:
    """An 'Ollama' and an 'LM Studio' stub, found through the two settings; the cache emptied around the test."""
    local_servers.forget()
    with LLMServer() as ollama, LLMServer() as lmstudio:
        ollama.models, lmstudio.models = list(MODELS), ["lmstudio-community/gemma-3-4b"]
        fresh_settings.setenv("FABULA_OLLAMA_URL", ollama.url)
        fresh_settings.setenv("FABULA_LMSTUDIO_URL", lmstudio.url + "/")
        yield ollama, lmstudio
    local_servers.forget()


def test_running_servers_and_their_chat_models_are_found(servers: tuple[LLMServer, LLMServer]) -> None:
    ollama, lmstudio = servers
    found = {s.provider: s for s in local_servers.detect()}
    assert found["ollama"].url == ollama.url and found["ollama"].label == "Ollama"
    assert found["ollama"].names == ["ollama:llama3.2:latest", "ollama:qwen3:8b"]  # no embedding model
    assert found["lmstudio"].names == ["lmstudio:lmstudio-community/gemma-3-4b"]
    assert [r.path for r in ollama.requests] == ["/api/tags"]
    # LM Studio's own list is missing on this stub (an older version): /v1/models answers instead
    assert [r.path for r in lmstudio.requests] == ["/api/v0/models", "/v1/models"]


def test_answers_are_cached_briefly_and_look_again_asks_again(servers: tuple[LLMServer, LLMServer]) -> None:
    ollama, _ = servers
    local_servers.detect()
    local_servers.detect()
    assert len(ollama.requests) == 1
    ollama.models = ["llama3.2:latest", "mistral:7b"]
    assert local_servers.detect(refresh=True)[0].models == ("llama3.2:latest", "mistral:7b")
    assert len(ollama.requests) == 2


def test_nothing_running_means_nothing_found_at_once(fresh_settings: pytest.MonkeyPatch) -> None:
    local_servers.forget()
    fresh_settings.setenv("FABULA_OLLAMA_URL", refused_url())
    fresh_settings.setenv("FABULA_LMSTUDIO_URL", "")  # turned off: not even asked
    start = time.perf_counter()
    assert local_servers.detect() == []
    assert time.perf_counter() - start < 0.5


def test_a_port_that_never_answers_does_not_hold_the_page(fresh_settings: pytest.MonkeyPatch) -> None:
    """A listening socket nobody reads from: the connection is made, the request is never answered."""
    local_servers.forget()
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        fresh_settings.setenv("FABULA_OLLAMA_URL", f"http://127.0.0.1:{silent.getsockname()[1]}")
        fresh_settings.setenv("FABULA_LMSTUDIO_URL", refused_url())
        start = time.perf_counter()
        assert local_servers.detect() == []
        assert time.perf_counter() - start < local_servers.TIMEOUT_S * 2 + 0.6


def test_a_server_that_is_not_a_model_server_is_not_one(servers: tuple[LLMServer, LLMServer]) -> None:
    ollama, lmstudio = servers
    ollama.models = lmstudio.models = None  # every GET is a 404: something else runs on the port
    assert local_servers.detect(refresh=True) == []


@pytest.mark.parametrize(("payload", "names"), [
    ({"models": [{"name": "llama3.2:latest", "details": {"family": "llama"}},
                 {"name": "mxbai-embed-large", "details": {"family": "bert"}}, {"model": "phi4"}]},
     ["llama3.2:latest", "phi4"]),
    ({"object": "list", "data": [{"id": "qwen2.5-7b-instruct", "type": "llm"},
                                 {"id": "text-embedding-nomic", "type": "embeddings"}]}, ["qwen2.5-7b-instruct"]),
    ({"data": [{"id": "bad name"}, {"id": "x\u0000y"}, {"id": ""}, {"id": 7}, "junk", {"id": "ok"}, {"id": "ok"}]},
     ["ok"]),
    ({"models": []}, []),
    ({"error": "no"}, None), ([1, 2], None), ("text", None),
])
def test_model_lists_of_each_shape(payload: object, names: list[str] | None) -> None:
    assert local_servers.parse_models(payload) == names


def test_ollama_models_are_served_without_the_openai_key(servers: tuple[LLMServer, LLMServer],
                                                         fresh_settings: pytest.MonkeyPatch) -> None:
    ollama, _ = servers
    fresh_settings.setenv("OPENAI_API_KEY", "sk-test-openai-only-123456")
    ollama.script(Reply("Hello from Ollama."))
    llm = get_llm("ollama:llama3.2:latest", max_retries=0)
    assert llm.name == "ollama:llama3.2:latest" and llm.provider == "ollama"
    assert llm.context_window == local_servers.CONTEXT_WINDOW
    assert llm.complete("hi").text == "Hello from Ollama."
    request = ollama.requests[-1]
    assert request.path == "/v1/chat/completions" and request.body["model"] == "llama3.2:latest"
    assert "sk-test-openai-only" not in request.headers.get("authorization", "")
    assert price_for("ollama:llama3.2:latest") is not None and price_for("ollama:x").cost(1000, 1000) == 0
