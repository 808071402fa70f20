"""Markdown books: heading levels as chapters, markup reduced to text, front matter and contents sections."""
from __future__ import annotations

from core.ingest import read_book

PROSE = "The rain fell on the roofs of the town all night, and nobody in the house could sleep at all."


def parse(md: str, name: str = "book.md"):  # noqa: ANN201 - ParsedBook
    return read_book(name, md.encode("utf-8"))


def test_level_two_chapters_under_a_title_heading() -> None:
    md = f"# The Storm\n\n## Chapter 1: The **Start**\n\n{PROSE}\n\n## Chapter 2\n\n{PROSE}\n"
    book = parse(md)
    assert book.title == "The Storm"
    assert [c.title for c in book.chapters] == ["Chapter 1: The Start", "Chapter 2"]
    assert book.chapters[0].text == PROSE


def test_level_one_chapters_keep_sub_headings_as_text() -> None:
    md = f"# One\n\n{PROSE}\n\n## A scene\n\n{PROSE}\n\n# Two\n\n{PROSE}\n"
    book = parse(md, "book.markdown")
    assert [c.title for c in book.chapters] == ["One", "Two"]
    assert book.chapters[0].text == f"{PROSE}\n\nA scene\n\n{PROSE}"


def test_setext_headings_and_yaml_front_matter() -> None:
    md = (f"---\ntitle: \"Front Title\"\nauthor: Jane Doe\n---\n\nFirst\n=====\n\n{PROSE}\n\nSecond\n======\n\n"
          f"{PROSE}\n")
    book = parse(md)
    assert (book.title, book.author) == ("Front Title", "Jane Doe")
    assert [c.title for c in book.chapters] == ["First", "Second"]


def test_markup_is_stripped() -> None:
    md = ("## Chapter 1\n\nIt was *dark* and _stormy_ and **loud**. She read [the letter](http://x.invalid) "
          "![a picture](p.png) and `code` and <span class=\"x\">a tag</span> &amp; more.\n\n> A quoted line.\n\n"
          "* * *\n\n- a listed thing\n\n<!-- a comment\nover lines -->\n\n```\nfenced text\n```\n\n"
          f"[ref]: http://example.invalid\n\n{PROSE}\n\n## Chapter 2\n\n{PROSE}")
    text = parse(md).chapters[0].text
    assert text.split("\n\n") == ["It was dark and stormy and loud. She read the letter and code and a tag & more.",
                                  "A quoted line.", "a listed thing", "fenced text", PROSE]


def test_contents_section_is_skipped() -> None:
    md = (f"# Book\n\n## Contents\n\n- [Chapter 1](#c1)\n- [Chapter 2](#c2)\n\n## Chapter 1\n\n{PROSE}\n\n"
          f"## Chapter 2\n\n{PROSE}")
    assert [c.title for c in parse(md).chapters] == ["Chapter 1", "Chapter 2"]


def test_plain_chapter_lines_are_found_without_any_hash_headings() -> None:
    md = f"My Story\n\nCHAPTER I\n\n{PROSE}\n\nCHAPTER II\n\n{PROSE}\n"
    assert [c.title for c in parse(md).chapters] == ["Chapter I", "Chapter II"]


def test_a_single_title_heading_with_unstructured_text_becomes_one_part() -> None:
    book = parse(f"# A Short Piece\n\n{PROSE}\n\n{PROSE}\n")
    assert book.title == "A Short Piece"
    assert [c.title for c in book.chapters] == ["Part 1"]
