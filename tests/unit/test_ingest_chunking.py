"""Sentence splitting and passage chunking: boundaries, abbreviations, limits, and no word lost or repeated."""
from __future__ import annotations

import random

import pytest

from core.ingest import chunk_text, split_sentences


@pytest.mark.parametrize(("text", "expected"), [
    ("Mr. Holmes met Dr. Watson. They talked.", ["Mr. Holmes met Dr. Watson.", "They talked."]),
    ("Mrs. Hale and Miss. Jones went to St. Paul's. It rained.", ["Mrs. Hale and Miss. Jones went to St. Paul's.",
                                                                  "It rained."]),
    ("MR. HOLMES was in. He smiled.", ["MR. HOLMES was in.", "He smiled."]),
    ("It was written by H. G. Wells. Then J. R. R. Tolkien.", ["It was written by H. G. Wells.",
                                                               "Then J. R. R. Tolkien."]),
    ("They lived in the U.S. for years. I knew it. So did I. Then we left.",
     ["They lived in the U.S. for years.", "I knew it.", "So did I.", "Then we left."]),
    ("He lived at No. 5 Baker Street. It was Dec. 11th. Late.", ["He lived at No. 5 Baker Street.",
                                                                 "It was Dec. 11th.", "Late."]),
    ("“Oh!” said Alice. “Who are you?” asked the Caterpillar.", ["“Oh!” said Alice.",
                                                                 "“Who are you?” asked the Caterpillar."]),
    ("“Stop!” He ran. (It was late.) Then dark.", ["“Stop!”", "He ran.", "(It was late.)", "Then dark."]),
    ("“Well... I don’t know,” she said. He waited.", ["“Well... I don’t know,” she said.", "He waited."]),
    ("“I thought… No, never mind,” he said.", ["“I thought… No, never mind,” he said."]),
    ("He paused... Then he left. And so on... and on.", ["He paused...", "Then he left.", "And so on... and on."]),
    ("‘Curiouser and curiouser!’ cried Alice. She was so surprised.",
     ["‘Curiouser and curiouser!’ cried Alice.", "She was so surprised."]),
    ("In 1850 it ended. 1851 began.", ["In 1850 it ended.", "1851 began."]),
    ("First paragraph has no stop\n\nSecond one does.", ["First paragraph has no stop", "Second one does."]),
    ("The cat sat. the dog lay.", ["The cat sat. the dog lay."]),
])
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_hard_wrapped_sentences_come_back_on_one_line() -> None:
    assert split_sentences("It was a\nbright day.  Then\n  rain.") == ["It was a bright day.", "Then rain."]


def test_split_sentences_keeps_every_word() -> None:
    text = "Dr. No. 5 “Yes... no!” he said. Mr. X. Y. Z. went home?! ‘Fine.’ Done\n\nNext para. End"
    assert " ".join(split_sentences(text)).split() == text.split()


def test_empty_text_has_no_sentences_or_chunks() -> None:
    assert split_sentences("  \n\n ") == [] and chunk_text("   ") == []


def _words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def test_whole_paragraphs_are_packed_while_they_fit() -> None:
    paras = [_words(100, "a") + ".", _words(100, "b") + ".", _words(100, "c") + "."]
    chunks = chunk_text("\n\n".join(paras), max_words=240)
    assert chunks == ["\n\n".join(paras[:2]), paras[2]]


def test_a_paragraph_that_does_not_fit_starts_a_new_passage() -> None:
    paras = [_words(150, "a") + ".", _words(150, "b") + "."]
    assert chunk_text("\n\n".join(paras), max_words=240) == paras


def test_long_paragraph_is_cut_at_sentence_boundaries() -> None:
    sentences = [f"Sentence number {i} has exactly seven words." for i in range(100)]  # 700 words, one paragraph
    chunks = chunk_text(" ".join(sentences), max_words=240)
    assert all(len(c.split()) <= 240 for c in chunks)
    assert all(c.endswith("words.") for c in chunks)
    assert [len(c.split()) for c in chunks] == [238, 238, 224]


def test_small_passage_is_topped_up_with_sentences_of_the_next_paragraph() -> None:
    first = _words(20, "a") + "."
    second = " ".join(f"Sentence {i} is here now." for i in range(60))  # 300 words
    chunks = chunk_text(f"{first}\n\n{second}", max_words=100)
    assert chunks[0].startswith(first + "\n\nSentence 0 is here now.")
    assert all(len(c.split()) <= 100 for c in chunks)


def test_sentence_longer_than_a_passage_is_cut_at_word_boundaries() -> None:
    long_sentence = _words(500, "W")
    chunks = chunk_text(f"Short start. {long_sentence} End here.", max_words=240)
    assert [len(c.split()) for c in chunks] == [2, 240, 240, 22]
    assert " ".join(chunks).split() == f"Short start. {long_sentence} End here.".split()


def test_abbreviations_do_not_become_passage_boundaries() -> None:
    text = ("Mr. Sherlock Holmes and Dr. Watson visited St. Simon. " * 30).strip()  # 270 words
    chunks = chunk_text(text, max_words=240)
    assert all(c.endswith("Simon.") for c in chunks)


def test_max_words_must_be_positive() -> None:
    with pytest.raises(ValueError):
        chunk_text("some text", max_words=0)


@pytest.mark.parametrize("seed", range(25))
def test_random_texts_keep_every_word_in_order_within_the_limit(seed: int) -> None:
    rng = random.Random(seed)
    vocab = ["Mr.", "Dr.", "said", "the", "cat", "“Oh!”", "well...", "St.", "A.", "house.", "Yes?", "no", "—", "I."]
    paragraphs = []
    for _ in range(rng.randint(1, 30)):
        paragraphs.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 400))))
    text = "\n\n".join(paragraphs)
    limit = rng.choice([5, 50, 240])
    chunks = chunk_text(text, max_words=limit)
    assert all(1 <= len(c.split()) <= limit for c in chunks)
    assert " ".join(chunks).split() == text.split()
