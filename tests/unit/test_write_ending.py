"""A continuation cut by its token limit ends at its last full sentence (core.write.ending); one that ended on its
own, a stop the writer pressed, and a cut that would lose most of the text stay as they came."""
from __future__ import annotations

from core.write.ending import whole_sentences


def test_a_text_cut_by_the_token_limit_ends_at_its_last_full_sentence() -> None:
    text, note = whole_sentences("He rode on. The bridge was near. Here in Latin was", cut=True)
    assert text == "He rode on. The bridge was near."
    assert "4 words left out" in note
    text, _ = whole_sentences("He asked, “Why not?” And then she", cut=True)
    assert text == "He asked, “Why not?”"


def test_a_text_that_ends_a_sentence_or_was_not_cut_stays() -> None:
    assert whole_sentences("He rode on. The bridge was near.", cut=True) == ("He rode on. The bridge was near.", "")
    assert whole_sentences("He asked, “Why?”", cut=True) == ("He asked, “Why?”", "")
    assert whole_sentences("He rode on. The bridge was", cut=False) == ("He rode on. The bridge was", "")


def test_a_cut_that_would_lose_most_of_the_text_is_not_made() -> None:
    text = "He rode. and then the long clause went on and on without a stop for many words"
    assert whole_sentences(text, cut=True) == (text, "")
    assert whole_sentences("no sentence ends here", cut=True) == ("no sentence ends here", "")
