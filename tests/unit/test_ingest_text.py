"""Decoding (encodings, binary and empty files), file-type dispatch and Project Gutenberg cleanup."""
from __future__ import annotations

import codecs
import io
import zipfile
from pathlib import Path

import pytest

from core.ingest import IngestError, read_book
from core.ingest.gutenberg import strip_gutenberg, strip_transcription_marks
from core.ingest.text import decode_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
STORY = ("CHAPTER I. The Arrival\n\nMarie arrived at the château on a grey morning. Her café au lait was cold, and "
         "the naïve porter smiled at “the English lady”. " * 6 + "\n\nCHAPTER II. The Letter\n\n"
         + "A letter came from Zoë, who wrote of the façade and the garden. " * 8)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp1252", "utf-16", "utf-16-le", "utf-16-be",
                                      "utf-32"])
def test_common_encodings_decode_to_the_same_text(encoding: str) -> None:
    text, _ = decode_text(STORY.encode(encoding))
    assert text == STORY


def test_utf16_cut_mid_character_still_decodes() -> None:
    text, used = decode_text(STORY.encode("utf-16")[:-1])
    assert used == "utf-16-le" and text.startswith(STORY[:200])


def test_latin1_text_decodes() -> None:
    latin = STORY.replace("“", '"').replace("”", '"')
    text, used = decode_text(latin.encode("latin-1"))
    assert text == latin and used in ("cp1252", "latin-1")


def test_cp1252_smart_quotes_and_dashes() -> None:
    text, used = decode_text("He said \u201cwait\u201d \u2014 and left\u2026 Caf\u00e9.".encode("cp1252"))
    assert text == "He said “wait” — and left… Café." and used == "cp1252"


def test_utf8_with_a_stray_windows_byte_keeps_its_utf8() -> None:
    data = ("Déjà vu, naïve café, ça va? " * 20).encode("utf-8") + b"caf\xe9 au lait"
    text, used = decode_text(data)
    assert used == "utf-8" and "Déjà vu" in text and text.endswith("café au lait")


def test_cyrillic_code_page_is_not_read_as_western() -> None:
    russian = "Мой дядя самых честных правил, когда не в шутку занемог, он уважать себя заставил. " * 20
    text, used = decode_text(russian.encode("cp1251"))
    assert "дядя" in text and used != "cp1252"


def test_newlines_are_normalised_and_a_stray_nul_dropped() -> None:
    text, _ = decode_text(b"one\r\ntwo\rthree\n\x0cfour" + b" word" * 400 + b"\x00")
    assert text.startswith("one\ntwo\nthree\n\n\nfour word") and "\x00" not in text


@pytest.mark.parametrize("data", [b"", b"   \n\n\t  ", codecs.BOM_UTF8 + b"  \n", "  \n".encode("utf-16")],
                         ids=["empty", "blank", "bom-blank", "utf16-blank"])
def test_empty_files_are_rejected(data: bytes) -> None:
    with pytest.raises(IngestError, match="(?i)empty|blank"):
        read_book("book.txt", data)


def _zip_bytes() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("a.txt", "hello")
    return buf.getvalue()


@pytest.mark.parametrize(("data", "expected"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8, "PNG"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(range(256)) * 4, "JPEG"),
    (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF"),
    (_zip_bytes(), "ZIP"),
    (bytes(range(256)) * 64, "binary"),
    (b"text with some nulls \x00\x00\x00\x01\x02\x03" * 100, "binary"),
], ids=["png", "jpeg", "pdf", "zip", "random", "nul-heavy"])
def test_binary_files_are_rejected_with_a_clear_message(data: bytes, expected: str) -> None:
    with pytest.raises(IngestError, match=expected):
        read_book("renamed.txt", data)


@pytest.mark.parametrize("name", ["book.doc", "book.rtf", "book", "book.txt.exe"])
def test_unsupported_extensions_are_rejected(name: str) -> None:
    with pytest.raises(IngestError, match="not supported"):
        read_book(name, STORY.encode())


@pytest.mark.parametrize("name", ["Book.TXT", "book.Txt", "dir/book.txt"])
def test_extension_is_case_insensitive(name: str) -> None:
    assert len(read_book(name, STORY.encode()).chapters) == 2


def test_non_utf8_file_gets_a_warning() -> None:
    book = read_book("book.txt", STORY.encode("cp1252"))
    assert any("cp1252" in w for w in book.warnings)
    assert "château" in book.chapters[0].text


