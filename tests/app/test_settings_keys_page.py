"""AppTest on Settings' keys and servers (issue 37, item 5): a key and server typed in are tested with one request,
saved to the data directory's secrets file (0600) and assigned to roles; a wrong key, an unreachable URL and a timeout
each get a clear message and save nothing; a saved entry can be removed; the precedence is stated; an Ollama found
running is offered as one-click choices; with sign-in on, only the admin may do any of it."""
from __future__ import annotations

import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.llm import local_servers
from core.services import llm_service
from tests.app.conftest import page
from tests.support.llm_server import LLMServer, Reply, Sleep, Status, refused_url

CANARY = "sk-canary-typed-in-page-5f1e2d3c4b5a"
ANN, BOB = "ann@example.com", "bob@example.com"
AUTH = {"auth": {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "secret",
                 "client_id": "fabula", "client_secret": "s",
                 "server_metadata_url": "http://localhost:1/.well-known/openid-configuration"}}


@pytest.fixture
def env(app_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMServer]:
    """No key anywhere, no Ollama or LM Studio looked for; a stub OpenAI-compatible server to type in."""
    from core.config import get_settings
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "FABULA_OPENAI_BASE_URL", "FABULA_LLM",
                "FABULA_ADMIN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("FABULA_OLLAMA_URL", "")
    monkeypatch.setenv("FABULA_LMSTUDIO_URL", "")
    get_settings.cache_clear()
    local_servers.forget()
    with LLMServer() as server:
        yield server
    local_servers.forget()


def _secrets(tmp_path: Path) -> Path:
    return tmp_path / "data" / "secrets.toml"


def _open(user: str | None = None) -> AppTest:
    at = AppTest.from_file(page("settings.py"), default_timeout=30)
    if user:
        at.secrets = AUTH
        at.user = {"is_logged_in": True, "email": user, "name": user.split("@")[0].title(), "sub": f"sub-{user}"}
    at.run()
    assert not at.exception, at.exception
    return at


def _type_server(at: AppTest, url: str, key: str, model: str = "stub-model") -> AppTest:
    at.radio(key="key_kind").set_value("compatible").run()
    at.text_input(key="key_url").input(url)
    at.text_input(key="key_secret").input(key)
    at.text_input(key="key_model_compatible").input(model)
    return next(b for b in at.button if b.label == "Test and save").click().run()


def _shown(at: AppTest) -> str:
    parts = [str(df.value) for df in at.dataframe] + [e.value for e in at.markdown] + [e.value for e in at.caption] \
        + [e.value for e in at.success] + [e.value for e in at.error] + [e.value for e in at.text]
    return "\n".join(parts)


def test_a_typed_key_is_tested_saved_owner_only_and_assigned(env: LLMServer, tmp_path: Path, app_db: str) -> None:
    env.script(Reply("Hello from the stub."))
    at = _type_server(_open(), env.openai_url, CANARY)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert env.requests[-1].headers["authorization"] == f"Bearer {CANARY}"  # the typed key reached the server
    assert any("openai:stub-model answered" in s.value.replace("\\", "") for s in at.success)
    file = _secrets(tmp_path)
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and CANARY in file.read_text()
    from views._shared import get_store
    assert llm_service.load_role_assignment(get_store()).default == "openai:stub-model"
    assert "openai:stub-model" in str(at.dataframe[0].value)
    assert at.session_state["key_secret"] == "", "the password box kept the key"
    shown = _shown(at)
    assert "Settings page" in shown and CANARY not in shown
    with sqlite3.connect(app_db.removeprefix("sqlite:///")) as db:
        assert CANARY not in "\n".join(db.iterdump())
    # the next request of any feature uses the saved key with the saved server
    assert llm_service.test_connection("openai:stub-model")["reply"] == Reply().text
    assert env.requests[-1].headers["authorization"] == f"Bearer {CANARY}"


