"""From the positioned lines of a PDF's pages back to running text: page headers, footers and page numbers removed,
hyphenation at line ends repaired, paragraphs rebuilt. Pure functions over `Line`s, so each rule is testable alone.

- Furniture is found by repetition, not by position alone: among the two top and two bottom lines of each page, a
  line whose text recurs at the same height on at least MIN_REPEATS pages is a running header or footer (the book's
  title, the chapter's title on odd pages; a chapter's own heading, lower on its first page, is not at that height),
  and a number is a page number when it keeps the same offset from the page's index on many pages ("23" on the 25th
  page, "24" on the 26th) - so "Chapter 2" at the top of a page is not one.
- A word broken at a line end ("exam-" / "ple") is joined when the document writes the joined word elsewhere more
  often than the hyphenated one, or when either half is no word of the document; otherwise the hyphen is kept, since
  a compound broken at its own hyphen ("sea-" / "shore") is more likely than a rare word split in two known ones.
- A paragraph starts at a vertical gap larger than the usual line pitch, an indented first line, a change of font
  size (headings), or after a short line that ends a sentence.
"""
from __future__ import annotations

import re
import statistics
from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass

from core.ingest.headings import roman_value

MIN_REPEATS = 3
_EDGE_LINES = 2  # lines at the top and at the bottom of a page that may be headers or footers
_Y_TOLERANCE = 2.0  # points: a running header sits at the same height on every page
_HYPHENS = ("-", "\x02", "\xad")  # PDFium reports a hyphen it takes for a soft one at a line end as \x02
_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
_FIRST_WORD = re.compile(r"[^\W\d_]+")
_LAST_WORD = re.compile(r"[^\W\d_]+$")
_NUMBER = re.compile(r"^\W*(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,8})(?:\s+(?:of|/)\s+\d{1,5})?\W*$", re.IGNORECASE)
_EDGE_NUMBER = re.compile(r"^(\d{1,4})\s+(?=\S)|(?<=\S)\s+(\d{1,4})$")
# First halves that make compounds rather than words ("self-gratulation", "twenty-five"), when the text does not say.
_COMPOUND_HEADS = {"self", "half", "well", "ill", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                   "ninety"}
_SENTENCE_END = re.compile(r"[.!?:;\"'”’)\]]$")


@dataclass
class Line:
    """One printed line: its text, box and baseline in PDF points (y grows upwards, so top > bottom), its font size and
    its page index."""

    text: str
    left: float
    right: float
    top: float
    bottom: float
    page: int
    size: float  # the font size in points
    baseline: float


def remove_furniture(pages: list[list[Line]]) -> list[list[Line]]:
    """Each page's lines, top to bottom, without running headers, footers and page numbers."""
    pages = [sorted(lines, key=lambda line: -line.baseline) for lines in pages]
    edges = [(line, "top" if k < _EDGE_LINES else "bottom") for lines in pages
             for k, line in enumerate(lines) if k < _EDGE_LINES or k >= len(lines) - _EDGE_LINES]
    offset = _page_number_offset([line for line, _ in edges])
    heights: dict[tuple[str, str], list[float]] = defaultdict(list)
    for line, band in edges:
        heights[(band, _furniture_key(line, offset))].append(line.baseline)
    furniture = set()
    for line, band in edges:
        key = _furniture_key(line, offset)
        if not key:
            furniture.add(id(line))  # nothing but the page number
            continue
        same_height = sum(1 for y in heights[(band, key)] if abs(y - line.baseline) <= _Y_TOLERANCE)
        if same_height >= MIN_REPEATS:
            furniture.add(id(line))
    furniture |= _at_furniture_heights(edges, furniture)
    return [[line for line in lines if id(line) not in furniture] for lines in pages]


