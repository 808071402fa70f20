"""Browser tests: `streamlit run app.py` on 127.0.0.1 with a temp database, driven by Playwright through Debian's
chromium (no browser download). Screenshots of failing tests land in tests/e2e/screenshots/."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = ROOT / "tests" / "e2e" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class App:
    def __init__(self, url: str, db_url: str, process: subprocess.Popen, log: Path) -> None:
        self.url, self.db_url, self.process, self.log = url, db_url, process, log


def start_app(tmp: Path, env_extra: dict[str, str] | None = None) -> App:
    port = _free_port()
    db_url = f"sqlite:///{tmp / 'e2e.db'}"
    env = {**os.environ, "FABULA_DB_URL": db_url, "FABULA_DATA_DIR": str(tmp / "data"), **(env_extra or {})}
    if "FABULA_DATA_DIR" not in (env_extra or {}) and os.environ.get("FABULA_MODEL_CACHE") is None:
        env["FABULA_MODEL_CACHE"] = str(ROOT / "data" / "cache")
    log = tmp / "streamlit.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return App(url, db_url, process, log)
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError(f"streamlit did not start: {log.read_text()[-2000:]}")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    running = start_app(tmp_path)
    yield running
    running.process.terminate()
    try:
        running.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        running.process.kill()


@pytest.fixture(scope="session")
def browser():  # noqa: ANN201 - playwright Browser
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (bash scripts/dev.sh test installs it)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, request):  # noqa: ANN001, ANN201 - playwright Page; screenshot kept when the test fails
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        SHOTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOTS / f"{request.node.name}.png"), full_page=True)
    context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):  # noqa: ANN001, ANN201
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


def wait_idle(page, timeout: float = 60_000) -> None:  # noqa: ANN001
    """Wait until Streamlit has finished the current run (no 'Running...' status widget)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout)