def test_gutenberg_fixture_is_cleaned() -> None:
    book = read_book("harbour.txt", (FIXTURES / "gutenberg_sample.txt").read_bytes())
    assert book.title == "The Harbour Tale: A Story of the Sea"
    assert book.author == "Ann Example"
    assert [ch.title for ch in book.chapters] == ["Chapter I. The Basket", "Chapter II. The Boats"]
    everything = "\n".join(ch.text for ch in book.chapters)
    for boilerplate in ("Gutenberg", "LICENSE", "Produced by", "gutenberg.org", "***", "[Illustration"):
        assert boilerplate not in everything
    assert "It was a bright cold day" in book.chapters[0].text
    assert "She said it was very cold." in book.chapters[0].text
    assert book.chapters[1].text.endswith("the wind dropped.")


@pytest.mark.parametrize(("start", "end"), [
    ("*** START OF THE PROJECT GUTENBERG EBOOK THE HARBOUR TALE ***", "*** END OF THE PROJECT GUTENBERG EBOOK X ***"),
    ("***START OF THE PROJECT GUTENBERG EBOOK THE HARBOUR TALE***", "***END OF THE PROJECT GUTENBERG EBOOK X***"),
    ("*** START OF THIS PROJECT GUTENBERG EBOOK THE\nHARBOUR TALE ***", "End of the Project Gutenberg EBook of X"),
    ("*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*", "End of Project Gutenberg's X, by Y"),
    ("*** START OF THE PROJECT GUTENBERG EBOOK X ***", "END OF THIS PROJECT GUTENBERG EBOOK X"),
])
def test_gutenberg_marker_variants(start: str, end: str) -> None:
    text = f"Project Gutenberg header\nTitle: X\n\n{start}\n\nThe real story begins.\n\n{end}\n\nLicence text here."
    result = strip_gutenberg(text)
    assert result.is_gutenberg and result.title == "X"
    assert result.body.strip() == "The real story begins."


def test_title_and_author_from_the_first_line_when_the_header_lacks_them() -> None:
    text = ("The Project Gutenberg EBook of Some Book, by Some Body\n\n*** START OF THIS PROJECT GUTENBERG EBOOK "
            "SOME BOOK ***\n\nText.\n")
    result = strip_gutenberg(text)
    assert (result.title, result.author) == ("Some Book", "Some Body")


def test_text_without_gutenberg_markers_is_untouched() -> None:
    result = strip_gutenberg(STORY)
    assert not result.is_gutenberg and result.body == STORY and result.title is None


def test_transcription_marks_are_removed_but_snake_case_stays() -> None:
    text = "A _nil_ value in my_var.\n\n[Illustration: A cat\nsitting]\n\n_To Mrs. Saville, England._"
    assert strip_transcription_marks(text) == "A nil value in my_var.\n\n\n\nTo Mrs. Saville, England."


def test_an_illustrated_initial_keeps_its_letter() -> None:
    text = ("CHAPTER XII.\n\n[Illustration: H]ERE, at last, is the bill.\n\n[Illustration: A] man came. "
            "[Illustration: B]")
    assert strip_transcription_marks(text) == "CHAPTER XII.\n\nHERE, at last, is the bill.\n\nA man came. B"
    assert strip_transcription_marks("[Illustration: A dog]Buck ran.") == "Buck ran."   # a caption, not a letter


def test_title_page_of_a_plain_text_file_gives_title_and_author() -> None:
    text = "THE HARBOUR TALE\n\nby Ann Example\n\n\n" + STORY
    book = read_book("tale.txt", text.encode())
    assert (book.title, book.author) == ("The Harbour Tale", "Ann Example")
    assert read_book("story.txt", STORY.encode()).title is None


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_only_ever_raise_ingest_error(seed: int) -> None:
    import random

    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 5000)))
    for name in ("x.txt", "x.md", "x.epub"):
        try:
            read_book(name, data)
        except IngestError:
            pass


