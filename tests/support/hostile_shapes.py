"""Hostile shapes of plain text under the upload limit, made on demand (8 to 25 MB each, too big to commit): used by
tests/integration/test_hostile_shapes.py (time linear in size) and bench/ingest.py (seconds per MB)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    filename: str
    make: Callable[[int], bytes]
    full: int  # the size parameter at the size issue 19 names
    why: str
    rejected: str | None = None  # the message fragment when the shape must be refused

    def units_for(self, size: int) -> int:
        """The largest size parameter found that makes at most `size` bytes (within a thousandth)."""
        units = 1000
        for _ in range(4):  # the bytes per unit can grow with the unit count (numbered lines)
            units = int(units * size / len(self.make(units)) * 0.999)
        return units


def _numbered_lines(n: int) -> bytes:
    return "".join(f"line {i} of the book\n" for i in range(n)).encode()


SHAPES = {
    "chapter_then_short_lines": Shape("lines.txt", lambda n: b"Chapter 1\n\n" + b"He ran.\n" * n, 1_000_000,
                                      '"Chapter 1" then a million lines "He ran." (took over 15 minutes once)'),
    "one_paragraph_of_sentences": Shape("sentences.txt", lambda n: b"He ran. " * n, 1_000_000,
                                        "one paragraph of a million sentences"),
    "one_sentence_paragraphs": Shape("paragraphs.txt", lambda n: b"He ran.\n\n" * n, 1_000_000,
                                     "a million one-sentence paragraphs"),
    "million_lines": Shape("numbered.txt", _numbered_lines, 1_000_000, "a million numbered lines, no blank line"),
    "markdown_short_lines": Shape("lines.md", lambda n: b"# Chapter 1\n\n" + b"He ran.\n" * n, 1_000_000,
                                  "a Markdown heading then a million short lines"),
    "no_whitespace": Shape("blob.txt", lambda n: b"abcdefghijklmnopqrstuvwxy" * n, 1_000_000,
                           "25 MB without white space: one 'word', refused", rejected="No readable text"),
}
