"""Two people using one Fabula at once, in two browser contexts (two Streamlit sessions) against one app and one
SQLite file:

- on different works: one builds a graph while the other imports a book and then builds another graph; everything
  finishes, and "database is locked" appears nowhere (pages or the server log);
- on one work: both edit the same chapter from the same revision (the second save is refused with a clear message,
  keeps its typed text, and the first edit stays); one edits a chapter while the other rebuilds the graph, and the
  graph afterwards reflects the edited chapter (a build that read the old text never marks the new revision read).

Runs of both tests overlap for real: the first asserts it with the rows' timestamps, the second saves the edit while
the build's job is running (polled in the database).
"""
from __future__ import annotations

import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.domain import JobStatus, NewChapter, WorkKind
from core.ingest import chunk_text, read_book
from tests.conftest import shared_missing
from tests.e2e.conftest import SHOTS, App, patience, start_app, upload, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
NOVELS = Path(__file__).resolve().parents[3] / "shared" / "data" / "novels" / "txt"
NEW_NAME = "Captain Zebulon Quartermaine"
ADDED = f"\n\n{NEW_NAME} came north to the Klondike and bought Buck for a sled."


def _novel(name: str, chapters: int) -> list[NewChapter]:
    path = NOVELS / name
    if not path.exists():
        pytest.skip(shared_missing(path))
    book = read_book(path.name, path.read_bytes())
    return [NewChapter(c.title, c.text, chunk_text(c.text)) for c in book.chapters[:chapters]]


class Shared:
    def __init__(self, app: App, works: dict[str, int]) -> None:
        self.app, self.works = app, works

    def store(self):  # noqa: ANN201 - storage.repository.SqlStore on the app's database (another connection)
        from storage.repository import SqlStore
        return SqlStore.from_url(self.app.db_url)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    from storage.repository import SqlStore
    tmp = tmp_path_factory.mktemp("concurrency")
    store = SqlStore.from_url(f"sqlite:///{tmp / 'e2e.db'}")  # the file start_app points the app at
    works = {"Wild": store.create_work("Wild", "Jack London", WorkKind.BOOK, {},
                                       _novel("the_call_of_the_wild_pg215.txt", 5)).id,
             "Alice": store.create_work("Alice", "Lewis Carroll", WorkKind.BOOK, {},
                                        _novel("alice_in_wonderland_pg11.txt", 4)).id}
    store.engine.dispose()
    app = start_app(tmp, {"FABULA_LLM": "fake:echo"})  # no LLM is used here; nothing may load a model
    try:
        yield Shared(app, works)
    finally:
        app.process.terminate()
        try:
            app.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            app.process.kill()


@pytest.fixture
def two(browser, request) -> Iterator[tuple]:  # noqa: ANN001 - two sessions: separate browser contexts
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
    pages = [c.new_page() for c in contexts]
    for p in pages:
        p.set_default_timeout(patience(60_000))
    yield tuple(pages)
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        SHOTS.mkdir(parents=True, exist_ok=True)
        for name, p in zip("ab", pages):
            p.screenshot(path=str(SHOTS / f"{request.node.name}_{name}.png"), full_page=True)
    for c in contexts:
        c.close()


def _clean(page, app: App) -> None:  # noqa: ANN001
    body = page.locator("body").inner_text()
    assert "database is locked" not in body.lower()
    assert page.locator("[data-testid='stException']").count() == 0, "a traceback on the page"
    log = Path(app.log).read_text(errors="replace")
    assert "database is locked" not in log.lower(), log[-3000:]
    assert "Traceback" not in log, log[-3000:]


def _open(page, app: App, path: str) -> None:  # noqa: ANN001
    page.goto(f"{app.url}/{path}")
    page.locator("[data-testid='stSelectbox']").first.wait_for()
    wait_idle(page)


def _go(page, title: str) -> None:  # noqa: ANN001 - by the sidebar: the session (and its chosen work) is kept
    page.get_by_role("link", name=title).click()
    wait_idle(page)


