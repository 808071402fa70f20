"""A chapter cut off by its token cap ends at its last full sentence within the asked word count (a 135M writer's
chapter came out at 456 words for 250-400 asked, ending "bring Cinderella"); a chapter that ends on its own is kept."""
from __future__ import annotations

from core.write.params import WriteParams
from core.write.writer import finish_draft, fit_length

SENTENCE = "The villagers brought her to the palace."  # 7 words
VARIED = ["The villagers brought her to the palace.", "A cold wind blew across the hills.",
          "Nobody in the town had seen snow.", "Her mother sang softly by the fire.",
          "The old king waited at his window.", "Three crows watched from the bare oak.",
          "Bread and cheese lay on the table.", "At dawn the bells rang out loudly.",
          "She counted the coins twice, then laughed.", "Soldiers marched past the mill at noon."]


def gates(n: int) -> str:
    """n different sentences of 7 words (one sentence n times, or n on one pattern, is a loop, which a draft has
    cut: tests/unit/test_textguard.py)."""
    return " ".join(VARIED[:n])


def test_a_chapter_cut_mid_sentence_ends_at_its_last_sentence_within_the_maximum() -> None:
    text = " ".join([SENTENCE] * 10) + " The villagers decided to bring Cinderella"
    fitted = fit_length(text, min_words=20, max_words=50)
    assert fitted == " ".join([SENTENCE] * 7)  # 49 words: the eighth sentence would pass 50
    assert len(fitted.split()) <= 50


def test_a_chapter_that_ends_a_sentence_is_kept_whole_even_when_long() -> None:
    text = " ".join([SENTENCE] * 10)
    assert fit_length(text, min_words=20, max_words=50) == text
    quoted = "He said, \u201cGo home.\u201d\n\n" + text.replace(".", "!") + " \u201cWhy?\u201d"
    assert fit_length(quoted, 1, 5) == quoted


def test_the_minimum_is_never_cut_into() -> None:
    text = SENTENCE + " and then the long sentence went on and on without an end in sight for ever"
    assert fit_length(text, min_words=20, max_words=50) == text  # only 7 words end a sentence: kept as it is
    assert fit_length("no sentence ends here at all", 1, 3) == "no sentence ends here at all"


def test_a_first_chapter_draft_is_fitted() -> None:
    params = WriteParams("premise", "Cinderella", min_words=20, max_words=50)
    raw = gates(10) + " The villagers decided to bring\nSTORY STATUS: CONTINUE"
    draft = finish_draft(None, params, 1, raw, "prompt")  # type: ignore[arg-type]  # chapter 1 asks no model
    assert draft.text == gates(7) and draft.raw == raw and draft.cut_note == ""


def test_an_embedded_writer_s_chapter_past_the_maximum_is_cut_even_when_it_ends_a_sentence() -> None:
    text = " ".join([SENTENCE] * 10)
    assert fit_length(text, min_words=20, max_words=50, embedded=True) == " ".join([SENTENCE] * 7)
    within = " ".join([SENTENCE] * 5)
    assert fit_length(within, min_words=20, max_words=50, embedded=True) == within


def test_an_embedded_writer_looping_without_a_full_stop_is_cut_within_the_maximum() -> None:
    """SmolLM2 on OpenVINO, greedy, asked for 250-400 words: 513, the last 300 "and she had been watching her for a
    long time," over and over."""
    loop = SENTENCE + " " + "and she had been watching her for a long time, " * 12   # 7 + 120 words
    fitted = fit_length(loop, min_words=20, max_words=50, embedded=True)
    assert fitted == SENTENCE + " " + ("and she had been watching her for a long time, " * 4).rstrip(", ")
    assert 20 <= len(fitted.split()) <= 50
    no_commas = "word " * 80
    assert fit_length(no_commas, min_words=20, max_words=50, embedded=True) == ("word " * 50).rstrip()
    assert fit_length(loop, min_words=20, max_words=50) == loop   # a remote writer's text is its own


class _Named:
    def __init__(self, name: str) -> None:
        self.name = name


def test_a_draft_is_cut_at_the_maximum_only_for_an_embedded_writer() -> None:
    params = WriteParams("premise", "Cinderella", min_words=20, max_words=50)
    raw = gates(10) + "\nSTORY STATUS: CONTINUE"
    embedded = finish_draft(_Named("local:smollm2"), params, 1, raw, "prompt")  # type: ignore[arg-type]
    assert embedded.text == gates(7)
    for name in ("openai:gpt-4o-mini", "fake:writer"):  # a remote model's ending is its own; an unknown name too
        assert finish_draft(_Named(name), params, 1, raw, "prompt").text == gates(10)  # type: ignore[arg-type]


def test_a_draft_that_loops_is_cut_where_the_loop_began_whoever_wrote_it() -> None:
    params = WriteParams("premise", "Cinderella", min_words=20, max_words=50)
    head = " ".join(VARIED[1:4])
    raw = head + " " + " ".join([SENTENCE] * 10) + "\nSTORY STATUS: CONTINUE"
    for name in ("local:smollm2", "openai:gpt-4o-mini"):
        draft = finish_draft(_Named(name), params, 1, raw, "prompt")  # type: ignore[arg-type]
        assert draft.text == head + " " + SENTENCE and draft.raw == raw
        assert draft.cut_note.startswith("Repetition cut") and SENTENCE in draft.cut_note


def test_a_draft_that_runs_on_into_a_next_chapter_ends_before_it() -> None:
    params = WriteParams("premise", "Cinderella", min_words=20, max_words=80)
    raw = gates(4) + "\n\nChapter 2: The Ball\n\n" + " ".join(VARIED[4:8]) + "\nSTORY STATUS: CONTINUE"
    draft = finish_draft(None, params, 1, raw, "prompt")  # type: ignore[arg-type]  # chapter 1 asks no model
    assert draft.text == gates(4)
    assert "“Chapter 2: The Ball”" in draft.cut_note and "ends before it" in draft.cut_note
