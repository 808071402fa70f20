"""Cutting a chapter into passages for retrieval and extraction.

Passages hold at most `max_words` words. Whole paragraphs are packed together while they fit; a paragraph that
does not fit starts a new passage, unless the current one is less than half full, in which case the paragraph is
split at sentence boundaries to top it up (so dialogue-heavy chapters do not produce many tiny passages). A
sentence longer than a whole passage is cut at word boundaries. Every word of the input appears exactly once, in
order; only the white space between words is normalised (a space within a paragraph, a blank line between).
"""
from __future__ import annotations

import re

from core.ingest.sentences import split_sentences

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")


class _Packer:
    """Accumulates paragraphs and sentences into passages of at most `limit` words."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: list[str] = []
        self.paras: list[list[str]] = []  # the pieces of each paragraph (or paragraph part) of the passage being built
        self.words = 0

    def room(self) -> int:
        return self.limit - self.words

    def add(self, text: str, count: int, new_paragraph: bool) -> None:
        """Append `count` words (single-spaced `text`) known to fit; continue the last paragraph unless
        `new_paragraph`. Pieces are joined once, at flush: appending to a string would copy it every time."""
        if new_paragraph or not self.paras:
            self.paras.append([text])
        else:
            self.paras[-1].append(text)
        self.words += count

    def flush(self) -> None:
        if self.paras:
            self.chunks.append("\n\n".join(" ".join(pieces) for pieces in self.paras))
        self.paras, self.words = [], 0


def chunk_text(text: str, max_words: int = 240) -> list[str]:
    """Passages of at most `max_words` words, cut at paragraph, then sentence, then word boundaries."""
    if max_words < 1:
        raise ValueError("max_words must be at least 1")
    packer = _Packer(max_words)
    for para in _PARAGRAPH_BREAK.split(text):
        words = para.split()
        if not words:
            continue
        if len(words) <= packer.room():
            packer.add(" ".join(words), len(words), new_paragraph=True)
            continue
        if len(words) <= max_words and packer.words >= max_words // 2:
            packer.flush()
            packer.add(" ".join(words), len(words), new_paragraph=True)
            continue
        _add_sentences(packer, para)
    packer.flush()
    return packer.chunks


def _add_sentences(packer: _Packer, para: str) -> None:
    new_paragraph = True
    for sentence in split_sentences(para):  # single-spaced already
        count = sentence.count(" ") + 1
        if count > packer.room():
            packer.flush()
            new_paragraph = True
        if count <= packer.limit:
            packer.add(sentence, count, new_paragraph)
            new_paragraph = False
            continue
        # One sentence longer than a passage is cut at word boundaries. An offset walks through it: re-slicing
        # the rest after every cut copied it each time, quadratic in a million-word "sentence" (a verse file).
        words = sentence.split(" ")
        start = 0
        while len(words) - start > packer.limit:
            packer.add(" ".join(words[start:start + packer.limit]), packer.limit, new_paragraph)
            packer.flush()
            start += packer.limit
            new_paragraph = False
        if start < len(words):
            packer.add(" ".join(words[start:]), len(words) - start, new_paragraph)
            new_paragraph = False
