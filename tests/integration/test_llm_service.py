"""core.services.llm_service and `cli.py llm ...` with a real SQLite store, FakeLLM and the protocol test server."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

import cli
import cli_commands
from core.domain import NewChapter, WorkKind
from core.llm import FakeLLM, LLMConfigError, MeteredLLM
from core.services import llm_service
from tests.support.llm_server import LLMServer, Reply, refused_url


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer() as s:
        yield s


@pytest.fixture
def env(fresh_settings: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """A clean LLM environment: no FABULA_LLM*, no keys, no base URLs (restored after the test)."""
    for var in ("FABULA_LLM", *(f"FABULA_LLM_{r.upper()}" for r in llm_service.ROLES), "OPENAI_API_KEY",
                "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "FABULA_OPENAI_BASE_URL",
                "FABULA_ANTHROPIC_BASE_URL"):
        fresh_settings.delenv(var, raising=False)
    return fresh_settings


def _resolve(store, role: str = "answering", cli_override: str | None = None) -> tuple[str, str]:  # noqa: ANN001
    from core.config import get_settings
    get_settings.cache_clear()
    return llm_service.resolve_with_source(store, role, cli_override)


def test_role_resolution_order(store, env: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    from core.config import Settings
    assert _resolve(store) == (Settings.model_fields["llm"].default, "built-in default")
    env.setenv("FABULA_LLM", "fake:from-env")
    assert _resolve(store) == ("fake:from-env", "FABULA_LLM")
    env.setenv("FABULA_LLM_ANSWERING", "fake:answering-env")
    assert _resolve(store) == ("fake:answering-env", "FABULA_LLM_ANSWERING")
    assert _resolve(store, "writing") == ("fake:from-env", "FABULA_LLM")
    llm_service.save_role_assignment(store, "fake:saved-all", {})
    assert _resolve(store) == ("fake:saved-all", "saved choice")  # the Settings page beats the environment
    llm_service.save_role_assignment(store, "fake:saved-all", {"answering": "fake:saved-answering"})
    assert _resolve(store) == ("fake:saved-answering", "saved choice (this role)")
    assert _resolve(store, "writing") == ("fake:saved-all", "saved choice")
    assert _resolve(store, cli_override="fake:cli") == ("fake:cli", "--llm")
    llm_service.clear_role_assignment(store)
    assert _resolve(store) == ("fake:answering-env", "FABULA_LLM_ANSWERING")
    with pytest.raises(ValueError, match="unknown role"):
        llm_service.resolve_llm_name(store, "painting")


def test_invalid_assignments_are_rejected_and_change_nothing(store, env: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    llm_service.save_role_assignment(store, "fake:kept", {})
    for default, roles in [("local:gpt-4o", {}), ("nocolon", {}), (None, {"answering": "zzz:model"}),
                           (None, {"painting": "fake:x"})]:
        with pytest.raises((LLMConfigError, ValueError)):
            llm_service.save_role_assignment(store, default, roles)
    assert llm_service.load_role_assignment(store).default == "fake:kept"
    store.set_meta(llm_service.ROLES_META_KEY, "{broken")
    assert llm_service.load_role_assignment(store) == llm_service.RoleAssignment()  # unreadable -> environment


def test_build_llm_meters_every_call_into_the_store(store, env: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    work = store.create_work("Quality Street", None, WorkKind.BOOK, {}, [NewChapter("One", "Text.", ["Text."])])
    job = store.open_job(work.id, "qa", total=2)
    llm_service.save_role_assignment(store, "fake:echo", {})
    llm = llm_service.build_llm(store, "answering", work_id=work.id, job_id=job.id)
    assert isinstance(llm, MeteredLLM) and llm.name == "fake:echo"
    llm.complete("three little words")
    llm.stream("two words").text()
    assert store.llm_usage(job_id=job.id) == {"calls": 2, "input_tokens": 5, "output_tokens": 5}
    assert store.llm_usage(work_id=work.id)["calls"] == 2
    tally = llm_service.usage_tally(store, llm.name, job_id=job.id)
    assert (tally["usd"], tally["label"]) == (0.0, "free")


def test_price_table_defaults_edits_and_bad_rows(store) -> None:  # noqa: ANN001
    rows = llm_service.price_table_rows(store)
    assert {"model": "openai:gpt-4o-mini", "input_per_1m": 0.15, "output_per_1m": 0.6} in rows
    rows.append({"model": "openai:llama3.1:8b", "input_per_1m": 0.0, "output_per_1m": 0.0})
    rows[0]["input_per_1m"] = 99.0
    llm_service.save_price_table(store, rows)
    assert llm_service.estimate_cost(store, "openai:llama3.1:8b", units=10, calls=10, input_tokens=10_000,
                                     output_tokens=1000).usd == 0.0
    assert llm_service.load_price_table(store)[rows[0]["model"]].input_per_1m == 99.0
    with pytest.raises(ValueError, match="row 1"):
        llm_service.save_price_table(store, [{"model": "x:y", "input_per_1m": "free", "output_per_1m": 1}])
    assert llm_service.load_price_table(store)[rows[0]["model"]].input_per_1m == 99.0  # unchanged
    llm_service.reset_price_table(store)
    assert llm_service.estimate_cost(store, "openai:llama3.1:8b", units=10, calls=10, input_tokens=10_000,
                                     output_tokens=1000).label == "unknown price"


def test_ping_reports_reply_tokens_and_time(server: LLMServer, env: pytest.MonkeyPatch) -> None:
    env.setenv("FABULA_OPENAI_BASE_URL", server.openai_url)
    server.script(Reply("pong", input_tokens=12, output_tokens=1))
    result = llm_service.test_connection("openai:tiny")
    assert set(result) == {"provider", "model", "reply", "input_tokens", "output_tokens", "seconds"}
    assert (result["provider"], result["model"], result["reply"], result["input_tokens"]) == (
        "openai", "tiny", "pong", 12)
    assert llm_service.ping(FakeLLM(["pong"]))["reply"] == "pong"


def test_endpoints_say_where_the_key_comes_from_and_never_contain_it(env: pytest.MonkeyPatch) -> None:
    env.setenv("OPENAI_API_KEY", "sk-test-never-shown-123456")
    env.setenv("ANTHROPIC_BASE_URL", "http://proxy.local:8080")
    rows = llm_service.endpoints()
    assert next(r for r in rows if r["provider"] == "openai")["key"] == "environment"
    assert "sk-test-never-shown" not in json.dumps(rows)
    anthropic = next(r for r in rows if r["provider"] == "anthropic")
    assert (anthropic["base_url"], anthropic["base_url_from"]) == ("http://proxy.local:8080", "ANTHROPIC_BASE_URL")


# -- the CLI -----------------------------------------------------------------------------------------------------


@pytest.fixture
def cli_store(store, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN001, ANN201
    monkeypatch.setattr(cli_commands, "_store", store)
    return store


def test_cli_ping_json(server: LLMServer, env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("OPENAI_BASE_URL", server.openai_url)
    server.script(Reply("pong", input_tokens=10, output_tokens=2))
    assert cli.main(["llm", "ping", "--llm", "openai:qwen2.5:0.5b", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["provider", "model", "reply", "input_tokens", "output_tokens", "seconds"]
    assert (out["provider"], out["model"], out["reply"], out["output_tokens"]) == ("openai", "qwen2.5:0.5b", "pong", 2)


def test_cli_ping_failure_is_one_clear_line(env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("OPENAI_BASE_URL", refused_url() + "/v1")
    env.setenv("FABULA_LLM_MAX_RETRIES", "0")
    assert cli.main(["llm", "ping", "--llm", "openai:any", "--json"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: openai: cannot connect to http://127.0.0.1:") and len(err.splitlines()) == 1
    assert cli.main(["llm", "ping", "--llm", "local:nope"]) == 1
    assert "available: smollm2, gemma3-270m" in capsys.readouterr().err


def test_cli_use_status_and_ping_follow_the_saved_choice(cli_store, env: pytest.MonkeyPatch,  # noqa: ANN001
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["llm", "use", "fake:echo", "--role", "answering", "--json"]) == 0
    capsys.readouterr()
    assert cli.main(["llm", "ping", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provider"] == "fake"
    assert cli.main(["llm", "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert {"role": "answering", "llm": "fake:echo", "source": "saved choice (this role)"} in status["roles"]
    assert cli.main(["llm", "use", "local:nope"]) == 1
    assert cli.main(["llm", "use", "--reset", "--json"]) == 0
    assert llm_service.load_role_assignment(cli_store) == llm_service.RoleAssignment()


def test_cli_models_lists_providers(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["llm", "models", "--json"]) == 0
    providers = {p["provider"]: p for p in json.loads(capsys.readouterr().out)}
    assert providers["local"]["models"] == ["smollm2", "gemma3-270m"] and not providers["local"]["any_model"]
    assert {"openai", "anthropic", "fake"} <= set(providers)
