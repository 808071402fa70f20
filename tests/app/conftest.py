"""AppTest fixtures: each test gets its own SQLite file and fresh Streamlit resource caches."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import streamlit as st

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    from core.config import get_settings
    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("FABULA_DB_URL", url)
    monkeypatch.setenv("FABULA_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    st.cache_resource.clear()
    st.cache_data.clear()
    yield url
    st.cache_resource.clear()
    get_settings.cache_clear()


def finish_jobs(at, timeout: float = 120):  # noqa: ANN001, ANN201 - AppTest
    """Wait for the background jobs a click started (core.services.background runs them in this process), then run
    the page again: what a user sees once the job's panel noticed that it ended."""
    from core.services import background
    assert background.worker().wait_all(timeout), "a background job did not end in time"
    return at.run()


def page(name: str) -> str:
    return str(ROOT / "views" / name)


@contextmanager
def writer_provider(monkeypatch: pytest.MonkeyPatch, reply: Callable[..., str]) -> Iterator[list[Any]]:
    """FABULA_LLM names a provider of FakeLLMs answering with `reply(messages, options)`; the FakeLLMs the app built."""
    from core.config import get_settings
    from core.llm import FakeLLM, register_provider, unregister_provider
    built: list[FakeLLM] = []

    def factory(model: str, **kw: Any) -> FakeLLM:
        built.append(FakeLLM(reply, model=model))
        return built[-1]
    register_provider("apptest", factory)
    monkeypatch.setenv("FABULA_LLM", "apptest:writer")
    get_settings.cache_clear()
    try:
        yield built
    finally:
        unregister_provider("apptest")


@pytest.fixture(autouse=True)
def state_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Streamlit's "created with a default value but also had its value set via the Session State API" warnings
    (logged with a stack in the server's log, once a process), caught for the test."""
    import logging

    import streamlit.elements.lib.policies as policies
    caught: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "Session State API" in record.getMessage():
                caught.append(record.getMessage())

    handler = Catch()
    logging.getLogger(policies.__name__).addHandler(handler)
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    yield caught
    logging.getLogger(policies.__name__).removeHandler(handler)
    assert not caught, caught   # every page test: a widget given a default and a value by code logs a stack
