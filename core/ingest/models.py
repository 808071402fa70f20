"""What a reader hands back: a book split into titled chapters of plain text, plus notes for the user."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RawChapter:
    """One chapter as read from the file: a display title and the text, paragraphs separated by blank lines."""

    title: str
    text: str


@dataclass
class ParsedBook:
    """A whole book. Title and author are None when the file does not say (the caller falls back to the file name).

    `warnings` are short sentences for the user about what was guessed or dropped (an encoding that had to be
    guessed, front matter that was skipped, a book without chapter headings that was cut into parts).
    """

    title: str | None
    author: str | None
    chapters: list[RawChapter]
    warnings: list[str] = field(default_factory=list)
