"""AppTest on the Write page with a small model that answers "continue this text" by talking about the text (seen in
the browser with SmolLM2: "In this continuation, you continue the story with a different direction. ..."): such a
reply is never shown as the continuation; a preamble before a real continuation is taken off and said; and next to
any continuation by an embedded model the page says what a model that small does and where a stronger one is set."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.llm import FakeLLM, register_provider, unregister_provider
from tests.app.conftest import page

BOOK = ("CHAPTER I.\n\nElena Voss found the dragon egg in her field. She carried it home to Millbrook before the "
        "rain, and set it by the fire.")
TALK = ("In this continuation, you continue the story with a different direction. I added a sentence of consequence "
        "to the previous paragraph. I hope this helps!")
STORY = "The egg cracked at midnight, and a small grey head looked out at the embers"  # no full stop: plain() escapes
REPLIES = {"talk": TALK, "preamble": "Here's the continuation of the text:\n\n" + STORY, "story": STORY}


def _open(monkeypatch: pytest.MonkeyPatch, kind: str) -> AppTest:
    from core.config import get_settings
    from core.services.library import import_book
    from views._shared import get_store
    register_provider("talker", lambda model, **kw: FakeLLM(lambda m, o: REPLIES[kind], model=model), embedded=True)
    monkeypatch.setenv("FABULA_LLM", "talker:small")
    get_settings.cache_clear()
    import_book(get_store(), "egg.txt", BOOK.encode())
    at = AppTest.from_file(page("write.py"), default_timeout=60)
    at.run()
    at.button(key="cont_go").click().run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def talker(app_db: str):  # noqa: ANN201
    yield
    unregister_provider("talker")


def test_talk_about_the_text_is_not_shown_as_the_continuation(talker: None, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(monkeypatch, "talk")
    shown = "\n".join(m.value for m in at.markdown)
    assert "In this continuation" not in shown   # not presented as the text
    assert any(w.value.startswith("Not a continuation") for w in at.warning)
    assert any("not a continuation of it" in e.label for e in at.expander)
    assert any("In this continuation" in c.value for c in at.caption)   # still readable, in the expander


def test_a_preamble_is_taken_off_and_said(talker: None, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(monkeypatch, "preamble")
    shown = "\n".join(m.value for m in at.markdown)
    assert STORY in shown and "Here's the continuation" not in shown
    assert any("taken off" in i.value for i in at.info)


def test_an_embedded_models_continuation_says_what_it_is(talker: None, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(monkeypatch, "story")
    assert STORY in "\n".join(m.value for m in at.markdown) and not at.warning
    assert any("Continued by the embedded model talker:small" in c.value and "Settings" in c.value
               for c in at.caption)
