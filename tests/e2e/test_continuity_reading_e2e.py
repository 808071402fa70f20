"""Continuity's second reader in a real browser (issue 32's LLM path): the app's extraction model is an OpenAI model
served by the test suite's stub server; on the Continuity page, with a chapter chosen, the reading box shows the
model and the price before anything is sent, and after "Read the chapter" the finding whose two sentences are in the
book, beside each other, while the one quoting a sentence the book does not have is left out and counted."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import no_exception, open_selectbox, patience, start_app, stop_app, wait_idle
from tests.support.continuity_farm import BOOK, FOUND
from tests.support.llm_server import LLMServer, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_a_chapter_read_by_the_configured_model_shows_only_what_the_book_holds(tmp_path: Path,  # noqa: ANN001
                                                                                browser) -> None:
    from core.services import kg_service, library
    from storage.repository import SqlStore
    store = SqlStore.from_url(f"sqlite:///{tmp_path / 'e2e.db'}")   # the file start_app points the app at
    work = library.import_book(store, "farm.txt", BOOK.encode()).id
    kg_service.build_graph(store, work)
    store.engine.dispose()
    with LLMServer() as server:
        invented = dict(FOUND, sentence="Bob barked at the moon all night.")
        server.default = Reply(json.dumps({"contradictions": [FOUND, invented]}))
        app = start_app(tmp_path, {"FABULA_LLM_EXTRACTION": "openai:gpt-4o-mini", "OPENAI_API_KEY": "sk-test",
                                   "OPENAI_BASE_URL": server.openai_url, "FABULA_WARM_UP": "0",
                                   "FABULA_OLLAMA_URL": "", "FABULA_LMSTUDIO_URL": ""})
        context = browser.new_context(viewport={"width": 1400, "height": 1400})
        try:
            page = context.new_page()
            page.set_default_timeout(patience(60_000))
            page.goto(f"{app.url}/continuity")
            page.get_by_role("heading", name="Continuity", level=1).wait_for()
            wait_idle(page)
            open_selectbox(page, "Chapter")
            page.get_by_role("option").filter(has_text="3.").first.click()
            wait_idle(page)
            page.get_by_text("Read chapter 3 with a language model").click()
            wait_idle(page)
            page.get_by_text("openai:gpt-4o-mini reads the chapter").wait_for()
            assert "$" in page.get_by_text("openai:gpt-4o-mini reads the chapter").inner_text()
            assert not [r for r in server.requests if r.path.endswith("/chat/completions")]   # nothing sent yet
            page.get_by_role("button", name="Read the chapter").click()
            wait_idle(page)
            finding = page.locator('[class*="st-key-continuity_read_0"]')
            finding.wait_for()
            text = finding.inner_text()
            assert "An attribute changes" in text and "Earlier, chapter 1" in text and "huge black dog" in text
            assert "little white terrier" in text and "read by openai:gpt-4o-mini" in text
            assert page.locator('[class*="st-key-continuity_read_1"]').count() == 0
            assert "left out" in page.locator('[data-testid="stAlert"]').all_inner_texts()[-1]
            no_exception(page)
        finally:
            context.close()
            stop_app(app)
