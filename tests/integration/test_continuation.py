"""One continuation path: every mode, KID included, goes through continuation_service.continue_work with its settings in
ContinueParams; the Continuation reports tokens/s for every mode and carries KID's decoding steps (the overlay)."""
from __future__ import annotations

import time

import pytest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM
from core.services import continuation_service as cs
from core.write import ContinueParams, get_mode
from core.write.kid import KidMode, KidParams, Step
from storage.repository import SqlStore

TEXT = "Elena Voss lived in Millbrook.\n\nOne night Elena Voss heard a knock at the door."


def _work(store: SqlStore) -> int:
    return store.create_work("Book", None, WorkKind.BOOK, {}, [NewChapter("One", TEXT, chunk_text(TEXT))]).id


def test_a_plain_continuation_reports_its_tokens_per_second(store: SqlStore) -> None:
    def slow(messages, options) -> str:  # noqa: ANN001 - a model that takes a measurable while
        time.sleep(0.05)
        return "The door creaked open and the wind came in."
    out = cs.continue_work(store, _work(store), ContinueParams(mode="plain", tokens=20), FakeLLM(slow))
    assert out.text == "The door creaked open and the wind came in." and not out.steps
    assert 0 < out.tokens_per_second <= 9 / 0.05                  # nine words in at least 50 ms
    data = out.as_dict()
    assert data["tokens_per_second"] == out.tokens_per_second and "boosted" not in data and "steps" not in data
    assert out.overlay() == ""


def test_kid_settings_travel_in_continue_params() -> None:
    mine = KidParams(hops=1, steps=2, variant="kv", seed=7)
    configured = get_mode("kid").configured(ContinueParams(mode="kid", kid=mine))
    assert isinstance(configured, KidMode) and configured.params == mine
    assert get_mode("kid").configured(ContinueParams(mode="kid")) is get_mode("kid")    # None: the defaults
    assert get_mode("plain").configured(ContinueParams(kid=mine)) is get_mode("plain")


def test_kid_goes_through_continue_work_and_refuses_a_model_without_logits(store: SqlStore) -> None:
    params = ContinueParams(mode="kid", tokens=4, kid=KidParams(seed=1))
    with pytest.raises(ValueError, match="local model"):
        cs.continue_work(store, _work(store), params, FakeLLM("unused"))


def test_kid_steps_give_the_boosted_tokens_and_an_escaped_overlay() -> None:
    steps = [Step(1, "The ", 0.2, 0.2), Step(2, "<ghost>", 0.1, 0.4, fact="Marley is a ghost."),
             Step(3, " left", 0.3, 0.1, fact="ignored: lowered")]
    out = cs.Continuation("The <ghost> left", "kid", [], "prompt", 1.0, [], 3.0, steps)
    assert out.boosted == [{"token": "<ghost>", "p_before": 0.1, "p_after": 0.4, "fact": "Marley is a ghost."}]
    assert out.as_dict()["boosted"] == out.boosted and "steps" not in out.as_dict()
    html = out.overlay()
    assert "&lt;ghost&gt;" in html and "<ghost>" not in html and html.count("<mark") == 1


def test_a_continuation_reports_tokens_and_stops_keeping_what_came(store: SqlStore) -> None:
    """The background job's wiring: progress after each piece, and a stop that keeps the text so far (issue 37)."""
    heard: list[tuple[int, int, str]] = []
    out = cs.continue_work(store, _work(store), ContinueParams(mode="plain", tokens=20),
                           FakeLLM("The door creaked open and the wind came in."),
                           on_tokens=lambda done, asked, text: heard.append((done, asked, text)),
                           should_stop=lambda: len(heard) >= 3)
    assert out.stopped and out.text == "The door creaked"
    assert [(d, a) for d, a, _ in heard] == [(1, 20), (2, 20), (3, 20)] and heard[-1][2].strip() == out.text


def test_a_stopped_kid_continuation_keeps_its_steps_and_is_metered_once(store: SqlStore) -> None:
    from core.llm import MeteredLLM
    from tests.support.tiny_lm import TinyLocalLLM, walking_table
    work_id = store.create_work("Snow", None, WorkKind.BOOK, {}, [NewChapter(
        "One", "The dog went home and the man", ["The dog went home and the man"])]).id
    records: list = []
    llm = MeteredLLM(TinyLocalLLM(walking_table()), records.append, role="writing", work_id=work_id)
    heard: list[int] = []
    params = ContinueParams(mode="kid", tokens=50, kid=KidParams(seed=2, max_tokens=50))
    out = cs.continue_work(store, work_id, params, llm, on_tokens=lambda done, asked, text: heard.append(done),
                           should_stop=lambda: len(heard) >= 5)
    assert out.stopped and 5 <= len(out.steps) < 50 and out.text
    assert heard[:5] == [1, 2, 3, 4, 5]                      # one token at a time, counted by KID's own steps
    assert len(records) == 1 and records[0].output_tokens == len(out.steps)


def test_a_continuation_never_starts_a_chapter_of_its_own(store: SqlStore) -> None:
    """Seen with SmolLM2 after the last part of The Legend of Sleepy Hollow: "CHAPTER 21" and a new chapter. Saved as
    it was, the heading would sit inside the chapter the text continues."""
    work = _work(store)
    reply = "CHAPTER 21\n\nThe door creaked open.\n\nCHAPTER 22\n\nYears later, Elena left Millbrook."
    out = cs.continue_work(store, work, ContinueParams(mode="plain", tokens=40), FakeLLM(lambda m, o: reply))
    assert out.text == "The door creaked open."
    assert any("“CHAPTER 21”" in n and "taken out" in n for n in out.notes)
    assert any("“CHAPTER 22”" in n and "ends before it" in n for n in out.notes)
    stopped = cs.partial_continuation("The door creaked open.\n\nChapter 22\n\nYears later.", "plain")
    assert stopped.text == "The door creaked open." and any("“Chapter 22”" in n for n in stopped.notes)


def test_a_continuation_cut_by_its_token_limit_ends_at_a_full_sentence(store: SqlStore) -> None:
    """Seen on the Write page (Sleepy Hollow, SmolLM2): "... Here in Latin was very important for the Tory"."""
    work = _work(store)
    reply = "The door creaked open. The wind came in and the candle went out. Elena stood in the dark hall and"
    out = cs.continue_work(store, work, ContinueParams(mode="plain", tokens=18), FakeLLM(lambda m, o: reply))
    assert out.text == "The door creaked open. The wind came in and the candle went out."
    assert any("token limit" in n for n in out.notes)
    whole = cs.continue_work(store, work, ContinueParams(mode="plain", tokens=40), FakeLLM(lambda m, o: reply))
    assert whole.text == reply and not any("token limit" in n for n in whole.notes)   # it ended on its own
