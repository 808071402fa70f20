"""Chapter detection in plain text: every heading style, contents lists, front matter, containers, fallbacks."""
from __future__ import annotations

import pytest

from core.ingest import read_book
from core.ingest.chapters import PART_WORDS, split_chapters
from core.ingest.headings import classify_line, smart_title_case, tidy_title


def prose(topic: str, sentences: int = 8) -> str:
    """A paragraph of ordinary sentences (about 13 words each) that mentions `topic`."""
    return " ".join(f"The {topic} walked slowly along the road, thinking about number {i} and the weather."
                    for i in range(sentences))


def titles(text: str) -> list[str]:
    return [ch.title for ch in split_chapters(text)[0]]


def test_arabic_numbered_chapters() -> None:
    text = f"Chapter 1\n\n\n{prose('cat')}\n\nChapter 2\n\n{prose('dog')}\n"
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Chapter 1", "Chapter 2"]
    assert chapters[0].text == prose("cat") and chapters[1].text == prose("dog")


def test_roman_chapter_with_inline_title() -> None:
    text = f"CHAPTER I. Down the Rabbit-Hole\n\n{prose('rabbit')}\n\nCHAPTER II. The Pool of Tears\n\n{prose('x')}"
    assert titles(text) == ["Chapter I. Down the Rabbit-Hole", "Chapter II. The Pool of Tears"]


def test_spelled_numbers_with_the_title_on_the_next_paragraph() -> None:
    text = (f"CHAPTER ONE\n\nPLAYING PILGRIMS\n\n{prose('Jo')}\n\nCHAPTER TWENTY-TWO\n\nPLEASANT MEADOWS\n\n"
            f"{prose('Meg')}")
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Chapter One: Playing Pilgrims", "Chapter Twenty-Two: Pleasant Meadows"]
    assert "PILGRIMS" not in chapters[0].text


def test_stave_with_colon_title_in_capitals() -> None:
    text = f"STAVE I:  MARLEY'S GHOST\n\n{prose('ghost')}\n\nSTAVE II:  THE FIRST OF THE THREE SPIRITS\n\n{prose('x')}"
    assert titles(text) == ["Stave I: Marley's Ghost", "Stave II: The First of the Three Spirits"]


def test_roman_numeral_alone_with_title_lines_below() -> None:
    text = f" I\n\n\n Introduction\n\n{prose('traveller')}\n\n II\n\n\n The Machine\n\n{prose('machine')}"
    assert titles(text) == ["I. Introduction", "II. The Machine"]


def test_roman_numeral_alone_without_title() -> None:
    text = f"I.\n\n{prose('a')}\n\nII.\n\n{prose('b')}\n\nIII.\n\n{prose('c')}"
    assert titles(text) == ["I", "II", "III"]


def test_adventures_with_numbered_sub_sections_and_a_change_of_style() -> None:
    text = (f"ADVENTURE I. A SCANDAL IN BOHEMIA\n\nI.\n\n{prose('Holmes')}\n\nII.\n\n{prose('Irene')}\n\n"
            f"ADVENTURE II. THE RED-HEADED LEAGUE\n\n{prose('Wilson')}\n\n"
            f"III. THE ADVENTURE OF THE BLUE CARBUNCLE\n\n{prose('goose')}\n\n"
            f"IV. THE ADVENTURE OF THE SPECKLED BAND\n\n{prose('snake')}")
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Adventure I. A Scandal in Bohemia", "Adventure II. The Red-Headed League",
                                           "III. The Adventure of the Blue Carbuncle",
                                           "IV. The Adventure of the Speckled Band"]
    assert "Irene" in chapters[0].text and "II." not in chapters[0].text.split()


def test_letters_then_chapters() -> None:
    text = (f"Letter 1\n\nTo Mrs. Saville, England.\n\n{prose('ship')}\n\nLetter 2\n\n{prose('ice')}\n\n"
            f"Chapter 1\n\n{prose('Geneva')}\n\nChapter 2\n\n{prose('science')}")
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Letter 1", "Letter 2", "Chapter 1", "Chapter 2"]
    assert chapters[0].text.startswith("To Mrs. Saville, England.")


def test_letters_inside_chapters_are_not_chapters() -> None:
    text = (f"Chapter 1\n\n{prose('a')}\n\nLetter 1\n\n{prose('b')}\n\nLetter 2\n\n{prose('c')}\n\n"
            f"Chapter 2\n\n{prose('d')}\n\nLetter 1\n\n{prose('e')}\n\nChapter 3\n\n{prose('f')}")
    assert titles(text) == ["Chapter 1", "Chapter 2", "Chapter 3"]


