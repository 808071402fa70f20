"""Shared fixtures. Databases are temp files; the only thing tests keep in the repository's (git-ignored) data/
folder is the dequantized local-model cache, shared by every test so each model is dequantized once at most."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.support.postgres import any_db_url, postgres_server  # noqa: F401 - fixtures for every test

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
NOVELS = SHARED_DATA / "novels" / "txt"

_session_tmp = Path(tempfile.mkdtemp(prefix="fabula-tests-"))
MODEL_CACHE = Path(os.environ.setdefault("FABULA_MODEL_CACHE", str(ROOT / "data" / "cache")))
os.environ.setdefault("FABULA_DB_URL", f"sqlite:///{_session_tmp / 'default.db'}")
# the data directory holds the secrets file the Settings page writes: a developer's own keys must not reach the tests
os.environ.setdefault("FABULA_DATA_DIR", str(_session_tmp / "data"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("FABULA_WARM_UP", "0")  # app tests never generate; a warm-up would only cost CPU
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'fabula.db'}"


@pytest.fixture
def store(db_url: str):  # noqa: ANN201 - storage.repository.SqlStore on a fresh, migrated SQLite file
    from storage.repository import SqlStore
    s = SqlStore.from_url(db_url)
    yield s
    s.engine.dispose()


@pytest.fixture
def fresh_settings(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """Clear the cached Settings so env changes made by the test take effect (and are undone after)."""
    from core.config import get_settings
    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


def shared_missing(path: Path) -> str:
    """The skip message of a test that reads the shared data set and does not find it."""
    return (f"{path} is missing: this test reads the shared data set; put it at {SHARED_DATA} (a folder "
            "'shared/data' beside this clone, as CI has it)")


def shared_path(*parts: str) -> Path:
    """A file or folder of the shared data set; the test is skipped, saying what to put where, when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(shared_missing(path))
    return path


def novel_path(name: str) -> Path:
    return shared_path("novels", "txt", name)


@pytest.hookimpl(optionalhook=True)   # a hook of pytest-xdist: pytest without the plugin must not reject it
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Under pytest-xdist's `--dist loadfile` (the test command's two workers), a test file goes to one worker whole,
    so its module fixtures (a served app, a built book, a loaded model) are made once; and the browser tests, all of
    tests/e2e, are one unit: one worker runs them file after file while the other takes the rest, so at most one
    served app and one browser share the two cores with the other worker's tests. (xdist's own `loadgroup` marks do
    not group on pytest 9: the worker's renamed node ids never reach the scheduler.)"""
    if config.getoption("dist", "no") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FileOrBrowser(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "tests/e2e" if path.startswith("tests/e2e/") else path

    return FileOrBrowser(config, log)  # type: ignore[arg-type] - xdist's Producer
