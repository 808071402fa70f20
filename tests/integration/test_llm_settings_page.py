"""AppTest on the Settings page: role assignment persists, keys show only their source, the connection test shows
the reply or the clear error, prices can be restored."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.services import llm_service

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "settings.py")
SECRET = "sk-test-page-secret-987654"


@pytest.fixture
def page_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from core.config import get_settings
    monkeypatch.setenv("FABULA_DB_URL", f"sqlite:///{tmp_path / 'app.db'}")
    monkeypatch.setenv("FABULA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    for var in ("ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "FABULA_LLM"):
        monkeypatch.delenv(var, raising=False)
    get_settings.cache_clear()
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()
    get_settings.cache_clear()


def _open() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    return at


def _button(at: AppTest, label: str):  # noqa: ANN202
    return next(b for b in at.button if b.label == label)


def _store():  # noqa: ANN202
    from views._shared import get_store
    return get_store()


def _everything_rendered(at: AppTest) -> str:
    parts = [str(df.value) for df in at.dataframe] + [str(e.value) for e in at.markdown] + \
        [str(e.value) for e in at.caption] + [str(e.value) for e in at.text]
    return "\n".join(parts)


def test_shows_key_sources_but_never_the_key(page_env: None) -> None:
    at = _open()
    rendered = _everything_rendered(at)
    assert "environment" in rendered and "not set" in rendered
    assert SECRET not in rendered


def test_one_model_per_role_is_saved(page_env: None) -> None:
    at = _open()
    at.radio[0].set_value("One model per role").run()
    at.selectbox(key="llm_writing").set_value("openai:gpt-4o-mini")
    _button(at, "Save").click().run()
    assert not at.exception, at.exception
    saved = llm_service.load_role_assignment(_store())
    assert saved.roles["writing"] == "openai:gpt-4o-mini"
    assert "openai:gpt-4o-mini" in str(at.dataframe[0].value)


def test_a_stored_model_that_no_longer_exists_shows_a_clear_error(page_env: None) -> None:
    # e.g. saved by an older version; AppTest cannot type a new option, so the name is planted in the store
    _store().set_meta(llm_service.ROLES_META_KEY, '{"default": "local:retired-model", "roles": {}}')
    at = _open()
    at.selectbox(key="llm_test").set_value("local:retired-model")
    _button(at, "Test connection").click().run()
    assert any("unknown local model 'retired-model'" in e.value.replace("\\", "") for e in at.error)
    _button(at, "Save").click().run()  # saving the same invalid name is refused, the stored value is untouched
    assert any("unknown local model" in e.value.replace("\\", "") for e in at.error)  # shown escaped (plain text)


def test_connection_test_shows_reply_or_error(page_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    monkeypatch.setenv("FABULA_LLM", "fake:echo")  # the scripted fake is offered only when it is in use
    get_settings.cache_clear()
    at = _open()
    at.selectbox(key="llm_test").set_value("fake:echo")
    _button(at, "Test connection").click().run()
    assert [s.value for s in at.success] == ["fake:echo answered."]
    assert at.text[0].value == llm_service.PING_PROMPT  # the echo, shown as plain text
    at.selectbox(key="llm_test").set_value("anthropic:claude-haiku-4-5")
    _button(at, "Test connection").click().run()
    assert any("ANTHROPIC_API_KEY" in e.value.replace("\\", "") for e in at.error)  # shown escaped (plain text)


def test_restore_default_prices(page_env: None) -> None:
    store = _store()
    llm_service.save_price_table(store, [{"model": "openai:gpt-4o-mini", "input_per_1m": 9, "output_per_1m": 9}])
    at = _open()
    _button(at, "Restore default prices").click().run()
    assert not at.exception
    assert llm_service.load_price_table(store)["openai:gpt-4o-mini"].input_per_1m == 0.15


def test_the_page_says_which_runtime_the_embedded_models_use(page_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FABULA_LOCAL_RUNTIME", raising=False)
    assert any("generate with OpenVINO" in c.value for c in _open().caption)   # the default
    monkeypatch.setenv("FABULA_LOCAL_RUNTIME", "llama.cpp")
    assert any("generate with llama.cpp" in c.value for c in _open().caption)
    monkeypatch.setenv("FABULA_LOCAL_RUNTIME", "transformers")
    assert any("several times slower" in w.value for w in _open().warning)


def test_the_page_says_when_a_runtime_failed_its_test_run_on_this_cpu(page_env: None, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A native runtime whose probe died here is not used: the page says which runtime serves and why."""
    from core.llm import runtime_probe
    from views._shared import plain
    monkeypatch.delenv("FABULA_LOCAL_RUNTIME", raising=False)
    monkeypatch.setenv("FABULA_PROBE_DIR", str(tmp_path / "probes"))
    monkeypatch.setattr(runtime_probe, "_verdicts", {})
    monkeypatch.setitem(runtime_probe.PROBES, "openvino", "tests.support.stand_in_runtime:segfault")
    monkeypatch.setitem(runtime_probe.PROBES, "llama.cpp", "tests.support.stand_in_runtime:fails")
    for name in ("smollm2", "gemma3-270m"):
        for runtime in ("openvino", "llama.cpp"):
            assert not runtime_probe.verdict(runtime, name, tmp_path).ok
    at = _open()
    assert any("generate with transformers" in w.value for w in at.warning)
    said = " ".join(c.value for c in at.caption)
    assert "openvino" in said and "SIGSEGV" in said and "no kernels for this CPU" in said
    assert plain(runtime_probe.cpu_name()) in said