def _at_furniture_heights(edges: list[tuple[Line, str]], furniture: set[int]) -> set[int]:
    """Edge lines at a height where most edge lines are furniture: a running header that changes with each short
    chapter ("Chapter 3" on two pages only) is at the height of the repeated ones. The body's first line is not:
    few lines at its height repeat."""
    total: dict[tuple[str, int], int] = defaultdict(int)
    found: dict[tuple[str, int], int] = defaultdict(int)
    for line, band in edges:
        total[(band, round(line.baseline))] += 1
        found[(band, round(line.baseline))] += id(line) in furniture
    near = range(-int(_Y_TOLERANCE), int(_Y_TOLERANCE) + 1)
    more = set()
    for line, band in edges:
        y = round(line.baseline)
        hits, count = sum(found[(band, y + d)] for d in near), sum(total[(band, y + d)] for d in near)
        if hits >= MIN_REPEATS and hits * 5 >= count * 2:
            more.add(id(line))
    return more


def _page_number_offset(lines: list[Line]) -> int | None:
    """The difference between printed page numbers and page indexes that most edge lines agree on (None if fewer
    than MIN_REPEATS agree): front matter often starts the count later, but the offset stays the same."""
    offsets: Counter[int] = Counter()
    for line in lines:
        for number in _numbers(line.text):
            offsets[number - line.page] += 1
    if not offsets:
        return None
    best, count = offsets.most_common(1)[0]
    return best if count >= MIN_REPEATS else None


def _numbers(text: str) -> list[int]:
    """A bare number or numeral ("12", "- 12 -", "Page 12", "xii", "12 of 300"), or one at either end of a line."""
    m = _NUMBER.match(text.strip())
    if m:
        value = int(m.group(1)) if m.group(1).isdigit() else roman_value(m.group(1).upper())
        return [value] if value else []
    return [int(n) for m in _EDGE_NUMBER.finditer(text.strip()) for n in m.groups() if n]


def _furniture_key(line: Line, offset: int | None) -> str:
    """The line's text without its page number, case and spacing folded: what repeats from page to page."""
    text = line.text.strip()
    m = _NUMBER.match(text)
    if m and offset is not None:
        value = int(m.group(1)) if m.group(1).isdigit() else roman_value(m.group(1).upper())
        if value is not None and (value - line.page == offset or not m.group(1).isdigit()):
            return ""
    if offset is not None:
        def drop(match: re.Match[str]) -> str:
            number = int(match.group(1) or match.group(2))
            return "" if number - line.page == offset else match.group(0)
        text = _EDGE_NUMBER.sub(drop, text)
    return " ".join(text.casefold().split())


def vocabulary(lines: list[Line]) -> Counter[str]:
    """Lower-case words and hyphenated compounds of the text, leaving out the fragments around line-end hyphens."""
    words: Counter[str] = Counter()
    broken_before = False
    for line in lines:
        tokens = _WORD.findall(line.text)
        if broken_before and tokens:
            tokens = tokens[1:]
        broken_before = line.text.endswith(_HYPHENS)
        if broken_before and tokens:
            tokens = tokens[:-1]
        words.update(token.lower() for token in tokens)
    return words


def join_hyphenated(head: str, tail: str, words: Counter[str]) -> bool:
    """Whether "head-" at a line end and "tail" at the next line's start are one word broken in two."""
    joined, compound = f"{head}{tail}".lower(), f"{head}-{tail}".lower()
    if words[joined] > words[compound]:
        return True
    if words[compound] or head.lower() in _COMPOUND_HEADS:
        return False
    return not words[head.lower()] or not words[tail.lower()]


