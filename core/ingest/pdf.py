"""PDF books with a text layer: the printed lines of every page (read with PDFium), page furniture removed and
paragraphs rebuilt (`pdf_layout`), chapters from the outline (bookmarks) when it has them, else from the headings
the plain-text chapter detection finds. A scanned book (pages of images, no text) is refused: there is no OCR.

PDFium (pypdfium2, Apache-2.0/BSD-3-Clause) was chosen by measurement on novels typeset by the tests: 1-2 MB/s with
every line's position, against 0.3-0.5 MB/s for pypdf's plain text and 0.06 MB/s for pdfminer.six; PyMuPDF is
AGPL. It is the PDF engine of Chrome, fuzzed continuously, which matters for files from strangers. Password-protected
and damaged files are refused with one sentence, before anything is stored.
"""
from __future__ import annotations

import ctypes
import re
import threading
import zlib
from collections import Counter
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from core.ingest.chapters import chapters_from_sections, split_chapters
from core.ingest.errors import IngestError
from core.ingest.headings import classify_line, tidy_title
from core.ingest.models import ParsedBook, RawChapter
from core.ingest.pdf_layout import Line, paragraphs, remove_furniture, vocabulary
from core.ingest.text import normalise_text

MAX_PAGES = 5000
MAX_STREAM_BYTES = 16 * 2**20
MAX_INFLATED_BYTES = 160 * 2**20
_STREAM_START = re.compile(rb"(?<!end)stream\r?\n")
_PDFIUM = threading.Lock()
_FLATE = re.compile(rb"/(?:FlateDecode|Fl)\b")
_MIN_PAGE_LETTERS = 10
_DAMAGED = "This PDF is damaged or incomplete (perhaps a partial download): download it again and retry."
_LOCKED = "This PDF is protected by a password: remove the password (or export an unprotected copy) and retry."
_SCANNED = ("This PDF has no text layer (it is a scanned book, pages of images): OCR is not supported, so import a "
            "PDF with text, an .epub or a .txt file instead.")
_BY_LINE = re.compile(r"(?:by|By|BY)\s+([A-Z][\w.'’ -]{1,60})")
_FILE_LIKE_TITLE = re.compile(r"\.(?:docx?|pdf|rtf|odt|indd|tex|txt)\b|^microsoft word|^untitled", re.IGNORECASE)
_SKIP_TITLES = re.compile(r"(?:^|[^a-z])(?:cover|contents|title ?page|copyright|colophon|imprint|also by|index)"
                          r"(?:[^a-z]|$)", re.IGNORECASE)
_MIN_SECTION_WORDS = 300  # an outline entry above this many words of text is a chapter whatever it is called


@dataclass
class _Mark:
    """An outline entry: title, level, page index and the height it points at (None: the top of the page)."""

    title: str
    level: int
    page: int
    top: float | None


def read_pdf(data: bytes) -> ParsedBook:
    """Chapters, title and author of a PDF with a text layer; raises IngestError for anything else."""
    if b"%PDF-" not in data[:1024]:
        raise IngestError("This file is not a valid PDF (it does not start like one): check the file.")
    if b"%%EOF" not in data[-4096:]:
        raise IngestError(_DAMAGED)  # cut short: PDFium would read what it can, but a book missing its end is not
    _check_streams(data)
    pages, marks, meta, images = _read_document(data)
    lettered = [k for k, lines in enumerate(pages) if _has_letters(lines)]
    if len(lettered) * 2 < len(pages):
        if images * 2 >= len(pages):
            raise IngestError(_SCANNED)
        if not lettered:
            raise IngestError("This PDF contains no text: check that it is the book itself.")
    title, author = _title_and_author(pages[0], meta)
    pages = remove_furniture(pages)
    lines = [line for page in pages for line in page]
    words = vocabulary(lines)
    chapters, notes = _by_outline(lines, marks, words)
    if len(chapters) < 2:
        chapters, notes = split_chapters("\n\n".join(paragraphs(lines, words)))
    chapters = [RawChapter(ch.title, normalise_text(ch.text)) for ch in chapters]
    return ParsedBook(title, author, chapters, notes)


def _has_letters(lines: list[Line]) -> bool:
    """At least _MIN_PAGE_LETTERS letters on the page (counted line by line, stopping as soon as there are)."""
    letters = 0
    for line in lines:
        letters += sum(1 for ch in line.text if ch.isalpha())
        if letters >= _MIN_PAGE_LETTERS:
            return True
    return False


