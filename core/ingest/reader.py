"""`read_book`: pick the reader for a file by its extension and turn every failure into an IngestError."""
from __future__ import annotations

import logging
import re
from pathlib import PurePath

from core.ingest.chapters import split_chapters
from core.ingest.docx import read_docx
from core.ingest.epub import read_epub
from core.ingest.errors import IngestError
from core.ingest.gutenberg import strip_gutenberg, strip_transcription_marks
from core.ingest.headings import classify_line, looks_like_title, tidy_title
from core.ingest.markdown import read_markdown
from core.ingest.models import ParsedBook
from core.ingest.pdf import read_pdf
from core.ingest.text import decode_text, has_readable_words

log = logging.getLogger(__name__)

TEXT_SUFFIXES = (".txt",)
MARKDOWN_SUFFIXES = (".md", ".markdown")
EPUB_SUFFIXES = (".epub",)
DOCX_SUFFIXES = (".docx",)
PDF_SUFFIXES = (".pdf",)
SUPPORTED_SUFFIXES = (*TEXT_SUFFIXES, *MARKDOWN_SUFFIXES, *EPUB_SUFFIXES, *DOCX_SUFFIXES, *PDF_SUFFIXES)
_PARAGRAPHS = re.compile(r"\n[ \t]*\n\s*")
_BY_LINE = re.compile(r"(?:by|By|BY)\s+([A-Z][\w.'’ -]{1,60})")


def read_book(filename: str, data: bytes) -> ParsedBook:
    """Parse a .txt, .md/.markdown, .epub, .docx or .pdf book (by extension, case-insensitively) into titled chapters.

    Raises IngestError, and nothing else, for anything wrong with the input: an unsupported extension, an empty,
    binary or undecodable file, a damaged EPUB, Word file or PDF, a scanned or password-protected PDF, or a book
    without readable text. Unexpected exceptions from the parsing libraries are logged and wrapped, so a hostile file
    cannot surface a traceback to the user.
    """
    suffix = PurePath(filename or "").suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        shown = suffix or "(none)"
        raise IngestError(f"The file type {shown} is not supported: import a .txt, .md, .epub, .docx or .pdf file.")
    if suffix in (*TEXT_SUFFIXES, *MARKDOWN_SUFFIXES) and data.lstrip()[:5] == b"%PDF-":
        raise IngestError("This file is a PDF, not text: give it the .pdf extension to import it.")
    try:
        if suffix in EPUB_SUFFIXES:
            book = read_epub(data)
        elif suffix in DOCX_SUFFIXES:
            book = read_docx(data)
        elif suffix in PDF_SUFFIXES:
            book = read_pdf(data)
        elif suffix in MARKDOWN_SUFFIXES:
            book = read_markdown(data)
        else:
            book = read_plain_text(data)
    except IngestError:
        raise
    except (MemoryError, RecursionError) as exc:
        raise IngestError("This file is too large or too deeply nested to read: split it and retry.") from exc
    except Exception as exc:  # noqa: BLE001 - the contract is "only IngestError for bad input"
        log.warning("unexpected error while reading %r", filename, exc_info=True)
        raise IngestError("This file could not be read; it may be damaged or in an unexpected format.") from exc
    if not any(has_readable_words(ch.text) for ch in book.chapters):
        raise IngestError("No readable text was found in this file: check that it is the book itself.")
    return book


def read_plain_text(data: bytes) -> ParsedBook:
    """A plain-text book, with Project Gutenberg boilerplate removed when present."""
    text, encoding = decode_text(data)
    warnings = [] if encoding in ("utf-8", "ascii") else [f"The file is not UTF-8; it was read as {encoding}."]
    gutenberg = strip_gutenberg(text)
    body = strip_transcription_marks(gutenberg.body)
    chapters, chapter_warnings = split_chapters(body)
    title, author = gutenberg.title, gutenberg.author
    if title is None and author is None:
        title, author = title_page(body)
    return ParsedBook(title, author, chapters, warnings + chapter_warnings)


def title_page(text: str) -> tuple[str | None, str | None]:
    """Title and author from a title page at the top ("THE HARBOUR TALE" / "by Ann Example"), else (None, None).

    Only trusted when a "by ..." line follows the title: a lone short first line could as well be a chapter's
    first line of dialogue, and a wrong title is worse than the file name the caller falls back to.
    """
    paras = [p.strip() for p in _PARAGRAPHS.split(text.lstrip()[:2000], maxsplit=3) if p.strip()][:3]
    if len(paras) < 2 or not looks_like_title(paras[0]) or classify_line(paras[0]) is not None:
        return None, None
    by = _BY_LINE.fullmatch(" ".join(paras[1].split()))
    if by is None:
        return None, None
    return tidy_title(" ".join(paras[0].split())), by.group(1)
