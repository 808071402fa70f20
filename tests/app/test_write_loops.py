"""AppTest on the Write page with a writer that loops (issue 37): the draft shows the text up to where the loop began,
says above the box that repetition was cut, and shows the whole draft; a continuation that loops is cut the same way
with its note."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.llm import FakeLLM, register_provider, unregister_provider
from tests.app.conftest import finish_jobs, page

GOOD = "Elena Voss found the dragon egg in her field.\n\nShe carried it home to Millbrook before the rain."
LOOP = " The egg was warm in her hands." * 30


def _reply(messages, options) -> str:  # noqa: ANN001 - the FakeLLM reply function
    if "Continue this text" in messages[-1].content:
        return "The egg cracked at midnight." + LOOP
    return GOOD + LOOP + "\nSTORY STATUS: CONTINUE"


@pytest.fixture
def looping(app_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.config import get_settings
    register_provider("apptest", lambda model, **kw: FakeLLM(_reply, model=model))
    monkeypatch.setenv("FABULA_LLM", "apptest:writer")
    get_settings.cache_clear()
    yield
    unregister_provider("apptest")


def test_a_looping_draft_is_cut_and_says_so_above_the_whole_draft(looping: None) -> None:
    from views._shared import get_store
    at = AppTest.from_file(page("write.py"), default_timeout=60)
    at.run()
    at.text_input(key="new_title").input("The Egg")
    at.button(key="new_start").click().run()
    finish_jobs(at.button(key="write_next").click().run())
    assert not at.exception, at.exception
    draft = at.text_area(key="write_text").value
    assert draft == GOOD + " The egg was warm in her hands."  # the first occurrence kept, the loop gone
    warnings = [w.value for w in at.warning if "Repetition cut" in w.value]
    assert warnings and "30 times" in warnings[0] and "The egg was warm in her hands" in warnings[0]
    assert any(f"The whole draft is shown: {len(draft.split())} words" in c.value for c in at.caption)
    finish_jobs(at.button(key="write_accept").click().run())
    assert not at.exception, at.exception
    (work,) = get_store().list_works()
    assert get_store().get_chapter(work.id, 1).text == draft  # what was shown is what is stored


def test_a_looping_continuation_is_cut_with_its_note(looping: None) -> None:
    from core.services.library import import_book
    from views._shared import get_store
    import_book(get_store(), "egg.txt", ("CHAPTER I.\n\n" + GOOD).encode())
    at = AppTest.from_file(page("write.py"), default_timeout=60)
    at.run()
    at.button(key="cont_go").click().run()
    assert not at.exception, at.exception
    shown = "\n".join(m.value for m in at.markdown)
    assert shown.count("The egg was warm in her hands") == 1
    notes = [i.value for i in at.info]
    assert any("Repetition cut" in note and "times in a loop" in note for note in notes), notes