def _check_streams(data: bytes) -> None:
    """Refuse a decompression bomb before PDFium inflates it: each Flate stream other than an image (which text
    extraction never decodes) is inflated here into nothing, counting bytes. PDFium keeps a page's content and the
    objects parsed from it in memory, so 88 MB of text operators took 1.5 GB; one stream may inflate to at most
    MAX_STREAM_BYTES, all of them to MAX_INFLATED_BYTES."""
    total = 0
    for m in _STREAM_START.finditer(data):
        header = data[max(0, m.start() - 1024):m.start()]
        header = header[header.rfind(b" obj") + 1:] if b" obj" in header else header
        if b"/Image" in header or not _FLATE.search(header):
            continue
        size = _inflated_size(data, m.end(), MAX_STREAM_BYTES + 1)
        total += size
        if size > MAX_STREAM_BYTES:
            raise IngestError("This PDF contains a suspiciously compressed part (a 'zip bomb'): it was not imported.")
        if total > MAX_INFLATED_BYTES:
            raise IngestError(f"This PDF would unpack to more than {MAX_INFLATED_BYTES // 2**20} MB of page content, "
                              "more than a book needs: split it and retry.")


def _inflated_size(data: bytes, start: int, limit: int) -> int:
    """Bytes the zlib stream at `start` inflates to, counted up to `limit` without keeping them; 0 if not zlib."""
    inflater, size, pos = zlib.decompressobj(), 0, start
    try:
        while pos < len(data) and size < limit and not inflater.eof:
            chunk = inflater.decompress(data[pos:pos + 65536], 1 << 20)
            size += len(chunk)
            pos += 65536
            while inflater.unconsumed_tail and size < limit:
                size += len(inflater.decompress(inflater.unconsumed_tail, 1 << 20))
    except zlib.error:
        pass  # damaged or not zlib after all: PDFium decides what to make of it
    return size


def _read_document(data: bytes) -> tuple[list[list[Line]], list[_Mark], dict[str, str], int]:
    """(lines per page, outline entries, metadata, number of pages that hold an image)."""
    with _PDFIUM:  # PDFium is not thread-safe, and Streamlit runs each browser session in a thread of its own
        return _read_locked(data)


def _read_locked(data: bytes) -> tuple[list[list[Line]], list[_Mark], dict[str, str], int]:
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if exc.err_code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            raise IngestError(_LOCKED) from exc
        raise IngestError(_DAMAGED) from exc
    try:
        count = len(doc)
        if count == 0:
            raise IngestError("This PDF has no pages: check the file.")
        if count > MAX_PAGES:
            raise IngestError(f"This PDF has {count:,} pages, more than a book needs (at most {MAX_PAGES:,}): "
                              "split it and retry.")
        pages, images = [], 0
        for index in range(count):
            lines, has_image = _page_lines(doc, index)
            pages.append(lines)
            images += has_image
        return pages, _outline(doc, count), doc.get_metadata_dict(), images
    except pdfium.PdfiumError as exc:
        raise IngestError(_DAMAGED) from exc
    finally:
        doc.close()


def _page_lines(doc: pdfium.PdfDocument, index: int) -> tuple[list[Line], bool]:
    """The page's printed lines (PDFium's text rectangles merged per baseline), and whether it holds an image."""
    page = doc[index]
    try:
        textpage = page.get_textpage()
        try:
            pieces = []
            for k in range(textpage.count_rects()):
                left, bottom, right, top = textpage.get_rect(k)
                text = textpage.get_text_bounded(left, bottom, right, top).replace("\r", " ").replace("\n", " ")
                if text.strip():
                    pieces.append(Line(text, left, right, top, bottom, index, *_size_and_baseline(
                        textpage, left, bottom, right, top)))
        finally:
            textpage.close()
        has_image = not pieces and next(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2),
                                        None) is not None
    finally:
        page.close()
    return _merge_pieces(pieces, index), has_image


def _size_and_baseline(textpage: pdfium.PdfTextPage, left: float, bottom: float, right: float,
                       top: float) -> tuple[float, float]:
    """The font size and baseline of a text rectangle's first character. A rectangle's own height is not the type
    size: it is the glyphs' box, shorter for a line without descenders ("ion from his brow.")."""
    middle, reach = (top + bottom) / 2, max(1.0, top - bottom)
    for x in (left + 1, left + 4, (left + right) / 2):
        index = pdfium_c.FPDFText_GetCharIndexAtPos(textpage, x, middle, reach, reach / 2)
        size = pdfium_c.FPDFText_GetFontSize(textpage, index) if index >= 0 else 0.0
        if size > 0:
            x_origin, y_origin = ctypes.c_double(), ctypes.c_double()
            if pdfium_c.FPDFText_GetCharOrigin(textpage, index, ctypes.byref(x_origin), ctypes.byref(y_origin)):
                return size, y_origin.value
    return top - bottom, bottom


