"""The Graph page's export box and its download agree (issue 16): a format chosen, another work without a graph
opened, then the first work again: the box showed "json" while the button still downloaded a lorebook."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from tests.e2e.conftest import download, no_exception, open_selectbox, patience, start_app, stop_app, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
TEXTS = ["Anna Grey walked to the harbour with Thomas Reed. Thomas Reed gave Anna Grey a letter from London.",
         "Captain Hale sailed from London to Lisbon. Anna Grey wrote to Captain Hale about the storm."]


def _pick(page, label: str, option: str) -> None:  # noqa: ANN001
    """Open the select box and choose `option`; a rerun that lands while it is open closes the list (a CI run waited
    180 s for the "lorebook" option once), so it is opened again, up to three times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    for attempt in range(3):
        wait_idle(page)
        open_selectbox(page, label)
        try:
            page.get_by_role("option", name=option).click(timeout=patience(20_000))
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    wait_idle(page)


def _download(page) -> tuple[str, str]:  # noqa: ANN001 - (file name, first characters)
    got = download(page, page.locator('[data-testid="stDownloadButton"] button').last)
    wait_idle(page)
    return got.suggested_filename, Path(got.path()).read_text()[:200]


def test_the_export_box_and_the_download_agree_after_switching_work(tmp_path: Path, browser) -> None:  # noqa: ANN001
    from core.services.kg_service import build_graph
    from storage.repository import SqlStore
    store = SqlStore.from_url(f"sqlite:///{tmp_path / 'e2e.db'}")  # the file start_app points the app at
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(TEXTS, start=1)]
    built = store.create_work("Harbour", None, WorkKind.BOOK, {}, chapters)
    store.create_work("Unbuilt", None, WorkKind.BOOK, {}, chapters[:1])
    build_graph(store, built.id)
    store.engine.dispose()
    app = start_app(tmp_path, {"FABULA_LLM": "fake:echo", "FABULA_WARM_UP": "0"})
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    try:
        page = context.new_page()
        page.set_default_timeout(patience(60_000))
        page.goto(f"{app.url}/graph")
        page.get_by_role("heading", name="Graph", level=1).wait_for()
        wait_idle(page)
        _pick(page, "Work", f"Harbour (#{built.id})")
        _pick(page, "Export format", "lorebook")
        assert _download(page)[0].endswith(".lorebook.json")
        _pick(page, "Work", "Unbuilt (#2)")
        page.get_by_text("No graph yet").wait_for()
        _pick(page, "Work", f"Harbour (#{built.id})")
        shown = page.get_by_role("combobox", name="Export format").input_value()
        name, body = _download(page)
        assert name.endswith(".lorebook.json") == (shown == "lorebook"), (shown, name)
        assert ('"entries"' in body) == (shown == "lorebook"), (shown, body)
        no_exception(page)
    finally:
        context.close()
        stop_app(app)
