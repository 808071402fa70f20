"""GraphRAG-Bench's novels are whole books flattened onto one line: each must import as chapters of a readable size
(found from the headings inside the running text where there are any), with every word of the book kept in order.
Skipped where the shared data is not present."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.ingest import chunk_text, read_book
from core.ingest.gutenberg import strip_transcription_marks
from tests.conftest import shared_missing

BOOKS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "graphrag_bench_novel" / "books"
NAMES = sorted(p.name for p in BOOKS.glob("*.txt")) if BOOKS.is_dir() else []
MIN_CHAPTERS = 5
MAX_WORDS = 5000
# Books whose headings are in the text: the first chapter's title (all ten are checked for size and words).
HEADED = {
    "Novel-10356.txt": "Chapter I. The Mogador Jewesses",  # a contents list with the same headings comes first
    "Novel-25646.txt": "Chapter I. Joints and Bones",
    "Novel-26183.txt": "Chapter I. Introduction",  # "CHAPTER I INTRODUCTION", no separator
    "Novel-44557.txt": "Day the First",  # "DAY THE FIRST": no chapter keyword, a sequence from one
    "Novel-47558.txt": "Scene First — Introduction",
    "Novel-51410.txt": "Chapter I. Inglis of Kingsmills, Inverness-Shire Part I America",
    "Novel-58553.txt": "Chapter I. A Grand-Daughter of the Revolution",
}


@pytest.mark.skipif(not NAMES, reason=shared_missing(BOOKS))
def test_the_ten_dev_books_are_all_there() -> None:
    assert len(NAMES) == 10 and set(HEADED) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_flattened_book_imports_as_chapters_of_readable_size(name: str) -> None:
    data = (BOOKS / name).read_bytes()
    assert b"\n" not in data.strip()  # the premise: one line
    book = read_book(name, data)
    sizes = [len(ch.text.split()) for ch in book.chapters]
    assert len(sizes) >= MIN_CHAPTERS and max(sizes) <= MAX_WORDS, list(zip([c.title for c in book.chapters], sizes))
    titles = [ch.title for ch in book.chapters]
    if name in HEADED:
        assert HEADED[name] in titles, titles
        assert not any(t.startswith("Part ") for t in titles), titles
    else:
        assert titles == [f"Part {k}" for k in range(1, len(titles) + 1)]
    # Nothing but front and end matter is dropped (credits, title page, a contents list, transcribers' notes,
    # Gutenberg's closing line); each chapter starts where a sentence of the book starts (not inside a word); the
    # book's last words end the last chapter; the passages hold each chapter's words.
    source = " ".join(strip_transcription_marks(data.decode("utf-8")).split())  # [Illustration]s, notes, _italics_
    kept = [w for ch in book.chapters for w in ch.text.split()]
    assert len(kept) >= 0.97 * len(source.split())
    last = " ".join(kept[-50:])
    after = source[source.rindex(last) + len(last):].strip()
    assert not after or after.startswith("End of "), after[:200]
    assert "Project Gutenberg" not in book.chapters[-1].text[-500:]
    for chapter in book.chapters:
        opening = " ".join(chapter.text.split()[:8])
        assert opening in source, (chapter.title, opening)
        first = chapter.text.lstrip("\"'‘“`|([")[:1]
        assert first.isupper() or first.isdigit() or chapter.title == "Part 1", chapter.title
        assert " ".join(chunk_text(chapter.text)).split() == chapter.text.split()
