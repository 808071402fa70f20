"""What a new user meets (issue 16), in the browser on a freshly started server: the menu has its proper titles from
the first moment, Home says what Fabula is and offers three starts, the reader lands at the top of the next chapter
and at the passage a citation shows, and Enter in the new-story form creates nothing."""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import ANSWER_HEADING, App, no_exception, open_page, patience, start_app, stop_app, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
TITLES = {"Home", "Library", "Read", "Graph", "Ask the book", "Summaries", "Write", "Retention", "Settings"}
# Every text any link in the sidebar ever shows, recorded from before the page's own scripts run.
RECORD_MENU = """
  window.__menu = new Set();
  new MutationObserver(() => document.querySelectorAll('[data-testid="stSidebar"] a')
      .forEach(a => window.__menu.add(a.innerText.split('\\n').pop().trim())))
    .observe(document, {subtree: true, childList: true, characterData: true});
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    running = start_app(tmp_path_factory.mktemp("first"), {"FABULA_LLM": "fake:echo", "FABULA_WARM_UP": "0"})
    yield running
    stop_app(running)


@pytest.fixture(scope="module")
def tab(browser, fresh: App):  # noqa: ANN001, ANN201 - one playwright Page: the first visit, then the tests after it
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(patience(60_000))
    pg.add_init_script(RECORD_MENU)
    yield pg
    context.close()


def _in_view(page, locator) -> bool:  # noqa: ANN001
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 100) <= page.viewport_size["height"]


def _home(page) -> None:  # noqa: ANN001 - Home's heading is the app's name, not the menu's title
    page.locator('[data-testid="stSidebar"] a').filter(has=page.get_by_text("Home", exact=True)).click()
    page.get_by_role("heading", name="Fabula", level=1).wait_for()
    wait_idle(page)


def _until(ready, seconds: float) -> None:  # noqa: ANN001 - poll a condition of the page until it holds or time is up
    deadline = time.time() + seconds
    while time.time() < deadline and not ready():
        time.sleep(0.25)


def _main_scroll(page) -> float:  # noqa: ANN001
    return page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollTop")


def test_first_visit_menu_titles_and_home(fresh: App, tab) -> None:  # noqa: ANN001
    tab.goto(fresh.url)
    tab.get_by_role("heading", name="Fabula", level=1).wait_for(timeout=patience(120_000))
    wait_idle(tab)
    no_exception(tab)
    seen = set(tab.evaluate("Array.from(window.__menu)"))
    raw = sorted(t for t in seen if t == t.lower())  # "app", "shared", "graph component": file names, not titles
    assert not raw and TITLES <= seen, f"the menu showed the file names {raw} or lacked {TITLES - seen}"
    for start in ("Open A Christmas Carol", "Import a book", "Start a story"):
        tab.get_by_role("button", name=start).wait_for()
    tab.get_by_text("need a stronger model").wait_for()
    settings = tab.locator('[data-testid="stMain"] a').filter(has_text="Settings")
    settings.first.click()
    tab.get_by_role("heading", name="Settings", level=1).wait_for()
    wait_idle(tab)

    _home(tab)
    tab.get_by_role("button", name="Open A Christmas Carol").click()
    tab.get_by_role("heading", name="Read", level=1).wait_for()
    wait_idle(tab)
    assert tab.get_by_role("combobox", name="Work").input_value().startswith("A Christmas Carol")
    assert tab.get_by_role("combobox", name="Chapter").input_value().startswith("1. ")


def test_next_lands_at_the_top_of_the_next_chapter(tab) -> None:  # noqa: ANN001
    open_page(tab, "Read")
    tab.get_by_role("button", name="Next →").scroll_into_view_if_needed()  # the end of chapter 1
    assert _main_scroll(tab) > 1000
    tab.get_by_role("button", name="Next →").click()
    wait_idle(tab)
    # on a busy machine the scroll to the top lands after the run ends: wait for it (up to 15 s) rather than 1 s
    _until(lambda: tab.get_by_role("combobox", name="Chapter").input_value().startswith("2. ")
           and _main_scroll(tab) < 50, 15)
    assert tab.get_by_role("combobox", name="Chapter").input_value().startswith("2. ")
    assert _main_scroll(tab) < 50, "the next chapter opens at its start, not where the last one was left"
    assert _in_view(tab, tab.get_by_role("combobox", name="Chapter"))


def test_show_in_reader_scrolls_to_the_passage(tab) -> None:  # noqa: ANN001
    open_page(tab, "Ask the book")
    tab.get_by_role("textbox", name="Question").fill("What does Marley's ghost carry in his chains?")
    tab.get_by_role("radio", name="rag").check(force=True)
    tab.get_by_role("button", name="Ask").click()
    # the first question embeds the sample's passages with MiniLM (a minute on two busy cores)
    tab.get_by_role("heading", name=ANSWER_HEADING, level=3).wait_for(timeout=patience(300_000))
    wait_idle(tab, timeout=patience(300_000))
    buttons = tab.get_by_role("button", name="Show in reader")
    assert buttons.count() >= 1
    buttons.last.click()  # the least likely to sit at a chapter's start
    tab.get_by_role("heading", name="Read", level=1).wait_for()
    wait_idle(tab)
    tab.wait_for_timeout(1_500)
    passage = tab.locator(".st-key-read_highlight")
    passage.wait_for()
    assert _in_view(tab, passage), "the highlighted passage is on screen without scrolling"
    no_exception(tab)


def test_enter_in_the_new_story_form_creates_nothing(fresh: App, tab) -> None:  # noqa: ANN001
    from storage.repository import SqlStore
    store = SqlStore.from_url(fresh.db_url)
    before = len(store.list_works())
    _home(tab)
    tab.get_by_role("button", name="Start a story").click()
    tab.get_by_role("heading", name="Write", level=1).wait_for()
    wait_idle(tab)
    tab.get_by_role("textbox", name="Title").first.fill("Enter test")
    box = tab.get_by_role("spinbutton", name="At most chapters")
    box.fill("3")
    box.press("Enter")
    wait_idle(tab)
    tab.wait_for_timeout(1_000)
    assert len(store.list_works()) == before, "Enter in a number box must not start a story"
    tab.get_by_role("button", name="Start", exact=True).click()
    wait_idle(tab)
    tab.get_by_text("Started “Enter test”").wait_for()
    assert len(store.list_works()) == before + 1


def test_the_uploader_states_the_real_limit(fresh: App, tab) -> None:  # noqa: ANN001
    _home(tab)
    tab.get_by_role("button", name="Import a book").click()
    tab.get_by_role("heading", name="Library", level=1).wait_for()
    wait_idle(tab)
    tab.get_by_text("25MB per file").wait_for()
    assert tab.get_by_text("200MB").count() == 0