def test_a_book_flattened_onto_one_line_that_starts_with_its_credits_is_kept() -> None:
    """GraphRAG-Bench's books are one line each; one starts "E-text prepared by ..." and was dropped whole."""
    from core.ingest.gutenberg import strip_gutenberg
    body = ("E-text prepared by a volunteer team from page images. " + "Dr. Inglis went to Serbia in 1915. " * 200)
    text = "*** START OF THE PROJECT GUTENBERG EBOOK A HOSPITAL IN SERBIA ***\n\n" + body
    assert "Dr. Inglis went to Serbia" in strip_gutenberg(text).body
    short = "*** START OF THE PROJECT GUTENBERG EBOOK X ***\n\nProduced by A Volunteer.\n\nChapter 1\n\nIt begins."
    assert "Produced by" not in strip_gutenberg(short).body


PULP = ("Produced by Greg Weeks, Mary Meehan and the Online\nDistributed Proofreading Team at http://www.pgdp.net\n"
        "DOORWAY TO THE STARS\nBy Ann Example\n\n[Transcriber's Note: This etext was produced from\n\nPlanet Stories "
        "Winter 1944. Extensive research did not uncover any evidence that\nthe U.S. copyright on this publication "
        "was renewed.]\n\n" + "Syme Rector walked into the city of Kal-Jmar at dusk, and the robots watched him. "
        * 40 + "\n\nEnd of Project Gutenberg's Doorway to the Stars, by Ann Example\n")


def test_a_story_without_the_gutenberg_header_loses_its_credits_note_and_closing_line() -> None:
    """SQuALITY's pulp stories: no START marker, a Distributed Proofreaders credit, a bracketed transcriber's note
    ("Planet Stories", "U.S." and "Transcriber" became names in the graph) and Gutenberg's closing line."""
    book = read_book("doorway.txt", PULP.encode("utf-8"))
    text = "\n".join(ch.text for ch in book.chapters)
    for gone in ("Produced by", "pgdp", "Transcriber", "Planet Stories", "copyright", "End of Project Gutenberg"):
        assert gone not in text, gone
    assert text.count("Syme Rector walked into the city of Kal-Jmar at dusk") == 40
    body = strip_gutenberg(PULP).body
    assert body.startswith("DOORWAY TO THE STARS\nBy Ann Example")   # the credits end at their web address


def test_transcriber_notes_go_only_as_front_or_back_matter_or_in_brackets() -> None:
    story = "Ann read the old letter by the fire. " * 400
    middle = story + "\n\nTranscriber's notes were all she had left of her father's work.\n\n" + story
    assert strip_transcription_marks(middle) == middle          # a sentence of the story, mid-book
    bracketed = story + "\n\n[Transcriber's note: the [sic] is in the original.]\n\n" + story
    assert "sic" not in strip_transcription_marks(bracketed) and strip_transcription_marks(bracketed).count(
        "Ann read") == 800
    unclosed = story + "[Transcriber's note: " + story
    assert strip_transcription_marks(unclosed) == unclosed       # no closing bracket: nothing is cut
    back = story + "\n\nTranscriber’s Notes:\nTypographical errors were silently corrected.\n"
    assert strip_transcription_marks(back).rstrip() == story.rstrip()
    flat = story + "Transcriber's Notes: Obvious punctuation errors repaired. End of the Project Gutenberg EBook of X"
    result = strip_gutenberg(flat)
    assert result.is_gutenberg and strip_transcription_marks(result.body).rstrip() == story.rstrip()


def test_a_first_sentence_that_starts_like_a_credit_is_kept() -> None:
    """"Prepared for the worst, ..." is the story; only "<verb> by / from ..." credits a producer."""
    text = ("*** START OF THE PROJECT GUTENBERG EBOOK X ***\n\nPrepared for the worst, Ann opened the door.\n\n"
            + "She smiled at the visitor. " * 50)
    assert strip_gutenberg(text).body.startswith("Prepared for the worst")
    flat = "Produced by A. Volunteer and the Online Distributed Proofreading Team at http://www.pgdp.net. " + \
        "It was a dark night. " * 200
    assert strip_gutenberg(flat).body.startswith("It was a dark night.")


def test_a_file_of_would_be_notes_and_credits_is_cleaned_in_linear_time() -> None:
    """Each would-be note is looked at over a bounded stretch, and only the first hundred: a hostile file of
    unclosed "[Transcriber's note" openings must not take quadratic time."""
    import time
    for hostile in ("[Transcriber's note " * 100_000, "Transcriber's Notes " * 100_000,
                    "(This file was produced " * 80_000):
        started = time.perf_counter()
        strip_transcription_marks(hostile)
        strip_gutenberg(hostile)
        assert time.perf_counter() - started < 2.0
