"""AppTest on the Library page with hostile file names (see tests/fixtures/hostile): what the page passes to Streamlit's
Markdown must not turn a file name into a link or markup."""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from tests.app.conftest import page

LINK_NAME = "[click me](https:evil.example).txt"  # no slash: a name loses everything up to one
LIVE_LINK = re.compile(r"(?<!\\)\[[^\]\n]*(?<!\\)\]\(")  # [text]( with neither bracket escaped


def test_a_rejected_file_name_is_not_rendered_as_a_link(app_db: str) -> None:
    at = AppTest.from_file(page("library.py"), default_timeout=30)
    at.run()
    at.file_uploader[0].upload(LINK_NAME, b"", "text/plain")
    next(b for b in at.button if b.label == "Import").click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert errors and "empty" in errors[0], errors
    assert not LIVE_LINK.search(errors[0]), f"the file name is a live Markdown link: {errors[0]!r}"
