"""AppTest fixtures: each test gets its own SQLite file and fresh Streamlit resource caches."""
from __future__ import annotations

from pathlib import Path

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


def page(name: str) -> str:
    return str(ROOT / "pages" / name)
