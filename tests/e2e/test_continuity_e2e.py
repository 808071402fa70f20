"""The Continuity view in a real browser (issue 32): The Call of the Wild with a late chapter edited so that Spitz,
killed in chapter 3, runs beside Buck; the view lists it with both sentences; marking it intended hides it, also
after the graph is rebuilt; and on the Write page a new chapter drafted by hand that contradicts chapter 1 shows the
conflict before it is saved. The book is imported, built and edited through the services, into the app's database."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_missing
from tests.e2e.conftest import no_exception, open_page, open_selectbox, patience, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
NOVEL = Path(__file__).resolve().parents[3] / "shared" / "data" / "novels" / "txt" / "the_call_of_the_wild_pg215.txt"
TITLE = "The Call of the Wild"
ANCHOR = "Thornton knelt down by Buck's side."
PLANT = "Spitz ran beside Buck along the river bank, snarling at every dog that came near."
STORY = "The Lighthouse"
FIRST = ("Old Tom kept the lighthouse on the point for forty years. Old Tom died in the great storm of that winter, "
         "and the fishermen buried him on the hill above the harbour. Mary Hale took over the lamp.")
DRAFT = "In the spring Old Tom climbed the stairs of the lighthouse and lit the lamp himself."


@pytest.fixture(scope="module")
def works(module_app) -> dict[str, int]:  # noqa: ANN001
    if not NOVEL.exists():
        pytest.skip(shared_missing(NOVEL))
    from core.domain import ChapterSource, NewChapter
    from core.ingest.chunking import chunk_text
    from core.services import kg_service, library, write_service
    from core.write.params import WriteParams
    from storage.repository import SqlStore
    store = SqlStore.from_url(module_app.db_url)
    wild = library.import_book(store, NOVEL.name, NOVEL.read_bytes()).id
    kg_service.build_graph(store, wild)
    chapter = next(store.get_chapter(wild, c.index) for c in store.list_chapters(wild)
                   if ANCHOR in " ".join(store.get_chapter(wild, c.index).text.split()))
    text = chapter.text.replace("Thornton knelt down by Buck's side.", f"Thornton knelt down by Buck's side. {PLANT}")
    assert text != chapter.text
    library.edit_chapter(store, wild, chapter.index, text, chapter.revision)
    kg_service.update_chapter_graph(store, wild, chapter.index)
    story = write_service.start_story(store, STORY, WriteParams(premise="A lighthouse keeper's last winter.",
                                                                arc="Rags to Riches", extractor="offline"))
    store.add_chapter(story.id, NewChapter("The storm", FIRST, chunk_text(FIRST), ChapterSource.WRITTEN))
    kg_service.build_graph(store, story.id)
    store.engine.dispose()
    return {"wild": wild, "story": story.id, "chapter": chapter.index}


def _choose_work(page, title: str, work_id: int) -> None:  # noqa: ANN001
    box = open_selectbox(page, "Work")
    option = f"{title} (#{work_id})"
    box.fill(option)
    page.get_by_role("option").filter(has_text=option).first.click()
    wait_idle(page)


def test_the_view_lists_spitz_running_after_his_death_and_intended_survives_a_rebuild(module_app, module_page,
                                                                                      works) -> None:  # noqa: ANN001
    page = module_page
    page.goto(f"{module_app.url}/library")
    page.get_by_text(TITLE).first.wait_for(timeout=patience(120_000))
    wait_idle(page)
    open_page(page, "Continuity")
    _choose_work(page, TITLE, works["wild"])
    flag = page.locator('[class*="st-key-continuity_flag_"]').filter(has_text="Spitz ran beside Buck").first
    flag.wait_for(timeout=patience(60_000))
    no_exception(page)
    text = flag.inner_text()
    assert "A dead character acts" in text and "Spitz" in text
    assert "Earlier, chapter 3" in text and "Spitz disappeared from view" in text   # where he was killed
    assert f"Here, chapter {works['chapter']}" in text
    flag.get_by_role("button", name="Mark intended").click()
    wait_idle(page)
    assert page.locator('[class*="st-key-continuity_flag_"]').filter(has_text="Spitz ran beside Buck").count() == 0
    from core.services import kg_service
    from storage.repository import SqlStore
    store = SqlStore.from_url(module_app.db_url)
    kg_service.build_graph(store, works["wild"], force=True)   # a rebuild: every chapter read and checked again
    store.engine.dispose()
    page.reload()
    page.get_by_role("heading", name="Continuity", level=1).wait_for(timeout=patience(60_000))
    wait_idle(page)
    no_exception(page)
    assert page.locator('[class*="st-key-continuity_flag_"]').filter(has_text="Spitz ran beside Buck").count() == 0
    assert "marked intended" in page.get_by_text("marked intended").first.inner_text()


def test_a_draft_that_contradicts_chapter_one_shows_the_conflict_before_it_is_saved(module_app, module_page,
                                                                                   works) -> None:  # noqa: ANN001
    page = module_page
    open_page(page, "Write")
    _choose_work(page, STORY, works["story"])
    page.get_by_text("Write a chapter yourself").click()
    area = page.get_by_role("textbox", name="Chapter", exact=True)
    area.fill(DRAFT)
    area.press("Control+Enter")
    wait_idle(page)
    box = page.locator(".st-key-write_continuity")
    box.wait_for(timeout=patience(120_000))
    no_exception(page)
    text = box.inner_text()
    assert "1 conflict" in text and "Old Tom" in text and "contradicts chapter 1" in text