def paragraphs(lines: list[Line], words: Counter[str]) -> list[str]:
    """Running text of consecutive lines (top to bottom, page after page) as paragraphs."""
    if not lines:
        return []
    pitch, height = _typical_pitch(lines), statistics.median(line.size for line in lines)
    margins = _margins(lines)
    plain_style = _plain_style(lines, pitch, height, margins)
    out: list[str] = []
    current = lines[0].text.strip()
    for k, (before, line) in enumerate(zip(lines, lines[1:]), start=1):
        text = line.text.strip()
        broken = current.endswith(_HYPHENS) and current[-2:-1].isalpha()
        if _starts_paragraph(before, line, pitch, height, margins, plain_style) or (
                line.page != before.page and _stands_alone(lines, k, pitch, height, margins)):
            out.append(current)
            current = text
        elif broken and (tail := _FIRST_WORD.match(text)) and (head := _LAST_WORD.search(current[:-1])):
            current = current[:-1] + ("" if join_hyphenated(head.group(0), tail.group(0), words) else "-") + text
        else:
            current = f"{current} {text}"
    out.append(current)
    return [" ".join(p.replace("\x02", "-").replace("\xad", "").split()) for p in out if p.strip()]


def _typical_pitch(lines: list[Line]) -> float:
    pitches = [a.baseline - b.baseline for a, b in zip(lines, lines[1:])
               if a.page == b.page and a.baseline > b.baseline]
    return statistics.median(pitches) if pitches else max(line.size for line in lines) * 1.2


def _margins(lines: list[Line]) -> dict[int, tuple[float, float]]:
    """Per page, the left and right edge of its text block: the edges most lines share (odd and even pages of a
    printed book differ), taken over the whole document when a page has too few lines to say."""
    by_page: dict[int, list[Line]] = defaultdict(list)
    for line in lines:
        by_page[line.page].append(line)
    whole = (_common_edge([line.left for line in lines]), _common_edge([-line.right for line in lines]))
    margins = {}
    for page, page_lines in by_page.items():
        if len(page_lines) >= 5:
            margins[page] = (_common_edge([line.left for line in page_lines]),
                             -_common_edge([-line.right for line in page_lines]))
        else:
            margins[page] = (whole[0], -whole[1])
    return margins


def _common_edge(values: list[float]) -> float:
    """The smallest value that at least a third of the values lie near (an indent or a short line is not an edge)."""
    values = sorted(values)
    for k, value in enumerate(values):
        if (bisect_right(values, value + 3) - k) * 3 >= len(values):
            return value
    return values[0]


def _plain_style(lines: list[Line], pitch: float, height: float, margins: dict[int, tuple[float, float]]) -> bool:
    """True when paragraphs are marked neither by indents nor by gaps: only then is a short line ending a sentence
    taken as a paragraph's end (in ragged-right text a line may end short and with a full stop mid-paragraph)."""
    indented = sum(1 for line in lines if line.left - margins[line.page][0] > 0.6 * height)
    gaps = sum(1 for a, b in zip(lines, lines[1:]) if a.page == b.page and a.baseline - b.baseline > 1.4 * pitch)
    return (indented + gaps) * 50 < len(lines)


def _stands_alone(lines: list[Line], k: int, pitch: float, height: float,
                  margins: dict[int, tuple[float, float]]) -> bool:
    """A short line with a gap after it, such as a heading at the top of a page: a paragraph of its own."""
    line, after = lines[k], lines[k + 1] if k + 1 < len(lines) else None
    short = margins[line.page][1] - line.right > 2.5 * height
    return short and after is not None and after.page == line.page and line.baseline - after.baseline > 1.4 * pitch


def _starts_paragraph(before: Line, line: Line, pitch: float, height: float,
                      margins: dict[int, tuple[float, float]], plain_style: bool) -> bool:
    left, right = margins[line.page]
    _, right_before = margins[before.page]
    if abs(line.size - before.size) > 0.1 * max(line.size, before.size):
        return True  # a heading's larger (or a note's smaller) type
    if line.page == before.page and before.baseline - line.baseline > 1.4 * pitch:
        return True
    if line.left - left > 0.6 * height:
        return True  # an indented first line, a centred heading, a block quotation
    short = right_before - before.right > 2.5 * height
    # Across a page break there is no gap to see: a short last line that ends a sentence ends its paragraph.
    return (plain_style or line.page != before.page) and short and bool(_SENTENCE_END.search(before.text.strip()))
