"""Where a parsed sentence sits in its chapter's text, as character offsets.

The parse reads passages that were re-spaced (core.ingest.chunking joins words with single spaces) and cleaned
(core.nlp.clean_for_parsing drops _italics_ marks and turns "--" into a dash), so a sentence is not a substring of the
chapter. Both are compared as their letters and digits only, lower-cased; the match maps back to the chapter's own
characters. Sentences arrive in reading order, so each search starts near the last match (linear in the chapter).
"""
from __future__ import annotations

from collections.abc import Iterable

from core.continuity.model import State
from core.kg.state_base import StateFact


def _letters(text: str) -> tuple[str, list[int]]:
    kept: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch.isalnum():
            kept.append(ch.lower())
            where.append(i)
    return "".join(kept), where


class Locator:
    """Finds sentences in one chapter's text, in reading order."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.letters, self.where = _letters(text)
        self.cursor = 0
        self.found: dict[str, tuple[int, int]] = {}

    def find(self, sentence: str) -> tuple[int, int]:
        """(start, end) of `sentence` in the chapter, or (-1, -1) when it is not there."""
        if sentence in self.found:
            return self.found[sentence]
        key = _letters(sentence)[0]
        if not key:
            return (-1, -1)
        at = self.letters.find(key, self.cursor)
        if at < 0:
            at = self.letters.find(key)
        if at < 0:
            span = (-1, -1)
        else:
            self.cursor = at
            span = (self.where[at], self.where[at + len(key) - 1] + 1)
            # keep the sentence's closing punctuation and quotation mark, as the parse had them
            end = span[1]
            while end < len(self.text) and end - span[1] < 3 and self.text[end] in ".!?;:\"'”’)":
                end += 1
            span = (span[0], end)
        self.found[sentence] = span
        return span


def locate(chapter: int, text: str, facts: Iterable[StateFact]) -> list[State]:
    """The chapter's facts with offsets in `text` (the chapter as stored)."""
    finder = Locator(text)
    out: list[State] = []
    for f in facts:
        start, end = finder.find(f.sentence)
        sentence = text[start:end] if start >= 0 else f.sentence
        out.append(State(chapter, f.name, f.kind, f.key, f.value, " ".join(sentence.split()), start, end, f.cue,
                         f.confidence))
    return out
