"""Browser tests: `streamlit run app.py` on 127.0.0.1 with a temp database, driven by Playwright through Debian's
chromium (no browser download). Screenshots of failing tests land in tests/e2e/screenshots/."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.workers import beside_other_workers

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# The Ask page's heading over its result: "Answer", or "Closest passage" where the book's sentence does not answer
# (core.qa.confidence); level 3.
ANSWER_HEADING = re.compile(r"^(Answer|Closest passage)$")
SHOTS = ROOT / "tests" / "e2e" / "screenshots"
# Every wait's limit is multiplied by PATIENCE: 1 in one pytest process, 3 when pytest-xdist runs another worker
# beside the browser tests (FABULA_TEST_WORKERS=2): its model and graph tests take one of the two cores, and a server
# starved by them took more than the 60 s a wait allowed (CI, 2026-11-27). FABULA_E2E_PATIENCE sets it by hand.
PATIENCE = float(os.environ.get("FABULA_E2E_PATIENCE")
                 or (3 if beside_other_workers() else 1))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def patience(limit: float) -> float:
    """A wait's limit (milliseconds for Playwright, seconds elsewhere) on this run's machine share: see PATIENCE."""
    return limit * PATIENCE


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
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         # no file watcher: other work editing the tree must not rerun the app under test (and on this small machine
         # watching the repository overflowed inotify and burnt CPU)
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + patience(60)
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return App(url, db_url, process, log)
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError(f"streamlit did not start: {log.read_text()[-2000:]}")


def stop_app(running: App) -> None:
    running.process.terminate()
    try:
        running.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        running.process.kill()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    running = start_app(tmp_path)
    yield running
    stop_app(running)


@pytest.fixture(scope="module")
def module_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    """One app process (and database) shared by every test of a module: for flows that build on each other."""
    running = start_app(tmp_path_factory.mktemp("app"))
    yield running
    stop_app(running)


@pytest.fixture(scope="session")
def browser():  # noqa: ANN201 - playwright Browser
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (bash scripts/dev.sh test installs it)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def watch_console(pg) -> list[str]:  # noqa: ANN001 - playwright Page
    """Collect the page's uncaught exceptions, console errors and failed requests (the list grows as they happen;
    offline, the favicon Streamlit fetches from fonts.gstatic.com is one)."""
    seen: list[str] = []
    pg.on("pageerror", lambda exc: seen.append(f"pageerror: {exc}"))
    pg.on("console", lambda msg: seen.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None)
    pg.on("requestfailed", lambda req: seen.append(f"requestfailed: {req.url} ({req.failure})"))
    CONSOLE[id(pg)] = seen
    return seen


CONSOLE: dict[int, list[str]] = {}  # id(page) -> what watch_console saw, reported with a failing test


@pytest.fixture
def page(browser, request):  # noqa: ANN001, ANN201 - playwright Page; screenshot kept when the test fails
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(patience(30_000))
    watch_console(pg)
    yield pg
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        SHOTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOTS / f"{request.node.name}.png"), full_page=True)
    CONSOLE.pop(id(pg), None)
    context.close()


@pytest.fixture(scope="module")
def module_page(browser):  # noqa: ANN001, ANN201 - one playwright Page for a module's tests (one browser session, so
    # Streamlit's session state, e.g. the selected work, carries from test to test); a failing test's screenshot is
    # taken by pytest_runtest_makereport below, at the moment it fails
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(patience(30_000))
    watch_console(pg)
    yield pg
    CONSOLE.pop(id(pg), None)
    context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):  # noqa: ANN001, ANN201
    report = yield
    setattr(item, f"rep_{report.when}", report)
    if report.failed and report.when == "call":
        _report_failure(item, report)
    return report


def _report_failure(item, report) -> None:  # noqa: ANN001
    """A failing test gets the browser console and the app's log in its report, and a shared page's screenshot."""
    funcargs = getattr(item, "funcargs", {})
    for pg in (funcargs.get("page"), funcargs.get("module_page")):
        if pg is not None and CONSOLE.get(id(pg)):
            report.sections.append(("browser console", "\n".join(CONSOLE[id(pg)][-50:])))
    shared = funcargs.get("module_page")
    if shared is not None:
        try:
            SHOTS.mkdir(parents=True, exist_ok=True)
            shared.screenshot(path=str(SHOTS / f"{item.name}.png"), full_page=True)
            (SHOTS / f"{item.name}.html").write_text(shared.content())  # the DOM, for writing selectors
        except Exception as exc:  # noqa: BLE001 - a failed screenshot must not hide the test's own failure
            report.sections.append(("screenshot", f"no screenshot: {exc}"))
    for running in (funcargs.get("app"), funcargs.get("module_app")):
        if isinstance(running, App) and running.log.exists():
            report.sections.append(("streamlit log (tail)", running.log.read_text(errors="replace")[-4000:]))


def wait_idle(page, timeout: float | None = None) -> None:  # noqa: ANN001
    """Wait until Streamlit has finished the current run (no 'Running...' status widget, and the app's own script
    state, which Streamlit keeps on stApp for tests, is not running: a short run never shows the widget, and until it
    ends, elements of the previous run can still be on the page beside the new ones)."""
    timeout = patience(60_000) if timeout is None else timeout
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stStatusWidget"]')
                 && !['running', 'rerunRequested', 'stopRequested'].includes(
                        document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState)""", timeout=timeout)