def _select(page, label: str, option: str) -> None:  # noqa: ANN001 - a selectbox by its label text
    """Open the selectbox and pick `option`; opened again if a rerun that was still due (a save's) closed its list."""
    box = page.locator("[data-testid='stSelectbox']").filter(has_text=label).first
    choice = page.get_by_role("option", name=option).first
    for _ in range(3):
        box.click()
        try:
            choice.wait_for(timeout=patience(10_000))
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: the list closed under a rerun
            page.keyboard.press("Escape")
            wait_idle(page)
    choice.click()
    wait_idle(page)


def _building(page) -> None:  # noqa: ANN001 - click Build (the panel is opened if closed), without waiting
    if not page.get_by_role("button", name="Build graph").is_visible():
        page.get_by_text("Build or update the graph").first.click()
    page.get_by_role("button", name="Build graph").click()


def _built(page) -> str:  # noqa: ANN001 - the finished build's status label
    wait_idle(page, timeout=patience(150_000))
    label = page.locator("[data-testid='stExpander'] summary").filter(has_text=" entities, ").first
    label.wait_for(timeout=patience(300_000))  # two builds and an import share 2 cores: 60 s was too short
    return label.inner_text()


def test_two_sessions_on_different_works_at_once(shared: Shared, two) -> None:  # noqa: ANN001
    a, b = two
    app = shared.app
    _open(a, app, "graph")
    _select(a, "Work", "Wild")
    _building(a)  # a builds "Wild" (5 long chapters) ...
    a.get_by_text("Building the graph").first.wait_for()
    b.goto(f"{app.url}/library")  # ... while b imports a book
    b.get_by_text("Import a book").click()
    upload(b, str(NOVELS / "the_legend_of_sleepy_hollow_pg41.txt"))
    b.get_by_role("button", name="Import").click()
    wait_idle(b, timeout=patience(120_000))
    b.get_by_text("The Legend of Sleepy Hollow").first.wait_for()
    _go(b, "Graph")  # ... and then builds "Alice"
    _select(b, "Work", "Alice")
    _building(b)
    assert "entities" in _built(a) and "entities" in _built(b)
    for p in (a, b):
        _clean(p, app)
    store = shared.store()
    for title, chapters in (("Wild", 5), ("Alice", 4)):
        work_id = shared.works[title]
        assert store.kg_extracted_chapters(work_id) == {i: (1, "offline") for i in range(1, chapters + 1)}
        assert store.latest_job(work_id, "kg_build").status == JobStatus.DONE
        assert len(store.kg_entities(work_id)) > 10
    imported = [w for w in store.list_works() if w.title == "The Legend of Sleepy Hollow"]
    assert len(imported) == 1 and imported[0].chapter_count >= 1
    store.engine.dispose()
    # what the test is about: b's import and b's build both happened while a's build was running
    with sqlite3.connect(app.db_url.removeprefix("sqlite:///")) as db:
        wild_start, wild_end = db.execute("SELECT created_at, updated_at FROM jobs WHERE kind = 'kg_build' AND "
                                          "work_id = ?", (shared.works["Wild"],)).fetchone()
        (alice_start,) = db.execute("SELECT created_at FROM jobs WHERE kind = 'kg_build' AND work_id = ?",
                                    (shared.works["Alice"],)).fetchone()
        (imported_at,) = db.execute("SELECT created_at FROM works WHERE id = ?", (imported[0].id,)).fetchone()
    assert wild_start < imported_at < wild_end and wild_start < alice_start < wild_end, (
        wild_start, imported_at, alice_start, wild_end)


def _editor(page, chapter: str) -> None:  # noqa: ANN001 - the Read page's editor open on a chapter of "Wild"
    _select(page, "Work", "Wild")
    _select(page, "Chapter", chapter)
    if not page.get_by_label("Chapter text").is_visible():
        page.get_by_text("Edit chapter").click()
        wait_idle(page)
    page.get_by_label("Chapter text").wait_for()


