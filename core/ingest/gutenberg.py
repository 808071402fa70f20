"""Project Gutenberg plain-text conventions: the header, the licence footer, producer credits, _italics_ and
[Illustration] markers.

Gutenberg files have changed their wording many times since the 1990s ("*** START OF THIS PROJECT GUTENBERG
EBOOK", "***START OF THE PROJECT GUTENBERG EBOOK", "*END*THE SMALL PRINT!", "End of the Project Gutenberg EBook",
"End of Project Gutenberg's ..."), so the markers are matched loosely, case-insensitively and at line starts only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

START_MARKER = re.compile(
    r"^[ \t]*(?:\*{3}[ \t]*START OF (?:THE |THIS )?PROJECT GUTENBERG\b.*"
    r"|.*\*END\*[ \t]*THE SMALL PRINT!.*)$", re.IGNORECASE | re.MULTILINE)
END_MARKER = re.compile(
    r"^[ \t]*(?:\*{3}[ \t]*END OF (?:THE |THIS )?PROJECT GUTENBERG\b"
    r"|END OF (?:THE |THIS )?PROJECT GUTENBERG(?:['’]S)? E-?(?:BOOK|TEXT)\b"
    r"|End of (?:the |this )?Project Gutenberg\b"
    r"|\*{3}[ \t]*START: FULL LICEN[CS]E)", re.IGNORECASE | re.MULTILINE)
# The same closing line inside a book flattened onto one line ("... happy. End of the Project Gutenberg EBook of X"):
# looked for anywhere in the book's last TAIL_CHARS characters.
_END_IN_LINE = re.compile(r"(?<!\S)End of (?:the |this )?Project Gutenberg(?:['’]s)?\b", re.IGNORECASE)
TAIL_CHARS = 5000
# Distributed Proofreaders' credit line marks a Gutenberg text whose header was cut off (SQuALITY's stories start
# "Produced by Greg Weeks, Mary Meehan and the Online Distributed Proofreading Team at http://www.pgdp.net").
_DP_CREDIT = re.compile(r"pgdp\.net|Distributed\s+Proofread", re.IGNORECASE)
_TITLE = re.compile(r"^Title:[ \t]*(.+(?:\n[ \t]+\S.*)*)", re.MULTILINE)
_AUTHOR = re.compile(r"^Author:[ \t]*(.+(?:\n[ \t]+\S.*)*)", re.MULTILINE)
_FIRST_LINE = re.compile(r"Project Gutenberg(?:['’]s)?\s+(?:E-?Book|E-?text)?\s*of\s+(.+?),\s+by\s+(.+)$",
                         re.IGNORECASE)
_CREDITS = re.compile(
    r"^\s*\(?(?:(?:Produced|Prepared|Transcribed|Scanned|Proofread|Digiti[sz]ed)\s+(?:[\w-]+\s+){0,3}?(?:by|from)"
    r"|HTML version|Updated editions"
    r"|E-?text (?:was )?(?:prepared|produced)|This (?:e-?text|e-?book|file) was (?:produced|prepared|created))\b",
    re.IGNORECASE)
_ILLUSTRATION = re.compile(r"\[Illustration[^\]]{0,2000}\]", re.IGNORECASE)
# An illustrated initial: "[Illustration: H]ERE, at last, is" is the word "HERE" with its first letter drawn.
_DROP_CAP = re.compile(r"\[Illustration:\s*([A-Z])\]")
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
    is_gutenberg = (bool(start) or "project gutenberg" in text[:5000].lower()
                    or bool(_DP_CREDIT.search(text[:2000])) or bool(_END_IN_LINE.search(text[-TAIL_CHARS:])))
    if not is_gutenberg:
        return GutenbergText(text, None, None, False)
    body_start = _after_start_marker(text, start.end()) if start else 0
    body_end = end.start() if (end := END_MARKER.search(text, body_start)) else len(text)
    if (tail := _END_IN_LINE.search(text, max(body_start, body_end - TAIL_CHARS), body_end)) is not None:
        body_end = tail.start()
    return GutenbergText(_drop_credits(text[body_start:body_end]), title, author, True)


def strip_transcription_marks(text: str) -> str:
    """Remove [Illustration: ...] markers (an illustrated initial keeps its letter: "[Illustration: H]ERE" reads
    "HERE"), transcribers' notes and the underscores that mark italics: noise for reading, and a note's "Galaxy
    Magazine", "U.S." and "Transcriber" would enter the graph as names."""
    text = strip_transcriber_notes(_ILLUSTRATION.sub("", _DROP_CAP.sub(r"\1", text)))
    return _ITALIC.sub("", text)