def download(page, button):  # noqa: ANN001, ANN201 - playwright Page, Locator -> Download
    """Click a download button until a download starts, and the download: a click that lands while the page reruns
    hits a button about to be replaced and starts nothing (CI runs waited 60 s and 180 s for such clicks)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    wait_idle(page)
    for attempt in range(3):
        try:
            with page.expect_download(timeout=patience(20_000)) as done:
                button.click()
            return done.value
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            wait_idle(page)
    raise AssertionError("unreachable")


def open_selectbox(page, label: str):  # noqa: ANN001, ANN201 - playwright Locator
    """Open a selectbox's list as a user does (a click landing while the page redraws can be lost: click again);
    the selectbox."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    box = page.get_by_role("combobox", name=label)
    for _ in range(5):
        if box.get_attribute("aria-expanded") != "true":
            box.click()
        try:
            page.get_by_role("listbox").first.wait_for(timeout=patience(3_000))
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            wait_idle(page)
    return box


def choose_option(page, label: str, option: str) -> None:  # noqa: ANN001
    """Pick `option` in the selectbox `label`; its list is opened again if a rerun closed it before the option could
    be clicked (on two busy cores a rerun still due from the last click can land between the two)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    choice = page.get_by_role("option", name=option, exact=True)
    for attempt in range(4):
        open_selectbox(page, label)
        try:
            choice.click(timeout=patience(10_000))
            break
        except PlaywrightTimeout:
            if attempt == 3:
                raise
            page.keyboard.press("Escape")
            wait_idle(page)
    wait_idle(page)


def wait_for_outcome(page, locator, timeout: float | None = None) -> None:  # noqa: ANN001
    """Wait (long: local models load and run on 2 busy cores) for what a long run shows when it is done, then for the
    run to end."""
    timeout = patience(300_000) if timeout is None else timeout
    locator.wait_for(state="visible", timeout=timeout)
    wait_idle(page, timeout=timeout)


def open_page(page, title: str, timeout: float | None = None) -> None:  # noqa: ANN001
    """Go to a page the way a user does: its link in the sidebar (same session, so the selected work is kept); wait
    for the page's title and the end of its run."""
    timeout = patience(120_000) if timeout is None else timeout
    page.locator('[data-testid="stSidebar"] a').filter(has=page.get_by_text(title, exact=True)).click()
    page.get_by_role("heading", name=title, level=1, exact=True).wait_for(timeout=timeout)
    wait_idle(page, timeout=timeout)


def no_exception(page) -> None:  # noqa: ANN001
    """Fail on a Streamlit exception box on the page, or an uncaught script error in it (when watch_console is on)."""
    boxes = page.locator('[data-testid="stException"]')
    assert boxes.count() == 0, boxes.first.inner_text()[:2000]
    crashed = [e for e in CONSOLE.get(id(page), []) if e.startswith("pageerror")]
    assert not crashed, crashed


def upload(page, files, timeout: float | None = None) -> None:  # noqa: ANN001 - a path or Playwright file payloads
    """Choose file(s) in the page's uploader and wait until the browser has sent them to the server (the file chip
    is shown and its spinner gone). A form submitted while the upload is still on its way can reach the script
    without the file, so tests click a form's button only after this."""
    timeout = patience(60_000) if timeout is None else timeout
    page.locator("input[type=file]").set_input_files(files)
    page.locator('[data-testid="stFileChip"]').first.wait_for(timeout=timeout)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')",
                           timeout=timeout)
    wait_idle(page, timeout=timeout)
