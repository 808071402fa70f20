"""The real novels in ../shared/data/novels: chapter counts, titles, metadata, speed, and no Gutenberg licence
left in any chapter. Skipped where the shared data is not present."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from core.ingest import ParsedBook, chunk_text, read_book
from tests.conftest import shared_missing

NOVELS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "novels"

# file -> (chapter count, first title, last title, a title somewhere in between, (title, author))
EXPECTED: dict[str, tuple[int, str, str, str, tuple[str, str]]] = {
    "txt/pride_and_prejudice_pg1342.txt": (61, "Chapter 1", "Chapter 61", "Chapter 34",
                                           ("Pride and Prejudice", "Jane Austen")),
    "txt/alice_in_wonderland_pg11.txt": (12, "Chapter I. Down the Rabbit-Hole", "Chapter XII. Alice’s Evidence",
                                         "Chapter VII. A Mad Tea-Party",
                                         ("Alice’s Adventures in Wonderland", "Lewis Carroll")),
    "txt/a_christmas_carol_pg46.txt": (5, "Stave I: Marley's Ghost", "Stave V: The End of It",
                                       "Stave III: The Second of the Three Spirits",
                                       ("A Christmas Carol: A Ghost Story of Christmas", "Charles Dickens")),
    # Four letters, then 24 chapters.
    "txt/frankenstein_pg84.txt": (28, "Letter 1", "Chapter 24", "Letter 4",
                                  ("Frankenstein; or The Modern Prometheus", "Mary Wollstonecraft (Godwin) Shelley")),
    # "ADVENTURE I. ..." to "VI", then "VII. THE ADVENTURE OF ..." to "XII"; "I." to "III." inside the first are
    # sections, not stories.
    "txt/adventures_of_sherlock_holmes_pg1661.txt": (12, "Adventure I. A Scandal in Bohemia",
                                                     "XII. The Adventure of the Copper Beeches",
                                                     "VII. The Adventure of the Blue Carbuncle",
                                                     ("The Adventures of Sherlock Holmes", "Arthur Conan Doyle")),
    # I-XVI plus the Epilogue, which the book's own contents list as a section of its own.
    "txt/the_time_machine_pg35.txt": (17, "I. Introduction", "Epilogue", "XVI. After the Story",
                                      ("The Time Machine", "H. G. Wells")),
    "txt/the_call_of_the_wild_pg215.txt": (7, "Chapter I. Into the Primitive", "Chapter VII. The Sounding of the Call",
                                           "Chapter IV. Who Has Won to Mastership",
                                           ("The Call of the Wild", "Jack London")),
    # Two parts in one volume; the PART headings are containers, not chapters.
    "txt/little_women_pg514.txt": (47, "Chapter One: Playing Pilgrims", "Chapter Forty-Seven: Harvest Time",
                                   "Chapter Twenty-Four: Gossip", ("Little Women", "Louisa May Alcott")),
    "txt/the_mysterious_affair_at_styles_pg863.txt": (13, "Chapter I. I Go to Styles", "Chapter XIII. Poirot Explains",
                                                      "Chapter V. “It Isn’t Strychnine, Is It?”",
                                                      ("The Mysterious Affair at Styles", "Agatha Christie")),
    # Wilde's preface (about 380 words of aphorisms) is substantial prose by the author, so it is kept.
    "txt/the_picture_of_dorian_gray_pg174.txt": (21, "The Preface", "Chapter 20", "Chapter 1",
                                                 ("The Picture of Dorian Gray", "Oscar Wilde")),
    # No headings: parts of about 2,000 words, then Knickerbocker's postscript.
    "txt/the_legend_of_sleepy_hollow_pg41.txt": (7, "Part 1",
                                                 "Postscript: Found in the Handwriting of Mr. Knickerbocker", "Part 6",
                                                 ("The Legend of Sleepy Hollow", "Washington Irving")),
    "epub/a_christmas_carol_standardebooks.epub": (5, "Stave I: Marley’s Ghost", "Stave V: The End of It",
                                                   "Stave II: The First of the Three Spirits",
                                                   ("A Christmas Carol", "Charles Dickens")),
    # An abridged edition with ten chapters.
    "epub/alice_in_wonderland_epubjs_fixture.epub": (10, "Down The Rabbit-Hole", "Alice's Evidence",
                                                     "A Mad Tea-Party",
                                                     ("Alice's Adventures in Wonderland", "Lewis Carroll")),
}
LICENCE_MARKERS = ("gutenberg", "*** start", "*** end", "full license", "www.gutenberg", "this ebook is for the use")


def _read(name: str) -> tuple[ParsedBook, float]:
    path = NOVELS / name
    if not path.exists():
        pytest.skip(shared_missing(path))
    started = time.perf_counter()
    book = read_book(path.name, path.read_bytes())
    return book, time.perf_counter() - started


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_novel_chapters_and_titles(name: str) -> None:
    count, first, last, middle, (title, author) = EXPECTED[name]
    book, seconds = _read(name)
    titles = [ch.title for ch in book.chapters]
    assert len(titles) == count, titles
    assert (titles[0], titles[-1]) == (first, last)
    assert middle in titles
    assert (book.title, book.author) == (title, author)
    assert seconds < 3, f"{name} took {seconds:.2f} s"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_no_licence_text_or_empty_chapters(name: str) -> None:
    book, _ = _read(name)
    assert len(set(ch.title for ch in book.chapters)) == len(book.chapters), "duplicate titles"
    for ch in book.chapters:
        assert len(ch.text.split()) >= 200, f"{ch.title} is nearly empty"
        assert 0 < len(ch.title) <= 80
        lowered = ch.text.lower()
        assert not any(marker in lowered for marker in LICENCE_MARKERS), ch.title
        assert not ch.text.startswith(ch.title), f"{ch.title}: heading repeated in the text"


def test_chunking_a_whole_novel_keeps_every_word() -> None:
    book, _ = _read("txt/pride_and_prejudice_pg1342.txt")
    started = time.perf_counter()
    for ch in book.chapters:
        chunks = chunk_text(ch.text)
        assert all(len(c.split()) <= 240 for c in chunks)
        assert " ".join(chunks).split() == ch.text.split()
    assert time.perf_counter() - started < 5


def test_all_novels_parse_in_a_few_seconds() -> None:
    total = sum(_read(name)[1] for name in EXPECTED)
    assert total < 8, f"{total:.2f} s for all books"
