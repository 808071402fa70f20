"""AppTest on the Continuity page (flags grouped by chapter, both sentences, mark intended, show intended, the way
into the reader) and on the reader's mark of a flagged sentence. The states and flags are stored directly: the
checks themselves are tested in tests/integration/test_continuity_*."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.continuity.model import Flag, State
from core.domain import NewChapter, WorkKind
from core.kg.states import STATES_VERSION
from tests.app.conftest import page

ONE = "Spitz died in the snow that night. Buck stood over him."
TWO = "The team went on. Spitz ran beside Buck at the head of the team."


def _store():
    from views._shared import get_store
    return get_store()


def _work_with_a_flag() -> tuple[int, Flag]:
    store = _store()
    work = store.create_work("Dogs", None, WorkKind.BOOK, {}, [NewChapter("One", ONE, [ONE]),
                                                                NewChapter("Two", TWO, [TWO])])
    died = State(1, "Spitz", "dead", "died", "", ONE[:34], 0, 34)
    ran = State(2, "Spitz", "act", "acts", "ran", TWO[18:], 18, len(TWO))
    for index, states in ((1, [died]), (2, [ran])):
        assert store.states_replace_chapter(work.id, index, 1, STATES_VERSION, states)
    flag = Flag("dead", "Spitz", "Spitz", 2, ran.sentence, ran.start, ran.end, 1, died.sentence, 0, 34, 0.9,
                "Spitz is dead since chapter 1")
    store.flags_replace(work.id, [1, 2], [flag])
    return work.id, flag


def _continuity(work_id: int) -> AppTest:
    at = AppTest.from_file(page("continuity.py"), default_timeout=30)
    at.session_state["work_id"] = work_id
    at.run()
    assert not at.exception, at.exception
    return at


def test_flags_are_listed_by_chapter_with_both_sentences_and_can_be_marked_intended(app_db: str) -> None:
    work_id, flag = _work_with_a_flag()
    at = _continuity(work_id)
    assert any("Chapter 2" in h.value for h in at.subheader)
    shown = " ".join(m.value for m in at.markdown)
    assert "Spitz ran beside Buck" in shown and "Spitz died in the snow" in shown
    assert any("Earlier, chapter 1" in c.value for c in at.caption)
    at.button(key="continuity_mark_0").click().run()
    assert not at.exception, at.exception
    assert _store().intended_keys(work_id) == {flag.key}
    assert not any("Spitz ran beside Buck" in m.value for m in at.markdown)
    assert any("No contradictions found" in s.value and "no proof" in s.value for s in at.info)
    at.toggle(key="continuity_show_intended").set_value(True).run()
    assert any("intended" in m.value for m in at.markdown)
    at.button(key="continuity_mark_0").click().run()   # "Not intended after all"
    assert _store().intended_keys(work_id) == set()


def test_open_in_reader_highlights_the_sentence(app_db: str) -> None:
    work_id, _ = _work_with_a_flag()
    at = _continuity(work_id)
    at.button(key="continuity_new_0").click().run()
    assert at.session_state["read_chapter"] == 2
    assert at.session_state["read_highlight"] == "Spitz ran beside Buck at the head of the team."


def test_a_work_without_states_points_to_the_graph_build(app_db: str) -> None:
    work = _store().create_work("Bare", None, WorkKind.BOOK, {}, [NewChapter("One", ONE, [ONE])])
    at = _continuity(work.id)
    assert any("No story states yet" in i.value for i in at.info)


def test_the_reader_marks_a_flagged_sentence(app_db: str) -> None:
    work_id, _ = _work_with_a_flag()
    at = AppTest.from_file(page("read.py"), default_timeout=30)
    at.session_state["work_id"] = work_id
    at.session_state["read_chapter"] = 2
    at.run()
    assert not at.exception, at.exception
    marked = [m.value for m in at.markdown if "A dead character acts" in m.value]
    assert marked and "contradicts chapter 1" in marked[0] and "Spitz ran beside Buck" in marked[0]


def test_a_chapter_is_read_by_a_configured_model_only_when_it_is_a_capable_one(app_db: str,
                                                                              monkeypatch) -> None:  # noqa: ANN001
    import json

    from tests.app.conftest import writer_provider
    work_id, _ = _work_with_a_flag()
    at = _continuity(work_id)          # the embedded default: no reading, a way to Settings
    at.selectbox(key="continuity_chapter").set_value(2).run()
    assert not at.exception, at.exception
    assert any("cannot read a chapter" in i.value and "Settings" in i.value for i in at.info)
    finding = {"kind": "dead", "entity": "Spitz", "sentence": TWO[18:], "earlier": ONE[:34], "earlier_chapter": 1,
               "why": "Spitz died in chapter 1"}
    invented = dict(finding, sentence="Spitz barked at the moon.")
    with writer_provider(monkeypatch, lambda messages, options: json.dumps(
            {"contradictions": [finding, invented]})) as built:
        at = _continuity(work_id)
        at.selectbox(key="continuity_chapter").set_value(2).run()
        assert any("apptest:writer reads the chapter" in c.value for c in at.caption)
        assert not built                                   # nothing sent before the click
        at.button(key="continuity_read_llm").click().run()
        assert not at.exception, at.exception
        assert len(built) == 1 and "Spitz is dead (since chapter 1)" in built[0].calls[0].prompt
        assert any("read by apptest:writer" in c.value for c in at.caption)
        assert any("also flagged by the rules" in m.value for m in at.markdown)   # the stored flag of chapter 2
        assert any(w.value.startswith("1 finding") and "left out" in w.value for w in at.warning)
        shown = " ".join(m.value for m in at.markdown)
        assert "Spitz barked at the moon" not in shown
        at.button(key="continuity_read_prior_0").click().run()   # into the reader at the earlier sentence
        assert not at.exception, at.exception
        assert at.session_state["read_chapter"] == 1


def test_the_price_of_a_reading_is_worked_out_once_per_revision(app_db: str, monkeypatch) -> None:  # noqa: ANN001
    from core.services import continuity_reading
    from tests.app.conftest import writer_provider
    work_id, _ = _work_with_a_flag()
    priced: list[int] = []
    real = continuity_reading.reading_plan

    def counting(store, work, chapter, llm_name=None):  # noqa: ANN001, ANN202 - the real plan, counted
        priced.append(chapter)
        return real(store, work, chapter, llm_name)

    monkeypatch.setattr(continuity_reading, "reading_plan", counting)
    with writer_provider(monkeypatch, lambda messages, options: "{}"):
        at = _continuity(work_id)
        at.selectbox(key="continuity_chapter").set_value(2).run()
        at.run()
        at.run()
        assert not at.exception, at.exception
        assert priced == [2]                    # three reruns, one price (it reads every chapter up to this one)
        store = _store()
        assert store.update_chapter(work_id, 1, ONE + " Snow fell.", [ONE + " Snow fell."],
                                    expected_revision=store.get_chapter(work_id, 1).revision)
        at.run()
        assert priced == [2, 2]                 # an earlier chapter changed: the prompt did, so the price is new