def _merge_pieces(pieces: list[Line], page: int) -> list[Line]:
    """Rectangles that overlap vertically by more than half their height are one line, read left to right."""
    lines: list[Line] = []
    for piece in sorted(pieces, key=lambda p: (-p.top, p.left)):
        last = lines[-1] if lines else None
        overlap = min(piece.top, last.top) - max(piece.bottom, last.bottom) if last else 0.0
        if last is not None and overlap > 0.5 * min(piece.top - piece.bottom, last.top - last.bottom):
            space = "" if piece.left - last.right < 0.15 * last.size or last.text.endswith(" ") else " "
            lines[-1] = Line(last.text + space + piece.text, min(piece.left, last.left), max(piece.right, last.right),
                             max(piece.top, last.top), min(piece.bottom, last.bottom), page, last.size,
                             last.baseline)
        else:
            lines.append(piece)
    for line in lines:
        line.text = " ".join(line.text.split())
    return sorted(lines, key=lambda line: -line.baseline)


def _outline(doc: pdfium.PdfDocument, count: int) -> list[_Mark]:
    marks = []
    for bookmark in doc.get_toc(max_depth=4):
        dest = bookmark.get_dest()
        index = dest.get_index() if dest is not None else None
        title = " ".join(normalise_text(bookmark.get_title() or "").split())
        if index is None or not 0 <= index < count or not title:
            continue
        top = None
        if dest is not None:
            mode, view = dest.get_view()
            if mode == pdfium_c.PDFDEST_VIEW_XYZ and len(view) >= 2 and view[1]:
                top = float(view[1])
        marks.append(_Mark(title, bookmark.level, index, top))
    return marks


def _by_outline(lines: list[Line], marks: list[_Mark], words: Counter[str]) -> tuple[list[RawChapter], list[str]]:
    """Chapters cut where the outline's chapter level points: the level with the most entries (parts above
    chapters have fewer), its entries in page order. Fewer than two usable entries: no chapters."""
    levels: dict[int, list[_Mark]] = {}
    for mark in marks:
        levels.setdefault(mark.level, []).append(mark)
    if not levels:
        return [], []
    level = max(sorted(levels), key=lambda lvl: len({(m.page, m.top) for m in levels[lvl]}))
    chosen = sorted(levels[level], key=lambda m: (m.page, -(m.top if m.top is not None else 1e9)))
    if len(chosen) < 2:
        return [], []
    starts = [_first_line_at(lines, mark) for mark in chosen]
    front = paragraphs(lines[:starts[0]], words)
    sections: list[tuple[str, list[str]]] = []
    for k, mark in enumerate(chosen):
        stop = starts[k + 1] if k + 1 < len(chosen) else len(lines)
        body = _without_heading(paragraphs(lines[starts[k]:stop], words), mark.title)
        if _SKIP_TITLES.search(mark.title) and sum(len(p.split()) for p in body) < _MIN_SECTION_WORDS:
            continue  # the contents, copyright or cover page the outline also lists
        if sections and sections[-1][0] == tidy_title(mark.title):
            sections[-1][1].extend(body)
        else:
            sections.append((tidy_title(mark.title), body))
    return chapters_from_sections(front, sections)


def _first_line_at(lines: list[Line], mark: _Mark) -> int:
    """Index of the first line on or after the place the outline entry points at."""
    for k, line in enumerate(lines):
        if line.page > mark.page or (line.page == mark.page and (mark.top is None or line.top <= mark.top + 2)):
            return k
    return len(lines)


def _without_heading(paras: list[str], title: str) -> list[str]:
    """The section's text without its printed heading: leading short paragraphs that are the bookmark's title, or
    part of it ("CHAPTER I." then "Into the Primitive"), or a heading the text detection recognises."""
    folded = _fold(title)
    k = 0
    while k < min(3, len(paras)) and len(paras[k].split()) <= 15:
        piece = _fold(paras[k])
        heading = classify_line(paras[k])
        if not piece or piece in folded or (heading is not None and k == 0):
            k += 1
        else:
            break
    return paras[k:]


def _fold(text: str) -> str:
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text.casefold()).split())


def _title_and_author(first_page: list[Line], meta: dict[str, str]) -> tuple[str | None, str | None]:
    """From the metadata unless it is a file name or empty; else from a title page (its largest line, "by ...")."""
    title = " ".join(normalise_text(meta.get("Title") or "").split())
    author = " ".join(normalise_text(meta.get("Author") or "").split())
    title = "" if _FILE_LIKE_TITLE.search(title) else title
    if (not title or not author) and first_page and sum(len(line.text.split()) for line in first_page) <= 60:
        largest = max(first_page, key=lambda line: line.size)
        title = title or tidy_title(largest.text)
        by = next((m for line in first_page if (m := _BY_LINE.fullmatch(line.text.strip()))), None)
        author = author or (by.group(1) if by else "")
    return title or None, author or None
