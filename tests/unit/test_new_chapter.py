"""A continuation continues its chapter (core.write.new_chapter): a chapter heading the model writes is taken off at
the start and cuts the text later on; list items, dialogue about chapters and prose stay."""
from __future__ import annotations

import pytest

from core.write.new_chapter import heading_line, without_new_chapter


@pytest.mark.parametrize("line, heading", [
    ("CHAPTER 21", "CHAPTER 21"), ("Chapter XXI. The Return", "Chapter XXI. The Return"), ("XXI", "XXI"),
    ("**Chapter 2: The Ride**", "Chapter 2: The Ride"), ("## Chapter Three", "Chapter Three"), ("THE END", "THE END"),
    ("Part Two", "Part Two"),
    # not headings: a list's item, prose, dialogue, an empty line
    ("2. That was all he knew.", None), ("Part of the town slept.", None), ('"Chapter one is done," he said.', None),
    ("", None), ("The end of the lane was dark and he rode on toward the bridge.", None),
])
def test_a_heading_is_a_numbered_heading_or_an_end_standing_alone(line: str, heading: str | None) -> None:
    assert heading_line(line) == heading


def test_a_heading_at_the_start_is_taken_off_and_said() -> None:
    text, notes = without_new_chapter("CHAPTER 21\n\nThe next morning Ichabod rode to the school.")
    assert text == "The next morning Ichabod rode to the school."
    assert len(notes) == 1 and "“CHAPTER 21”" in notes[0] and "taken out" in notes[0]


def test_a_title_line_after_a_heading_at_the_start_goes_with_it() -> None:
    text, notes = without_new_chapter("CHAPTER XXVI.\n\nTHE STORY OF THE OLD LADY.\n\nThe story was told again.")
    assert text == "The story was told again."
    assert "“CHAPTER XXVI.”, “THE STORY OF THE OLD LADY.”" in notes[0]
    text, _ = without_new_chapter("CHAPTER 21\n\nThe next morning he rode on.\n\nIt rained.")
    assert text == "The next morning he rode on.\n\nIt rained."       # a sentence is no title


def test_a_later_heading_cuts_the_text_before_it() -> None:
    text, notes = without_new_chapter("He rode on.\n\nThe bridge was near.\n\nCHAPTER XXI\n\nThe school was empty.")
    assert text == "He rode on.\n\nThe bridge was near."
    assert notes == ["The model started a new chapter (“CHAPTER XXI”) after 7 words; the text ends before it, as a "
                     "continuation continues the chapter it follows."]
    text, notes = without_new_chapter("He rode on.\n\nTHE END\n\nNotes on the text.")
    assert text == "He rode on." and notes == ["The model ended the book (“THE END”) after 3 words; the text ends "
                                               "there."]


def test_kid_keeps_its_start_and_is_told() -> None:
    text, notes = without_new_chapter("CHAPTER 21\n\nThe next morning.", keep_start=True)
    assert text == "CHAPTER 21\n\nThe next morning." and "take it out before you save" in notes[0]


def test_prose_lists_and_a_lone_heading_stay() -> None:
    prose = 'I said, "Chapter one is done." He rode on.\n\nPart of the town slept.\n1. Bread\n2. That was all.'
    assert without_new_chapter(prose) == (prose, [])
    text, notes = without_new_chapter("CHAPTER 21")
    assert text == "CHAPTER 21" and "only a chapter heading" in notes[0]