def test_part_headings_are_containers_not_chapters() -> None:
    text = (f"PART ONE\n\nCHAPTER 1\n\n{prose('a')}\n\nCHAPTER 2\n\n{prose('b')}\n\n"
            f"PART TWO\n\n“An epigraph, said someone, is a short quotation at the start.”\n\n"
            f"CHAPTER 3\n\n{prose('c')}")
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Chapter 1", "Chapter 2", "Chapter 3"]
    assert chapters[2].text.startswith("“An epigraph") and "PART" not in chapters[1].text


def test_parts_become_chapters_when_there_is_nothing_finer() -> None:
    text = f"PART I\n\n{prose('a')}\n\nPART II\n\n{prose('b')}"
    assert titles(text) == ["Part I", "Part II"]


def test_contents_list_on_consecutive_lines_is_skipped() -> None:
    text = ("CONTENTS\n\nCHAPTER I. I GO TO STYLES\nCHAPTER II. THE 16TH AND 17TH OF JULY\nCHAPTER III. THE NIGHT\n\n\n"
            f"CHAPTER I. I GO TO STYLES\n\n{prose('Hastings')}\n\nCHAPTER II. THE 16TH AND 17TH OF JULY\n\n"
            f"{prose('Poirot')}\n\nCHAPTER III. THE NIGHT\n\n{prose('night')}")
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Chapter I. I Go to Styles", "Chapter II. The 16th and 17th of July",
                                           "Chapter III. The Night"]
    assert chapters[0].text == prose("Hastings")


def test_contents_list_with_blank_lines_between_entries_is_skipped() -> None:
    toc = "\n\n".join(["Letter 1", "Letter 2", "Chapter 1", "Chapter 2", "Chapter 3"])
    body = "\n\n".join(f"{h}\n\n{prose(h)}" for h in ["Letter 1", "Letter 2", "Chapter 1", "Chapter 2", "Chapter 3"])
    chapters, _ = split_chapters(f"CONTENTS\n\n\n{toc}\n\n\n\n{body}")
    assert [c.title for c in chapters] == ["Letter 1", "Letter 2", "Chapter 1", "Chapter 2", "Chapter 3"]
    assert all(c.text == prose(c.title) for c in chapters)


def test_contents_entries_with_blurbs_are_dropped_as_duplicates() -> None:
    toc = "\n\n".join(f"CHAPTER {n}\n\nIn which {n} things happen to the hero of the story." for n in ("I", "II"))
    body = f"CHAPTER I\n\n{prose('hero')}\n\nCHAPTER II\n\n{prose('villain')}"
    assert titles(f"{toc}\n\n{body}") == ["Chapter I", "Chapter II"]


def test_short_preface_is_dropped_with_a_warning() -> None:
    text = (f"MY BOOK\n\nby A. Writer\n\nPREFACE\n\n{prose('reader', 3)}\n\n"
            f"Chapter 1\n\n{prose('a')}\n\nChapter 2\n\n{prose('b')}")
    chapters, warnings = split_chapters(text)
    assert [c.title for c in chapters] == ["Chapter 1", "Chapter 2"]
    assert warnings and "before the first chapter" in warnings[0]


def test_long_preface_is_kept_as_its_own_chapter() -> None:
    text = f"THE PREFACE\n\n{prose('artist', 30)}\n\nCHAPTER 1\n\n{prose('a')}\n\nCHAPTER 2\n\n{prose('b')}"
    assert titles(text) == ["The Preface", "Chapter 1", "Chapter 2"]


def test_long_unheaded_front_matter_becomes_a_preface() -> None:
    text = f"A NOVEL\n\nby Somebody\n\n{prose('author', 30)}\n\nChapter 1\n\n{prose('a')}\n\nChapter 2\n\n{prose('b')}"
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Preface", "Chapter 1", "Chapter 2"]
    assert chapters[0].text == prose("author", 30)


def test_prologue_and_epilogue_are_chapters() -> None:
    text = (f"PROLOGUE\n\n{prose('storm', 3)}\n\nChapter 1\n\n{prose('a')}\n\nChapter 2\n\n{prose('b')}\n\n"
            f"EPILOGUE\n\n{prose('calm', 3)}\n\nTHE END")
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Prologue", "Chapter 1", "Chapter 2", "Epilogue"]
    assert "THE END" not in chapters[-1].text


def test_book_without_headings_is_cut_into_parts_at_paragraph_ends() -> None:
    paragraphs = [prose(f"walker {i}", 10) for i in range(60)]  # about 8,000 words
    text = "THE LEGEND\n\nby Someone\n\n" + "\n\n".join(paragraphs)
    chapters, warnings = split_chapters(text)
    assert [c.title for c in chapters] == [f"Part {i}" for i in range(1, len(chapters) + 1)]
    assert 3 <= len(chapters) <= 5 and "No chapter headings" in warnings[0]
    assert all(0.5 * PART_WORDS <= len(c.text.split()) <= 1.6 * PART_WORDS for c in chapters)
    assert "\n\n".join(c.text for c in chapters) == "\n\n".join(paragraphs)