# "[Transcriber's Note: This etext was produced from Galaxy Magazine ...]", "Transcriber’s Notes:", "TRANSCRIBERS'
# NOTE", "Transcriber's Note" as a heading: a bracketed note anywhere (up to NOTE_CHARS to its closing bracket);
# an unbracketed one only as front or back matter (in the first or last NOTE_ZONE of the text), to the end of its
# paragraph, or to the end of the text in a book flattened onto one line.
_NOTE = re.compile(r"(?:\[[ \t]*)?\bTranscribers?[’']?s?[ \t]+Notes?\b", re.IGNORECASE)
NOTE_CHARS = 5000
NOTE_ZONE = 0.1           # of the text, and at least NOTE_ZONE_CHARS
NOTE_ZONE_CHARS = 5000
MAX_NOTES = 100           # a book has a few; a file with thousands of would-be notes is read no further for them
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")


def strip_transcriber_notes(text: str) -> str:
    """The text without its transcribers' notes (see _NOTE); any other text is kept as it was."""
    if "ranscriber" not in text and "RANSCRIBER" not in text:
        return text
    zone = max(NOTE_ZONE_CHARS, int(NOTE_ZONE * len(text)))
    cuts: list[tuple[int, int]] = []
    for match in islice(_NOTE.finditer(text), MAX_NOTES):   # each looked at over NOTE_CHARS at most: linear
        start = match.start()
        if cuts and start < cuts[-1][1]:
            continue
        end: int | None = None
        if text[start] == "[":
            end = _closing_bracket(text, start, start + NOTE_CHARS)
        elif start < zone or start >= len(text) - zone:
            found = _PARAGRAPH_END.search(text, match.end(), start + NOTE_CHARS)
            end = found.start() if found else len(text) if len(text) - start <= NOTE_CHARS else None
        if end is not None:
            cuts.append((start, end))
    for start, end in reversed(cuts):
        text = text[:start].rstrip(" \t") + text[end:]
    return text


def _closing_bracket(text: str, start: int, limit: int) -> int | None:
    """The index after the bracket that closes the one at `start` (nested brackets counted), None if none by
    `limit`."""
    depth = 0
    for i in range(start, min(limit, len(text))):
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


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
FLAT_CREDITS_CHARS = 500  # where, in such a line, the credits may end
# Where a credit statement ends: a line that closes with a web address, a full stop or bracket, or "...Team".
_CREDIT_LINE_END = re.compile(r"(?:(?:https?://|www\.)\S+|[.)\]]|\bTeam)\s*$")
_URL = re.compile(r"\(?(?:https?://|www\.)[^\s)]+\)?\.?")
_TEAM = re.compile(r"Proofreading Team\b\.?")


def _drop_credits(body: str) -> str:
    """Remove the credits ("Produced by ...", "(This file was produced from images ...)") that open the body. Line
    by line: a statement ends at the first line closing with a web address, a full stop or "...Team", so a title
    on the next line of the same paragraph is kept (a paragraph with no such line goes whole, up to
    MAX_CREDITS_CHARS). A whole book flattened onto one line loses its credits only up to a web address or
    "Proofreading Team" in its first FLAT_CREDITS_CHARS characters: losing the book is worse than keeping a
    credits line."""
    rest = body.lstrip()
    for _ in range(8):
        if not _CREDITS.match(rest):
            break
        paragraph = re.split(r"\n[ \t]*\n", rest, maxsplit=1)[0]
        if rest.startswith("(") and 0 < (close := rest.find(")", 0, FLAT_CREDITS_CHARS)):
            rest = rest[close + 1:].lstrip()          # "(This file was produced from images ...)"
            continue
        if len(paragraph) > MAX_CREDITS_CHARS:
            head = rest[:FLAT_CREDITS_CHARS]
            ends = [m.end() for m in _URL.finditer(head)] or [m.end() for m in _TEAM.finditer(head)]
            if not ends:
                break
            rest = rest[ends[-1]:].lstrip()
            continue
        cut = len(paragraph)
        for line in re.finditer(r"[^\n]*\n?", paragraph):
            if _CREDIT_LINE_END.search(line.group()):
                cut = line.end()
                break
        rest = rest[cut:].lstrip()
    return rest
