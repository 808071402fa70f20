"""AppTest on the reading companion (issue 33): the Read page marks and moves the reader's place and opens at it,
the X-Ray beside the text shows only what the place knows (Spitz alive before his death, dead after it), the recap
"Previously…" cites a chapter per sentence, a returning reader is offered the recap of the last visit, and Ask and the
Graph take the place as their spoiler limit and warn when the reader looks past it."""
from __future__ import annotations

from datetime import timedelta

import pytest
from streamlit.testing.v1 import AppTest

from core.services import companion_service as cs
from tests.app.conftest import page
from tests.integration.test_companion import BOOK


def _store():  # noqa: ANN202
    from views._shared import get_store
    return get_store()


@pytest.fixture
def built(app_db: str) -> int:
    from core.services import kg_service, library
    work = library.import_book(_store(), "sled.txt", BOOK.encode()).id
    kg_service.build_graph(_store(), work)
    return work


def _read(work: int) -> AppTest:
    at = AppTest.from_file(page("read.py"), default_timeout=60)
    at.session_state["work_id"] = work
    at.run()
    assert not at.exception, at.exception
    return at


def _cards(at: AppTest) -> dict[str, str]:
    """Each X-Ray card's label -> everything written inside it."""
    out = {}
    for box in at.expander:
        if (box.key or "").startswith("xray_card_"):
            out[box.proto.label.split(" · ")[0]] = " ".join(e.value for e in [*box.markdown, *box.caption])
    return out


def _spitz(at: AppTest) -> str:
    return next(text for label, text in _cards(at).items() if label.startswith("Spitz"))


def test_the_place_is_marked_and_the_xray_follows_it(built: int) -> None:
    at = _read(built)
    assert "No place marked yet" in " ".join(c.value for c in at.caption)
    assert "dead" not in _spitz(at)                                     # chapter 1: alive
    at.button(key="next_chapter").click().run()                         # reading on moves the place
    assert cs.get_position(_store(), built).chapter == 2
    assert "Spitz is dead" in _spitz(at) and "(chapter 2)" in _spitz(at)
    at.button(key="prev_chapter").click().run()                         # turning back keeps it
    assert cs.get_position(_store(), built).chapter == 2
    assert "Spitz is dead" in _spitz(at)                                # as of the place, on any page
    at.button(key="read_mark_place").click().run()                      # one click: the place is here
    assert cs.get_position(_store(), built).chapter == 1
    assert "dead" not in _spitz(at)
    assert "Your place: chapter 1" in " ".join(c.value for c in at.caption)


def test_a_new_session_opens_at_the_place(built: int) -> None:
    cs.set_position(_store(), built, 3)
    at = _read(built)
    assert at.selectbox[1].value == 3                                   # the chapter box (the first: the work)
    assert not at.get("container") or not any("read_welcome" in str(c.proto) for c in at.get("container"))


def test_a_link_to_the_work_alone_opens_at_the_place_and_one_to_a_chapter_at_that_chapter(built: int) -> None:
    cs.set_position(_store(), built, 3)
    for params, wanted in (({"work": str(built)}, 3), ({"work": str(built), "chapter": "2"}, 2)):
        at = AppTest.from_file(page("read.py"), default_timeout=60)
        at.query_params.update(params)
        at.run()
        assert not at.exception, at.exception
        assert at.selectbox[1].value == wanted, params


def test_the_recap_cites_a_chapter_for_every_sentence(built: int) -> None:
    cs.set_position(_store(), built, 2)
    at = _read(built)
    assert at.number_input(key=f"recap_to_{built}").value == 2           # the story so far: up to the place
    at.button(key="recap_go").click().run()
    assert not at.exception, at.exception
    lines = [m.value for m in at.markdown if "(chapter " in m.value and ":gray[" in m.value]
    assert lines and all(":gray[(chapter 1)]" in v or ":gray[(chapter 2)]" in v for v in lines)
    at.number_input(key=f"recap_to_{built}").set_value(4).run()
    assert any("past your place" in w.value for w in at.warning)         # looking past it: said so


def test_a_returning_reader_is_offered_the_recap_of_the_last_visit(built: int) -> None:
    week_ago = cs.now_utc() - timedelta(days=7)
    cs.set_position(_store(), built, 1, now=week_ago)
    cs.set_position(_store(), built, 3, now=week_ago + timedelta(minutes=30))
    at = _read(built)
    assert any("Welcome back" in m.value and "1–3" in m.value for m in at.markdown)
    at.button(key="read_welcome_recap").click().run()
    assert not at.exception, at.exception
    assert any("Chapters 1–3" in c.value for c in at.caption)
    assert at.button(key="recap_open_0").proto.label.startswith("Ch. ")


def test_the_recap_form_says_the_range_the_welcome_back_recap_told(built: int, state_warnings: list[str]) -> None:
    week_ago = cs.now_utc() - timedelta(days=7)
    cs.set_position(_store(), built, 2, now=week_ago)
    cs.set_position(_store(), built, 3, now=week_ago + timedelta(minutes=30))
    at = _read(built)
    assert any("Welcome back" in m.value and "2–3" in m.value for m in at.markdown)
    assert at.number_input(key=f"recap_from_{built}").value == 1   # the form's own default: the story so far
    at.button(key="read_welcome_recap").click().run()
    assert not at.exception, at.exception
    assert any("Chapters 2–3" in c.value for c in at.caption)
    assert (at.number_input(key=f"recap_from_{built}").value, at.number_input(key=f"recap_to_{built}").value) == (2, 3)
    assert not state_warnings   # the form's values set by the recap, and no default beside them


def test_ask_and_graph_take_the_place_as_their_limit(built: int) -> None:
    cs.set_position(_store(), built, 2)
    ask = AppTest.from_file(page("ask.py"), default_timeout=60)
    ask.session_state["work_id"] = built
    ask.run()
    assert not ask.exception, ask.exception
    assert ask.number_input(key=f"ask_upto_{built}").value == 2
    assert any("Your place: chapter 2" in c.value for c in ask.caption)
    ask.number_input(key=f"ask_upto_{built}").set_value(4)
    ask.button(key="ask_submit").click().run()
    assert any("past your place" in w.value for w in ask.warning)
    ask.button(key="ask_move_place").click().run()                       # one click: the place moves there
    assert cs.get_position(_store(), built).chapter == 4
    graph = AppTest.from_file(page("graph.py"), default_timeout=60)
    graph.session_state["work_id"] = built
    graph.run()
    assert not graph.exception, graph.exception
    assert graph.slider[0].value == 4
    cs.set_position(_store(), built, 1)
    graph.run()
    assert graph.slider[0].value == 1                                   # follows a moved place
    graph.slider[0].set_value(3).run()
    assert any("past your place" in w.value for w in graph.warning)