def test_book_without_headings_keeps_a_closing_postscript() -> None:
    text = "\n\n".join(prose(f"p{i}", 10) for i in range(30)) + f"\n\nPOSTSCRIPT.\n\nFOUND IN A DRAWER.\n\n{prose('x')}"
    chapters, _ = split_chapters(text)
    assert chapters[-1].title == "Postscript: Found in a Drawer" and chapters[0].title == "Part 1"


def test_a_heading_glued_to_its_first_paragraph_is_split_off() -> None:
    text = f"CHAPTER I\n{prose('glue')}\n\nCHAPTER II\n{prose('paste')}"
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Chapter I", "Chapter II"]
    assert chapters[0].text == prose("glue")


def test_heading_words_inside_prose_do_not_start_chapters() -> None:
    text = (f"Chapter 1\n\n{prose('a')}\n\nchapter 2 of the book was dull, she said.\n\nThe Letter I wrote was "
            f"long.\n\nPart of it was lost.\n\nChapter 2\n\n{prose('b')}")
    assert titles(text) == ["Chapter 1", "Chapter 2"]


def test_stray_numbers_and_scene_breaks_are_not_chapters() -> None:
    text = (f"Chapter 1\n\n{prose('a')}\n\n       01\n\n{prose('b')}\n\n*       *       *\n\n{prose('c')}\n\n"
            f"Chapter 2\n\n{prose('d')}\n\n       02\n\n{prose('e')}")
    chapters, _ = split_chapters(text)
    assert [c.title for c in chapters] == ["Chapter 1", "Chapter 2"]
    assert chapters[0].text == "\n\n".join([prose("a"), prose("b"), prose("c")])


def test_hard_wrapped_prose_is_unwrapped_but_verse_keeps_its_lines() -> None:
    wrapped = ("It was a truth universally acknowledged that a single man in possession\nof a good fortune "
               "must be in want of a wife, or so the neighbours said.")
    verse = "   Old longings nomadic leap,\n    Chafing at custom's chain;"
    chapters, _ = split_chapters(f"Chapter 1\n\n{wrapped}\n\n{verse}\n\nChapter 2\n\n{prose('x')}")
    assert chapters[0].text == wrapped.replace("\n", " ") + "\n\nOld longings nomadic leap,\nChafing at custom's chain;"


def test_read_book_reports_no_text_for_a_headings_only_file() -> None:
    from core.ingest import IngestError

    with pytest.raises(IngestError):
        read_book("toc.txt", b"CHAPTER I\n\nCHAPTER II\n\nCHAPTER III\n")


@pytest.mark.parametrize(("line", "expected"), [
    ("Chapter 12", "Chapter 12"), ("CHAPTER XII.", "Chapter XII"), ("Chap. iv", "Chapter IV"),
    ("CHAPTER THE FIRST", "Chapter the First"), ("BOOK THE SECOND", "Book the Second"),
    ("Chapter 3—The Storm", "Chapter 3 — The Storm"), ("Stave   I: Marley's Ghost", "Stave I: Marley's Ghost"),
    ("LITTLE WOMEN PART 2", "Part 2"), ("EPILOGUE", "Epilogue"), ("Contents", "Contents"),
])
def test_heading_lines_are_recognised(line: str, expected: str) -> None:
    heading = classify_line(line)
    assert heading is not None and heading.display() == expected


@pytest.mark.parametrize("line", ["chapter 1", "I WAS THERE", "Letter to Mrs. Smith", "Book in hand",
                                  "Part of the house was dark.", "1850", "The chapter ended.", "MIX", ""])
def test_ordinary_lines_are_not_headings(line: str) -> None:
    assert classify_line(line) is None


@pytest.mark.parametrize(("raw", "expected"), [
    ("THE 16TH AND 17TH OF JULY", "The 16th and 17th of July"), ("DR. BAUERSTEIN", "Dr. Bauerstein"),
    ("THE P.C. AND P.O.", "The P.C. and P.O."), ("“IT ISN’T STRYCHNINE, IS IT?”", "“It Isn’t Strychnine, Is It?”"),
    ("HENRY VIII AND THE RED-HEADED LEAGUE", "Henry VIII and the Red-Headed League"),
])
def test_capitals_become_title_case(raw: str, expected: str) -> None:
    assert smart_title_case(raw) == expected


def test_tidy_title_keeps_mixed_case_and_drops_a_closing_full_stop() -> None:
    assert tidy_title("  Down the   Rabbit-Hole. ") == "Down the Rabbit-Hole"
    assert tidy_title("Who Stole the Tarts?") == "Who Stole the Tarts?"
