"""AppTest on the Write page's rough edges (issue 16): a typed premise is used whatever the dropdown says, a started
story is confirmed, a story's token box follows its own chapter length, a KID continuation can be saved, and a
kg-block prompt shows its block (or says why there is none)."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.llm import FakeLLM
from core.services.continuation_service import Continuation
from core.write.kid import Step
from core.write.prompts import KG_HEADER
from views._state import ShownContinuation
from tests.app.conftest import finish_jobs, page
from tests.app.test_write_page import CHAPTER_ONE, writing  # noqa: F401 - the fixture

OWN = "A retired cartographer discovers that her maps redraw themselves at night."


def _run() -> AppTest:
    at = AppTest.from_file(page("write.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def _store():  # noqa: ANN202
    from views._shared import get_store
    return get_store()


def test_a_typed_premise_is_used_and_the_new_story_confirmed(writing: list[FakeLLM]) -> None:  # noqa: F811
    at = _run()
    assert at.selectbox(key="new_premise").value != "My own"  # a premade premise is chosen by default
    at.text_input(key="new_title").input("Maps")
    at.text_area(key="new_own").input(OWN)
    at.button(key="new_start").click().run()
    assert not at.exception, at.exception
    (work,) = _store().list_works()
    assert work.settings["premise"] == OWN
    assert any("Started “Maps”" in s.value for s in at.success)


def test_a_story_token_box_follows_its_own_chapter_length(writing: list[FakeLLM]) -> None:  # noqa: F811
    at = _run()
    at.text_input(key="new_title").input("Short")
    at.button(key="new_start").click().run()
    at.button(key="write_start_another").click().run()  # the started story's confirmation gives way to a new form
    at.text_input(key="new_title").input("Long")
    at.slider(key="new_words").set_value((2000, 3000))
    at.button(key="new_start").click().run()
    assert not at.exception, at.exception
    short, long = _store().list_works()
    assert at.number_input(key=f"write_tokens_story_{long.id}").value == int(3000 * 1.4) + 20
    finish_jobs(at.button(key="write_next").click().run())
    assert not at.exception, at.exception
    options = next(c.options for c in writing[-1].calls if c.streamed)
    assert options.max_tokens == int(3000 * 1.4) + 20, "a 3,000-word chapter is not cut at 1,200 words"


def _story_with_a_chapter(at: AppTest) -> int:
    at.text_input(key="new_title").input("The Egg")
    at.button(key="new_start").click().run()
    finish_jobs(at.button(key="write_next").click().run())  # written in the background
    finish_jobs(at.button(key="write_accept").click().run())
    assert not at.exception, at.exception
    return _store().list_works()[0].id


def test_a_kid_continuation_can_be_saved_as_a_new_revision(writing: list[FakeLLM]) -> None:  # noqa: F811
    at = _run()
    work_id = _story_with_a_chapter(at)
    chapter = _store().get_chapter(work_id, 1)
    # A KID result as the page keeps it (KID itself needs the local model's logits: tests/integration covers it)
    at.session_state["cont_loaded"] = (work_id, 1, chapter.revision)
    at.session_state["cont_text"] = chapter.text
    steps = [Step(1, "The egg", 0.2, 0.2), Step(2, " hummed.", 0.1, 0.4, "egg hummed")]
    at.session_state["cont_result"] = ShownContinuation(Continuation("The egg hummed.", "kid", [], chapter.text, 1.0,
                                                                     [], steps=steps))
    at.run()
    assert not at.exception, at.exception
    assert "kid-boost" in at.get("html")[-1].proto.body, "the KID overlay is what is shown"
    at.button(key="cont_save").click().run()
    assert not at.exception, at.exception
    saved = _store().get_chapter(work_id, 1)
    assert saved.revision == chapter.revision + 1 and saved.text.endswith("The egg hummed.")


def test_the_kg_block_prompt_shows_the_block(writing: list[FakeLLM]) -> None:  # noqa: F811
    at = _run()
    _story_with_a_chapter(at)  # the grapher (scripted) puts Elena Voss in the story's graph
    at.radio(key="cont_mode").set_value("kg-block").run()
    at.button(key="cont_go").click().run()
    assert not at.exception, at.exception
    prompt = at.code[0].value
    assert KG_HEADER in prompt and "Elena Voss" in prompt and CHAPTER_ONE.split("\n")[0] in prompt


def test_a_kg_block_prompt_without_a_graph_says_why(app_db: str, writing: list[FakeLLM]) -> None:  # noqa: F811
    from core.services.library import import_book
    import_book(_store(), "egg.txt", ("CHAPTER I.\n\n" + CHAPTER_ONE).encode())
    at = _run()
    at.radio(key="cont_mode").set_value("kg-block").run()
    at.button(key="cont_go").click().run()
    assert not at.exception, at.exception
    assert any("no graph yet" in i.value for i in at.info), [i.value for i in at.info]
