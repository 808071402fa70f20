"""In a real browser: the sample book is there on first start; importing a novel lists it; reading works;
a hostile file name and a binary file never inject markup or break the page."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_missing
from tests.e2e.conftest import upload, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
NOVELS = Path(__file__).resolve().parents[3] / "shared" / "data" / "novels" / "txt"


def _import(page, path: Path | None = None, name: str | None = None, data: bytes | None = None) -> None:  # noqa: ANN001
    if not page.get_by_role("button", name="Import").is_visible():
        page.get_by_text("Import a book").click()
    if path is not None:
        upload(page, str(path))
    else:
        upload(page, [{"name": name, "mimeType": "text/plain", "buffer": data}])
    page.get_by_role("button", name="Import").click()
    wait_idle(page)


def test_sample_then_import_a_novel_and_read_it(app, page) -> None:  # noqa: ANN001
    page.goto(f"{app.url}/library")
    page.get_by_text("A Christmas Carol").first.wait_for()
    book = NOVELS / "the_call_of_the_wild_pg215.txt"
    if not book.exists():
        pytest.skip(shared_missing(book))
    _import(page, path=book)
    page.get_by_text("The Call of the Wild").first.wait_for()
    assert page.get_by_text("7 chapters").count() >= 1
    page.get_by_role("button", name="Open").nth(1).click()
    page.get_by_text("Into the Primitive").first.wait_for()
    page.get_by_text("Buck did not read the newspapers").first.wait_for()


def test_bad_files_show_a_message_and_inject_nothing(app, page) -> None:  # noqa: ANN001
    page.goto(f"{app.url}/library")
    page.get_by_text("A Christmas Carol").first.wait_for()
    fired: list[str] = []
    page.on("dialog", lambda d: (fired.append(d.message), d.dismiss()))
    _import(page, name="cover.txt", data=b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 16)
    page.get_by_text("nothing was saved").first.wait_for()
    page.get_by_text("This file is a PNG image, not text").first.wait_for()  # the reason is shown, not folded away
    _import(page, name="<img src=x onerror=alert(1)>.txt",
            data=b"CHAPTER I.\n\n" + b"Words of a story about <b>bold</b> people. " * 60)
    wait_idle(page)
    assert fired == [], "a script from a file name ran"
    assert page.locator("img[src=x]").count() == 0