def _type(page, text: str) -> None:  # noqa: ANN001 - replace the editor's text (committed, as on leaving the box)
    box = page.get_by_label("Chapter text")
    box.fill(text)
    box.press("Control+Enter")
    wait_idle(page)


def _save(page) -> None:  # noqa: ANN001
    page.get_by_role("button", name="Save", exact=True).click()
    wait_idle(page)


def _wait_for_chapter_stored(app: App, work_id: int, after_job: int, timeout: float = 120) -> None:
    """Until the first kg_build job of `work_id` after `after_job` has stored a chapter: its texts are read by then."""
    deadline = time.monotonic() + patience(timeout)
    with sqlite3.connect(app.db_url.removeprefix("sqlite:///")) as db:
        while time.monotonic() < deadline:
            row = db.execute("SELECT done, status FROM jobs WHERE kind = 'kg_build' AND work_id = ? AND id > ? "
                             "ORDER BY id LIMIT 1", (work_id, after_job)).fetchone()
            if row and row[0] >= 1:
                assert row[1] == JobStatus.RUNNING.value, "the build ended before the edit could land in it"
                return
            time.sleep(0.02)
    raise AssertionError("the build did not store a chapter in time")


def test_two_sessions_on_one_work_edit_and_rebuild(shared: Shared, two) -> None:  # noqa: ANN001
    a, b = two
    app, work_id = shared.app, shared.works["Wild"]
    store = shared.store()
    chapter2, last = store.get_chapter(work_id, 2), store.get_chapter(work_id, 5)
    assert chapter2.revision == last.revision == 1
    # both open chapter 2 at revision 1; a saves first, then b
    for p in (a, b):
        _open(p, app, "read")
        _editor(p, "2. Chapter II")
    _type(a, chapter2.text + "\n\nEdited in session A.")
    _type(b, chapter2.text + "\n\nEdited in session B.")
    _save(a)
    a.get_by_text("Saved as revision 2").first.wait_for()
    _save(b)
    b.get_by_text("changed since you opened it").first.wait_for()
    assert b.get_by_label("Chapter text").input_value().endswith("Edited in session B.")  # b's text is kept
    saved = store.get_chapter(work_id, 2)
    assert saved.revision == 2 and saved.text.endswith("Edited in session A.")
    assert [r[0] for r in store.chapter_revisions(work_id, 2)] == [1, 2]
    # a edits the last chapter while b re-reads every chapter into the graph; a's save lands after the build has
    # read the chapter texts (they are read before chapter 1 is stored) and before it reaches the last chapter
    _editor(a, "5. Chapter V")
    _type(a, last.text + ADDED)
    _go(b, "Graph")
    b.get_by_text("Re-read every chapter").click()
    wait_idle(b)
    jobs = store.latest_job(work_id, "kg_build")
    _building(b)
    _wait_for_chapter_stored(app, work_id, jobs.id if jobs else 0)
    _save(a)
    a.get_by_text("Saved as revision 2").first.wait_for()
    assert store.get_chapter(work_id, 5).revision == 2
    label = _built(b)
    assert "entities" in label, label
    for p in (a, b):
        _clean(p, app)
    # the graph reflects the edit: the last chapter's new revision is marked read, and only with its new text
    extracted = store.kg_extracted_chapters(work_id)
    assert extracted == {1: (1, "offline"), 2: (2, "offline"), 3: (1, "offline"), 4: (1, "offline"),
                         5: (2, "offline")}, extracted
    mentioned = {n.name for n in store.kg_name_counts(work_id) if n.chapter_index == 5}
    assert NEW_NAME in mentioned, sorted(mentioned)[:40]
    from core.services import kg_service
    status = kg_service.graph_status(store, work_id)
    assert status.up_to_date and not status.unfinished_job
    assert store.latest_job(work_id, "kg_build").status == JobStatus.DONE
    store.engine.dispose()
