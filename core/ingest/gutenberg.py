"""Project Gutenberg plain-text conventions: the header, the licence footer, producer credits, _italics_ and
[Illustration] markers.

Gutenberg files have changed their wording many times since the 1990s ("*** START OF THIS PROJECT GUTENBERG
EBOOK", "***START OF THE PROJECT GUTENBERG EBOOK", "*END*THE SMALL PRINT!", "End of the Project Gutenberg EBook",
"End of Project Gutenberg's ..."), so the markers are matched loosely, case-insensitively and at line starts only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

START_MARKER = re.compile(
    r"^[ \t]*(?:\*{3}[ \t]*START OF (?:THE |THIS )?PROJECT GUTENBERG\b.*"
    r"|.*\*END\*[ \t]*THE SMALL PRINT!.*)$", re.IGNORECASE | re.MULTILINE)
END_MARKER = re.compile(
    r"^[ \t]*(?:\*{3}[ \t]*END OF (?:THE |THIS )?PROJECT GUTENBERG\b"
    r"|END OF (?:THE |THIS )?PROJECT GUTENBERG(?:['’]S)? E-?(?:BOOK|TEXT)\b"
    r"|End of (?:the |this )?Project Gutenberg\b"
    r"|\*{3}[ \t]*START: FULL LICEN[CS]E)", re.IGNORECASE | re.MULTILINE)
_TITLE = re.compile(r"^Title:[ \t]*(.+(?:\n[ \t]+\S.*)*)", re.MULTILINE)
_AUTHOR = re.compile(r"^Author:[ \t]*(.+(?:\n[ \t]+\S.*)*)", re.MULTILINE)
_FIRST_LINE = re.compile(r"Project Gutenberg(?:['’]s)?\s+(?:E-?Book|E-?text)?\s*of\s+(.+?),\s+by\s+(.+)$",
                         re.IGNORECASE)
_CREDITS = re.compile(
    r"^\s*(?:Produced|Prepared|Transcribed|Scanned|Proofread|Digiti[sz]ed|HTML version|Updated editions"
    r"|E-?text (?:was )?(?:prepared|produced)|This (?:e-?text|e-?book|file) was (?:produced|prepared|created))\b",
    re.IGNORECASE)
_ILLUSTRATION = re.compile(r"\[Illustration[^\]]{0,2000}\]", re.IGNORECASE)
# An underscore that opens or closes a word marks italics in Gutenberg texts; snake_case words are left alone. The
# pattern starts with the underscore itself (the checks on the character before it look back past it), so the
# regex engine jumps from underscore to underscore instead of trying both lookbehinds at every character.
_ITALIC = re.compile(r"_(?:(?<![\w_]_)(?=[^\s_])|(?<=[^\s_]_)(?![\w_]))")


@dataclass
class GutenbergText:
    """The body between the markers, and what the header says about the book (None where it says nothing)."""

    body: str
    title: str | None
    author: str | None
    is_gutenberg: bool


def strip_gutenberg(text: str) -> GutenbergText:
    """Cut the header before the START marker and everything from the first END-style marker after it.

    Text without any Gutenberg marker comes back unchanged with `is_gutenberg=False`.
    """
    start = START_MARKER.search(text)
    head_end = start.start() if start else min(len(text), 5000)
    header = text[:head_end]
    title, author = _header_metadata(header)
    is_gutenberg = bool(start) or "project gutenberg" in text[:5000].lower()
    if not is_gutenberg:
        return GutenbergText(text, None, None, False)
    body_start = _after_start_marker(text, start.end()) if start else 0
    end = END_MARKER.search(text, body_start)
    body = text[body_start:end.start() if end else len(text)]
    return GutenbergText(_drop_credits(body), title, author, True)


def strip_transcription_marks(text: str) -> str:
    """Remove [Illustration: ...] markers and the underscores that mark italics; both are noise for reading."""
    text = _ILLUSTRATION.sub("", text)
    return _ITALIC.sub("", text)


def _after_start_marker(text: str, pos: int) -> int:
    """Where the body begins; a START marker whose title wraps onto a second line ends on that line."""
    marker_line = text[text.rfind("\n", 0, pos) + 1:pos]
    next_end = text.find("\n", pos + 1)
    next_line = text[pos + 1:next_end if next_end >= 0 else len(text)]
    if marker_line.count("*") < 6 and next_line.rstrip().endswith("***"):
        return next_end if next_end >= 0 else len(text)
    return pos


def _header_metadata(header: str) -> tuple[str | None, str | None]:
    title = author = None
    if match := _TITLE.search(header):
        lines = [line.strip() for line in match.group(1).splitlines() if line.strip()]
        title = lines[0]
        for extra in lines[1:]:  # subtitles are indented continuation lines
            joiner = "; " if re.match(r"or\b", extra, re.IGNORECASE) else ": "
            title += joiner + extra
    if match := _AUTHOR.search(header):
        author = " ".join(match.group(1).split())
    first_line = header.strip().split("\n", 1)[0] if header.strip() else ""
    if (title is None or author is None) and (match := _FIRST_LINE.search(first_line)):
        title = title or match.group(1).strip()
        author = author or match.group(2).strip()
    return title, author


MAX_CREDITS_CHARS = 2000  # a longer "paragraph" is a book flattened onto one line that starts with its credits


def _drop_credits(body: str) -> str:
    """Remove the "Produced by ..." paragraphs that directly follow the START marker (a whole book flattened onto
    one line that begins with its credits is kept: losing the book is worse than keeping a credits line)."""
    paragraphs = re.split(r"\n[ \t]*\n", body.lstrip("\n"), maxsplit=8)
    kept_from = 0
    for i, paragraph in enumerate(paragraphs[:8]):
        if not paragraph.strip() or (_CREDITS.match(paragraph) and len(paragraph) <= MAX_CREDITS_CHARS):
            kept_from = i + 1
        else:
            break
    return "\n\n".join(paragraphs[kept_from:])