@pytest.mark.parametrize(("behaviour", "said"), [
    (Status(401, "Incorrect API key provided"), "rejected this key"),
    (Status(404, "model not found"), "does not know model 'stub-model'"),
    (Sleep(3), "No reply from"),
])
def test_a_failing_server_gets_a_clear_message_and_nothing_is_saved(env: LLMServer, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    behaviour: object, said: str) -> None:
    from core.config import get_settings
    monkeypatch.setenv("FABULA_LLM_TIMEOUT_S", "1")
    get_settings.cache_clear()
    env.script(behaviour)
    at = _type_server(_open(), env.openai_url, CANARY)
    errors = " ".join(e.value.replace("\\", "") for e in at.error)
    assert said in errors and "Nothing was saved" in errors, errors
    assert CANARY not in errors
    assert len([r for r in env.requests if r.method == "POST"]) == 1, "the test is one request, no retries"
    assert not _secrets(tmp_path).exists()
    from views._shared import get_store
    assert llm_service.load_role_assignment(get_store()).default is None


def test_an_unreachable_url_and_a_malformed_one(env: LLMServer, tmp_path: Path) -> None:
    at = _type_server(_open(), refused_url() + "/v1", "")
    assert any("cannot connect to" in e.value.replace("\\", "") for e in at.error)
    at = _type_server(at, "localhost:11434", "")
    assert any("must start with http" in e.value.replace("\\", "") for e in at.error)
    assert not _secrets(tmp_path).exists()


def test_a_saved_entry_is_removed_and_the_precedence_is_stated(env: LLMServer, tmp_path: Path) -> None:
    at = _type_server(_open(), env.openai_url, CANARY)
    assert any("instead of the environment" in c.value for c in at.caption)
    assert any("Saved here: **openai**" in c.value for c in at.caption)
    at.button(key="remove_openai").click().run()
    assert not at.exception, at.exception
    assert not _secrets(tmp_path).exists()
    said = " ".join(s.value.replace("\\", "") for s in at.success)
    assert "Removed the saved openai entry" in said and "answering" in said  # roles still naming openai: models
    assert not [c for c in at.caption if "Saved here" in c.value]


def test_a_running_ollama_is_offered_in_one_click(env: LLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    env.models = ["llama3.2:latest", "qwen3:8b"]
    monkeypatch.setenv("FABULA_OLLAMA_URL", env.url)
    get_settings.cache_clear()
    at = _open()
    assert any("**Ollama** is running at" in m.value and "2 models" in m.value for m in at.markdown)
    at.multiselect(key="local_roles").set_value(["answering", "summarizing"]).run()
    at.button(key="use_ollama:qwen3:8b").click().run()
    assert not at.exception, at.exception
    from views._shared import get_store
    saved = llm_service.load_role_assignment(get_store())
    assert saved.roles == {"answering": "ollama:qwen3:8b", "summarizing": "ollama:qwen3:8b"} and not saved.default
    assert "ollama:qwen3:8b" in at.selectbox(key="llm_test").options  # offered to every picker too


def test_nothing_running_says_where_it_looked(env: LLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    monkeypatch.setenv("FABULA_OLLAMA_URL", refused_url())
    get_settings.cache_clear()
    at = _open()
    assert any("No Ollama or LM Studio server is running here" in c.value and "Ollama at `http://127.0.0.1:" in c.value
               for c in at.caption)


def test_with_sign_in_only_the_admin_sets_keys(env: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    monkeypatch.setenv("FABULA_ADMIN", ANN)
    monkeypatch.setenv("FABULA_OLLAMA_URL", env.url)
    env.models = ["llama3.2:latest"]
    get_settings.cache_clear()
    at = _open(BOB)
    assert next(b for b in at.button if b.label == "Test and save").disabled
    assert at.button(key="use_ollama:llama3.2:latest").disabled
    at = _open(ANN)
    at = _type_server(at, env.openai_url, CANARY)
    assert not at.error, [e.value for e in at.error]
    assert _secrets(tmp_path).exists()
    at = _open(BOB)
    assert at.button(key="remove_openai").disabled
