"""AppTest on the Settings page (issue 16): "One model for everything" is chosen only when every role has one
model, and says which roles use another and why; the tests' scripted fake is never offered."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import page


@pytest.fixture
def no_llm_env(app_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    for var in ("FABULA_LLM", "FABULA_LLM_WRITING", "FABULA_LLM_ANSWERING", "FABULA_LLM_SUMMARIZING",
                "FABULA_LLM_EXTRACTION"):
        monkeypatch.delenv(var, raising=False)
    get_settings.cache_clear()


def _open() -> AppTest:
    at = AppTest.from_file(page("settings.py"), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_assignment_shown_is_the_roles_table(no_llm_env: None) -> None:
    at = _open()
    table = at.dataframe[0].value
    models = dict(zip(table["role"], table["llm"]))
    assert models["writing"] == "local:smollm2" and models["answering"] == "local:gemma3-270m"
    assert at.radio[0].value == "One model per role", "two models serve the roles: not 'one for everything'"
    assert any("Writing uses local:smollm2 by default" in c.value for c in at.caption)
    at.radio[0].set_value("One model for everything").run()
    said = " ".join(c.value for c in at.caption)
    assert "writing uses local:smollm2 (built-in default for this role)" in said
    assert "Saving gives every role local:gemma3-270m" in said


def test_one_model_for_everything_when_it_is_so(no_llm_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    monkeypatch.setenv("FABULA_LLM", "openai:gpt-4o-mini")
    get_settings.cache_clear()
    at = _open()
    assert at.radio[0].value == "One model for everything"
    assert not [c for c in at.caption if "uses" in c.value and "Saving gives" in c.value]


def test_the_test_provider_is_not_offered(no_llm_env: None) -> None:
    at = _open()
    offered = {o for box in at.selectbox for o in box.options}
    assert "local:smollm2" in offered and "openai:gpt-4o-mini" in offered
    assert not [o for o in offered if o.startswith("fake:")], offered


@pytest.mark.parametrize(("runtime", "said"), [("llama.cpp", "generate with llama.cpp"),
                                               ("openvino", "generate with OpenVINO")])
def test_the_page_says_which_runtime_generates(no_llm_env: None, monkeypatch: pytest.MonkeyPatch, runtime: str,
                                               said: str) -> None:
    monkeypatch.setenv("FABULA_LOCAL_RUNTIME", runtime)
    at = _open()
    assert any(said in c.value for c in at.caption)
