"""core.services.llm_endpoints on a real SQLite store: with sign-in, only the admin may save, remove or assign a key,
a server or a detected model (refused before anything is sent or written, whatever page or caller asks); a key
quoted back by a failing server stays out of the message and the logs."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.llm import LLMError, local_servers, secrets_file
from core.services import llm_endpoints, llm_service
from core.services.access import ReadOnly
from core.services.guarded_store import guarded
from tests.support.llm_server import LLMServer, Reply, Status

ANN, BOB = "ann@example.com", "bob@example.com"
CANARY = "sk-canary-endpoint-0a1b2c3d4e5f6a7b"


@pytest.fixture
def server(fresh_settings: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[LLMServer]:
    fresh_settings.setenv("FABULA_DATA_DIR", str(tmp_path / "data"))
    fresh_settings.setenv("FABULA_ADMIN", ANN)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "FABULA_OPENAI_BASE_URL"):
        fresh_settings.delenv(var, raising=False)
    local_servers.forget()
    with LLMServer() as s:
        s.models = ["llama3.2:latest"]
        fresh_settings.setenv("FABULA_OLLAMA_URL", s.url)
        yield s
    local_servers.forget()


def test_only_the_admin_changes_keys_and_servers(server: LLMServer, store) -> None:  # noqa: ANN001
    bob = guarded(store, BOB, legacy_owner=ANN)
    with pytest.raises(ReadOnly, match="Only the admin"):
        llm_endpoints.connect(bob, "compatible", key=CANARY, base_url=server.openai_url, model="m",
                              roles=list(llm_service.ROLES))
    assert server.requests == [] and not secrets_file.path().exists()
    with pytest.raises(ReadOnly):
        llm_endpoints.use_local_model(bob, "ollama:llama3.2:latest", ["answering"])
    ann = guarded(store, ANN, legacy_owner=ANN)
    llm_endpoints.connect(ann, "compatible", key=CANARY, base_url=server.openai_url, model="m", roles=["writing"])
    assert secrets_file.saved("openai").api_key == CANARY
    assert llm_service.resolve_llm_name(store, "writing") == "openai:m"
    with pytest.raises(ReadOnly):
        llm_endpoints.remove(bob, "openai")
    assert secrets_file.saved("openai") is not None
    llm_endpoints.use_local_model(ann, "ollama:llama3.2:latest", ["answering"])
    assert llm_service.resolve_llm_name(store, "answering") == "ollama:llama3.2:latest"
    assert llm_endpoints.remove(ann, "openai") == ["writing"]
    assert secrets_file.saved("openai") is None
    # local mode (no sign-in): the one user is the admin
    llm_endpoints.use_local_model(store, "ollama:llama3.2:latest", list(llm_service.ROLES))
    assert llm_service.load_role_assignment(store).default == "ollama:llama3.2:latest"


def test_a_key_quoted_back_is_redacted_from_message_and_logs(server: LLMServer, store,  # noqa: ANN001
                                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server.script(Status(401, f"Incorrect API key provided: {CANARY}."))
    with pytest.raises(LLMError) as failed:
        llm_endpoints.connect(store, "compatible", key=CANARY, base_url=server.openai_url, model="m", roles=[])
    assert "rejected this key" in str(failed.value) and CANARY not in str(failed.value)
    assert server.requests[-1].headers["authorization"] == f"Bearer {CANARY}"
    assert "chat/completions" in caplog.text and CANARY not in caplog.text
    assert not secrets_file.path().exists()


def test_an_anthropic_key_is_tested_and_saved_for_anthropic_only(server: LLMServer, store,  # noqa: ANN001
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Anthropic's own endpoint stood in for by the stub; the key goes in the request's key header (the SDK's choice of
    x-api-key or Authorization) and is saved for anthropic."""
    from core.llm import keys
    monkeypatch.setitem(keys.DEFAULT_BASE_URL, "anthropic", server.anthropic_url)
    with pytest.raises(ValueError, match="Paste the Anthropic key"):
        llm_endpoints.connect(store, "anthropic", key=" ", base_url=None, model="claude-haiku-4-5", roles=[])
    server.script(Reply(f"I saw {CANARY} in your headers."))  # a server that echoes the key back
    result = llm_endpoints.connect(store, "anthropic", key=CANARY, base_url="http://ignored:1/v1",
                                   model="claude-haiku-4-5", roles=["summarizing"])
    assert CANARY not in result["reply"] and "***" in result["reply"]
    sent = server.requests[-1]
    assert sent.path == "/v1/messages"
    assert CANARY in (sent.headers.get("x-api-key", ""), sent.headers.get("authorization", "").removeprefix("Bearer "))
    assert secrets_file.saved("anthropic") == secrets_file.SavedEndpoint("anthropic", CANARY, None)
    assert secrets_file.saved("openai") is None
    assert keys.key_source("anthropic") == "Settings page"
    assert llm_service.resolve_llm_name(store, "summarizing") == "anthropic:claude-haiku-4-5"
