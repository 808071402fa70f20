"""Text whose line breaks were lost (a whole book on one line): headings found inside running text, sections of
bounded size cut at sentence ends, and the one-line texts that must still import."""
from __future__ import annotations

import re
import time

import pytest

from core.ingest import IngestError, read_book
from core.ingest.chapters import split_chapters
from core.ingest.flat import MAX_SECTION_WORDS, count_words, cut_sections, more_words_than
from core.ingest.sentences import split_sentences

SENTENCE_ENDS = re.compile(r"[.!?][\"'”’)\]]*$")


def prose(topic: str, words: int, seed: int = 0) -> str:
    """Ordinary sentences of 14 words about `topic`, `words` words in all (rounded down to whole sentences)."""
    sentences = [f"The {topic} walked slowly along the road, thinking about number {seed + i} and the weather."
                 for i in range(max(1, words // 14))]
    return " ".join(sentences)


def flat_book(headings: list[str], words: int = 1500, contents: bool = False) -> str:
    """A book on one line: optional contents list, then each heading followed by `words` words of prose."""
    parts = ["Produced by a volunteer from page images. THE HARBOUR TALE. BY ANN EXAMPLE."]
    if contents:
        parts += ["CONTENTS"] + [f"{h} {n * 10}" for n, h in enumerate(headings, start=1)]
    for n, heading in enumerate(headings):
        parts += [heading, prose(f"sailor{n}", words, seed=n * 1000)]
    return " ".join(parts)


def titles(text: str) -> list[str]:
    return [ch.title for ch in split_chapters(text)[0]]


def test_capitals_chapter_headings_with_titles_inside_running_text() -> None:
    heads = ["CHAPTER I. THE HARBOUR.", "CHAPTER II. THE STORM AT SEA.", "CHAPTER III. HOME AGAIN."]
    chapters, _ = split_chapters(flat_book(heads))
    assert [ch.title for ch in chapters] == ["Chapter I. The Harbour", "Chapter II. The Storm at Sea",
                                             "Chapter III. Home Again"]
    assert chapters[0].text.startswith("The sailor0 walked")
    assert all("CHAPTER" not in ch.text for ch in chapters)


def test_title_case_titles_end_at_their_full_stop_and_a_synopsis_stays_in_the_text() -> None:
    heads = ["CHAPTER I. The Mogador Harbour.--Disputes on the quay.--A storm.",
             "CHAPTER II. Travels Inland.--The desert road.", "CHAPTER III. The Return Home.--Arrival in London."]
    chapters, _ = split_chapters(flat_book(heads))
    assert [ch.title for ch in chapters] == ["Chapter I. The Mogador Harbour", "Chapter II. Travels Inland",
                                             "Chapter III. The Return Home"]
    assert chapters[1].text.startswith("The desert road.")


def test_capitals_title_without_a_separator_stops_where_the_text_begins() -> None:
    heads = ["CHAPTER I INTRODUCTION", "CHAPTER II THE STUDENT DAYS 1885-1892", "CHAPTER III LONDON"]
    assert titles(flat_book(heads)) == ["Chapter I. Introduction", "Chapter II. The Student Days 1885-1892",
                                        "Chapter III. London"]


def test_a_capitalised_opening_word_is_text_not_title() -> None:
    book = " ".join(f"Chapter {n} THE night was dark and the sailor{n} walked along the road. " + prose("x", 1500)
                    for n in range(1, 4))
    chapters, _ = split_chapters(book)
    assert [ch.title for ch in chapters] == ["Chapter 1", "Chapter 2", "Chapter 3"]
    assert chapters[1].text.startswith("THE night was dark")


def test_a_contents_list_before_the_chapters_is_dropped() -> None:
    heads = ["CHAPTER I. THE HARBOUR.", "CHAPTER II. THE STORM.", "CHAPTER III. HOME."]
    chapters, warnings = split_chapters(flat_book(heads, contents=True))
    assert [ch.title for ch in chapters] == ["Chapter I. The Harbour", "Chapter II. The Storm", "Chapter III. Home"]
    assert "CONTENTS" not in chapters[0].text and "CHAPTER II" not in chapters[0].text
    assert not any("Preface" in ch.title for ch in chapters) and not warnings  # nothing kept from the contents


def test_mentions_of_chapters_in_running_text_are_not_headings() -> None:
    book = flat_book(["CHAPTER I. THE HARBOUR.", "CHAPTER II. THE STORM.", "CHAPTER III. HOME."])
    book = book.replace("number 5 and", "number 5, as Chapter VII, in which he sails, and Chapter IV of the log, and "
                                        "in Chapter II said, and")
    assert titles(book) == ["Chapter I. The Harbour", "Chapter II. The Storm", "Chapter III. Home"]


def test_keywords_in_capitals_other_than_chapter_count_only_as_a_sequence_from_one() -> None:
    days = ["DAY THE FIRST", "DAY THE SECOND", "DAY THE THIRD", "DAY THE FOURTH"]
    assert titles(flat_book(days)) == ["Day the First", "Day the Second", "Day the Third", "Day the Fourth"]
    # the same words numbered from five, or too close together (page numbers), are no chapters
    late = ["DAY THE FIFTH", "DAY THE SIXTH", "DAY THE SEVENTH", "DAY THE EIGHTH"]
    assert all(t.startswith("Part ") for t in titles(flat_book(late)))
    pages = [f"PAGE {n}" for n in range(1, 40)]
    assert all(t.startswith("Part ") for t in titles(flat_book(pages, words=300)))


def test_a_single_heading_is_no_chain_and_the_text_is_cut_into_sections() -> None:
    chapters, _ = split_chapters("CHAPTER I. THE HARBOUR. " + prose("sailor", 9000))
    assert len(chapters) >= 2 and all(count_words(ch.text) <= MAX_SECTION_WORDS for ch in chapters)


def test_long_flattened_chapters_are_cut_into_numbered_parts_at_sentence_ends() -> None:
    book = flat_book(["CHAPTER I. THE HARBOUR.", "CHAPTER II. THE STORM."], words=11_000)
    chapters, _ = split_chapters(book)
    assert [ch.title for ch in chapters] == [f"Chapter {n}. The {t} (part {k} of 3)"
                                             for n, t in (("I", "Harbour"), ("II", "Storm")) for k in (1, 2, 3)]
    for ch in chapters:
        assert 2500 <= count_words(ch.text) <= MAX_SECTION_WORDS, (ch.title, count_words(ch.text))
        assert SENTENCE_ENDS.search(ch.text), ch.text[-60:]
    text = " ".join(ch.text for ch in chapters)
    assert text.split() == " ".join(prose(f"sailor{n}", 11_000, seed=n * 1000) for n in range(2)).split()


def test_flattened_text_without_headings_becomes_parts_of_bounded_size_with_every_word_in_order() -> None:
    text = " ".join(prose(f"walker{k}", 1000, seed=k) for k in range(30))  # 30,000 words on one line
    chapters, warnings = split_chapters(text)
    assert [ch.title for ch in chapters] == [f"Part {k}" for k in range(1, len(chapters) + 1)]
    assert len(chapters) >= 7 and all(3000 <= count_words(ch.text) <= MAX_SECTION_WORDS for ch in chapters)
    assert all(SENTENCE_ENDS.search(ch.text) for ch in chapters)
    assert " ".join(ch.text for ch in chapters).split() == text.split()
    assert f"cut into {len(chapters)} parts of about 4,000 words" in " ".join(warnings)


def test_sections_prefer_paragraph_ends_then_line_ends() -> None:
    paras = [prose(f"p{k}", 600, seed=k) for k in range(20)]  # 11,760 words in short paragraphs
    sections = cut_sections(paras)
    assert len(sections) == 3 and all(3500 <= count_words(s) <= 4500 for s in sections)
    assert "\n\n".join(sections) == "\n\n".join(paras)  # every cut at a paragraph end
    verse = "\n".join(f"Line {k} of a very long song about the sea" for k in range(2000))  # 20,000 words, no blank
    sections = cut_sections([verse])
    assert len(sections) == 5 and "\n".join(sections) == verse  # every cut at a line end


def test_a_sentence_longer_than_a_section_is_cut_between_words() -> None:
    words = " ".join(f"w{k}" for k in range(12_000))
    sections = cut_sections([words])
    assert len(sections) == 3 and all(count_words(s) <= MAX_SECTION_WORDS for s in sections)
    assert " ".join(sections).split() == words.split()


def test_books_with_line_breaks_keep_long_chapters_whole() -> None:
    paras = "\n\n".join(prose(f"p{k}", 400, seed=k) for k in range(20))  # 8,000 words in real paragraphs
    chapters, _ = split_chapters(f"Chapter 1\n\n{paras}\n\nChapter 2\n\n{paras}")
    assert [ch.title for ch in chapters] == ["Chapter 1", "Chapter 2"]


@pytest.mark.parametrize("data", [b"Just one line of text.", b"Just one line of text.\n", b"  Hello  \r\n",
                                  b"A short poem\nin two lines"])
def test_a_one_line_text_imports_as_one_chapter(data: bytes) -> None:
    book = read_book("note.txt", data)
    assert len(book.chapters) == 1
    assert book.chapters[0].text.split() == data.decode().split()


@pytest.mark.parametrize(("data", "message"), [(b"", "empty"), (b" \n\t\n ", "empty"), (b"\x00\x01\x02" * 100,
                                                                                           "binary"),
                                               (b"abcdefghij" * 100_000, "No readable text"),
                                               (b". , ; -- !", "No readable text")])
def test_empty_binary_and_wordless_files_are_still_refused(data: bytes, message: str) -> None:
    with pytest.raises(IngestError, match=message):
        read_book("note.txt", data)


def test_word_counts_agree_with_split() -> None:
    text = ("alpha  beta\n\ngamma \t delta " * 300_000) + "omega"
    assert count_words(text) == len(text.split())
    assert more_words_than(text, 10) and not more_words_than("a b c", 3) and more_words_than("a b c d", 3)


def test_a_run_of_dots_not_followed_by_space_is_split_quickly() -> None:
    # The old end-mark pattern backtracked exponentially on such a run: 24 dots took 2 s, 26 about 9 s, 40 forever.
    for dots in (26, 100_000):
        started = time.perf_counter()
        assert split_sentences("It ended " + "." * dots + "x. Then more.")[-1] == "Then more."
        assert time.perf_counter() - started < 2, f"{dots} dots"


def test_sentences_after_a_full_stop_at_the_start_of_a_paragraph() -> None:
    assert split_sentences(". The end. Mr. Smith came.") == [".", "The end.", "Mr. Smith came."]
