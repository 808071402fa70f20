"""Paragraphs of plain text: split at blank lines (a keyword heading glued to its paragraph split off), tidied
(hard wraps undone, verse kept), joined back, and told apart from title pages and contents (is_prose)."""
from __future__ import annotations

import re

from core.ingest.flat import more_words_than
from core.ingest.headings import classify_line, looks_like_title

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_PROSE_MARK = re.compile(r"[a-z][a-z'’]*[,.;!?]")
_PROSE_SAMPLE = 20_000  # characters; the longest paragraph of the test novels has about 4,000


def paragraphs(text: str) -> list[str]:
    """Non-empty paragraphs; a keyword heading glued to its first paragraph ("CHAPTER I\\nIt was...") is split off."""
    out: list[str] = []
    for para in _PARAGRAPH_BREAK.split(text):
        para = para.strip("\n")
        if not para.strip():
            continue
        lines = para.split("\n")
        if len(lines) > 1 and _is_glued_heading(lines):
            out.append(lines[0])
            para = "\n".join(lines[1:])
        out.append(para)
    return out


def _is_glued_heading(lines: list[str]) -> bool:
    heading = classify_line(lines[0])
    if heading is None or heading.kind != "numbered" or heading.is_bare:
        return False
    return not (len(lines) <= 3 and all(looks_like_title(line) for line in lines[1:]))


def join_paragraphs(paras: list[str]) -> str:
    """Paragraphs tidied and separated by blank lines; scene-break lines ("*  *  *") are left out."""
    return "\n\n".join(tidy_paragraph(p) for p in paras if any(ch.isalnum() for ch in p))


def tidy_paragraph(para: str) -> str:
    """Unwrap hard-wrapped prose into one line; keep the line breaks of verse, letters and addresses."""
    lines = [line.rstrip() for line in para.split("\n")]
    if len(lines) == 1:
        return lines[0].strip()
    indented = sum(1 for line in lines if line.startswith("  "))
    body = lines[:-1]
    if sum(len(line) for line in body) / len(body) >= 50 and indented < len(lines) / 2:
        return " ".join(line.strip() for line in lines)
    return "\n".join(line.strip() for line in lines)


def is_prose(para: str) -> bool:
    """Sentences with lower-case words and punctuation, as opposed to title pages, contents lists and headings.

    A paragraph longer than any real one (line breaks lost) is judged by its first _PROSE_SAMPLE characters."""
    para = para[:_PROSE_SAMPLE]
    if not more_words_than(para, 5):
        return False
    letters = sum(1 for ch in para if ch.isalpha())
    lower = sum(1 for ch in para if ch.islower())
    return letters > 0 and lower / letters >= 0.6 and bool(_PROSE_MARK.search(para))
