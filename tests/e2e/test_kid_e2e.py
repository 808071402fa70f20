"""KID in a real browser (issue 37): a KID continuation on the embedded SmolLM2 runs in the background worker; the page
shows its progress in tokens and a Stop; a click on Stop ends it with what was written kept and said so (the overlay
of the steered words and "stopped before the end"); after a reload (a new session) the result is still there to save.

The work and its offline graph are stored before the app starts; FABULA_LLM=local:smollm2 (KID needs its logits).
The first KID run makes the float32 copy of the model when it is missing (20-70 s), then about 3 tokens a second on
two busy cores: 300 tokens asked, so Stop lands midway."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from tests.e2e.conftest import App, no_exception, open_page, patience, start_app, stop_app, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
TEXT = ("Marley was dead, to begin with. Scrooge signed the register of his burial, and Scrooge's name was good "
        "upon 'Change.\n\nScrooge never painted out old Marley's name. There it stood, years afterwards, above the "
        "warehouse door: Scrooge and Marley.\n\nThe ghost of Marley came through the heavy door and looked at Scrooge.")
ASKED = 300
RUNNING = re.compile(rf"Continuing the text… (\d+) of {ASKED} tokens")
MODEL_RUN = 300_000


@pytest.fixture(scope="module")
def kid_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    from core.services.kg_service import build_graph
    from storage.repository import SqlStore
    tmp = tmp_path_factory.mktemp("kid")
    store = SqlStore.from_url(f"sqlite:///{tmp / 'e2e.db'}")  # the file start_app points the app at
    work = store.create_work("Carol", None, WorkKind.BOOK, {}, [NewChapter("Stave One", TEXT, chunk_text(TEXT))])
    build_graph(store, work.id)
    store.engine.dispose()
    app = start_app(tmp, {"FABULA_LLM": "local:smollm2", "FABULA_WARM_UP": "0"})
    yield app
    stop_app(app)


def test_a_kid_continuation_shows_progress_and_stops_keeping_its_text(kid_app: App, page) -> None:  # noqa: ANN001
    page.goto(kid_app.url)
    page.get_by_role("heading", name="Fabula", level=1).wait_for(timeout=patience(120_000))
    wait_idle(page)
    open_page(page, "Write")
    page.get_by_role("heading", name="Continue from the cursor").wait_for()
    page.get_by_text("Fact-steered words (KID)", exact=True).click()
    wait_idle(page)
    page.get_by_role("spinbutton", name="How far to follow facts").wait_for()  # KID's settings, in plain words
    tokens = page.get_by_role("spinbutton", name="Max new tokens", exact=True)
    tokens.fill(str(ASKED))
    tokens.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Continue", exact=True).click()

    progress = page.get_by_text(RUNNING).first   # the job panel, redrawn by itself every 2 s
    progress.wait_for(timeout=MODEL_RUN)
    page.wait_for_function(  # a few tokens written: the count moves without a click
        """(asked) => {
             const m = document.body.innerText.match(new RegExp('Continuing the text… (\\\\d+) of ' + asked));
             return m && Number(m[1]) >= 3; }""", arg=ASKED, timeout=MODEL_RUN)
    done = int(RUNNING.search(progress.inner_text()).group(1))
    assert 3 <= done < ASKED
    assert page.get_by_role("button", name="Continue", exact=True).is_disabled(), "one job on a work at a time"
    page.get_by_role("button", name="Stop").click()

    stopped = page.get_by_text(re.compile(rf"Stopped after (\d+) of {ASKED} tokens: what was written is kept"))
    stopped.first.wait_for(timeout=patience(120_000))
    wait_idle(page)
    kept = int(re.search(r"Stopped after (\d+)", stopped.first.inner_text()).group(1))
    assert done <= kept < ASKED
    page.get_by_text("Generation stopped before the end", exact=False).first.wait_for()
    overlay = page.locator(".kid-overlay").first
    overlay.wait_for()
    text = overlay.inner_text().strip()
    assert text, "what was written before Stop is shown"
    no_exception(page)

    page.reload()   # a new session on the same page: the result waits in the work
    page.get_by_role("heading", name="Write", level=1).wait_for(timeout=patience(120_000))
    wait_idle(page)
    page.locator(".kid-overlay").first.wait_for()
    assert page.locator(".kid-overlay").first.inner_text().strip() == text
    page.get_by_role("button", name="Save as a new revision").click()
    page.get_by_text(re.compile(r"Chapter 1 has 2 revisions\.")).wait_for()
    wait_idle(page)
    no_exception(page)
