"""Settings in a real browser (issue 37, item 5): a stub server standing in for Ollama on the detection port
(FABULA_OLLAMA_URL) is found and its chat models are offered as one-click choices, one of which then answers the
connection test; a key typed into the page with an OpenAI-compatible server's URL reaches that stub server in the
Authorization header, is kept only in the data directory's secrets file (0600), never on the page, in the database or
the server's log, and is removed with one click."""
from __future__ import annotations

import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import App, choose_option, no_exception, patience, start_app, stop_app, wait_idle
from tests.support.llm_server import LLMServer, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CANARY = "sk-canary-e2e-typed-7d6c5b4a39281706"


@pytest.fixture(scope="module")
def stubs() -> Iterator[tuple[LLMServer, LLMServer]]:
    with LLMServer() as ollama, LLMServer() as compatible:
        ollama.models = ["llama3.2:latest", "qwen3:8b", "nomic-embed-text:latest"]
        yield ollama, compatible


@pytest.fixture(scope="module")
def settings_app(stubs: tuple[LLMServer, LLMServer], tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    ollama, _ = stubs
    tmp = tmp_path_factory.mktemp("settings")
    app = start_app(tmp, {"FABULA_OLLAMA_URL": ollama.url, "FABULA_LMSTUDIO_URL": "", "FABULA_WARM_UP": "0",
                          "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "OPENAI_BASE_URL": "",
                          "FABULA_OPENAI_BASE_URL": "", "FABULA_LLM_MAX_RETRIES": "0"})
    yield app
    stop_app(app)


def _open_settings(page, app: App) -> None:  # noqa: ANN001
    page.goto(f"{app.url}/settings")
    page.get_by_role("heading", name="Settings", level=1, exact=True).wait_for(timeout=patience(120_000))
    wait_idle(page)


def test_a_running_ollama_is_detected_and_its_models_listed(page, settings_app: App,  # noqa: ANN001
                                                             stubs: tuple[LLMServer, LLMServer]) -> None:
    ollama, _ = stubs
    _open_settings(page, settings_app)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("is running at").first.wait_for()
    assert f"{ollama.url.split('//')[1]}" in main.get_by_text("is running at").first.inner_text()
    for model in ("llama3.2:latest", "qwen3:8b"):  # drawn just after the line above: wait, not a snapshot (flaked)
        main.get_by_role("button", name=f"Use {model}").wait_for(timeout=patience(30_000))
    assert main.get_by_role("button", name="Use nomic-embed-text:latest").count() == 0  # an embedding model
    assert any(r.path == "/api/tags" for r in ollama.requests)

    main.get_by_role("button", name="Use qwen3:8b").click()
    main.get_by_text("now serves").first.wait_for()
    wait_idle(page)
    no_exception(page)
    assert main.get_by_text("ollama:qwen3:8b now serves extraction, answering, summarizing, writing").count() == 1
    # one click gave every role the model; the connection test reaches the stub on the Ollama port
    ollama.script(Reply("Hello from the Ollama stub."))
    choose_option(page, "LLM to test", "ollama:qwen3:8b")   # reopened if a rerun closes the list (failed in CI)
    main.get_by_role("button", name="Test connection").click()
    main.get_by_text("ollama:qwen3:8b answered.").wait_for()
    sent = [r for r in ollama.requests if r.method == "POST"][-1]
    assert sent.path == "/v1/chat/completions" and sent.body["model"] == "qwen3:8b"
    assert "authorization" not in sent.headers or "sk-" not in sent.headers["authorization"]


def test_a_key_typed_in_the_page_reaches_the_server_and_nowhere_else(page, settings_app: App,  # noqa: ANN001
                                                                     stubs: tuple[LLMServer, LLMServer]) -> None:
    _, compatible = stubs
    _open_settings(page, settings_app)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("OpenAI-compatible server", exact=True).click()
    wait_idle(page)
    main.get_by_role("textbox", name="Base URL").fill(compatible.openai_url)
    main.get_by_role("textbox", name="API key (optional)").fill(CANARY)
    main.get_by_role("textbox", name="Model", exact=True).fill("stub-model")
    main.get_by_role("textbox", name="Model", exact=True).press("Tab")
    main.get_by_role("button", name="Test and save").click()
    main.get_by_text("answered in").first.wait_for(timeout=patience(60_000))
    wait_idle(page)
    no_exception(page)

    posts = [r for r in compatible.requests if r.method == "POST"]
    assert len(posts) == 1 and posts[0].headers["authorization"] == f"Bearer {CANARY}"
    assert posts[0].body["model"] == "stub-model" and CANARY not in str(posts[0].body)
    assert main.get_by_role("textbox", name="API key (optional)").input_value() == "", "the key stayed in the field"
    assert CANARY not in page.content()
    data = Path(settings_app.log).parent / "data"
    secrets = data / "secrets.toml"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o600 and CANARY in secrets.read_text()
    with sqlite3.connect(settings_app.db_url.removeprefix("sqlite:///")) as db:
        assert CANARY not in "\n".join(db.iterdump())
    assert "Saved here:" in main.inner_text() and "openai:stub-model" in main.inner_text()

    main.get_by_role("button", name="Remove", exact=True).click()
    main.get_by_text("Removed the saved openai entry").wait_for()
    wait_idle(page)
    assert not secrets.exists()
    assert CANARY not in settings_app.log.read_text(errors="replace"), "the key is in the server's log"
