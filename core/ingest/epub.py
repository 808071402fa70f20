"""EPUB books: the spine documents in reading order, front and back matter skipped, one chapter per document (or
per heading, when one document holds several chapters).

Safety comes before parsing. The ZIP directory is checked first (`archive.check_archive`: unpacked size, member
count and compression ratios), which bounds what will be decompressed later. The package files are parsed with
`resolve_entities=False` (by ebooklib or `epub_package`'s fallback); content documents by `xhtml`, with entities,
DTDs and network access all off.
"""
from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable

from core.ingest.archive import ZIP_ERRORS, check_archive
from core.ingest.chapters import MIN_FRONT_PROSE, split_chapters
from core.ingest.epub_package import Package, read_package
from core.ingest.errors import IngestError
from core.ingest.gutenberg import END_MARKER, START_MARKER
from core.ingest.headings import classify_line, looks_like_title, tidy_title, title_from_lines
from core.ingest.models import ParsedBook, RawChapter
from core.ingest.xhtml import Block, Document, parse_document

_MIN_WORDS = 20
_SPLIT_MIN_WORDS = 50
_SKIP_TYPES = {"toc", "landmarks", "loi", "lot", "cover", "titlepage", "halftitlepage", "imprint", "colophon",
               "copyright-page", "uncopyright", "index", "endnotes", "footnotes", "rearnotes", "bibliography",
               "other-credits", "contributors", "errata", "seriespage", "page-list"}
_FRONT_TYPES = {"preface", "foreword", "introduction", "dedication", "epigraph", "acknowledgments",
                "acknowledgements", "frontmatter"}
_SKIP_NAMES = re.compile(
    r"(?:^|[^a-z])(?:cover|toc|nav|contents|title ?page|half ?title|copyright|colophon|imprint|licen[cs]e|legal"
    r"|about|also by|other books|endnotes|footnotes|notes|index|acknowledge?ments?|dedication|epigraph"
    r"|front ?matter|back ?matter)(?:[^a-z]|$)", re.IGNORECASE)
_DAMAGED = "This EPUB file is damaged or incomplete (perhaps a partial download): download it again and retry."


def read_epub(data: bytes) -> ParsedBook:
    """Chapters, title and author of an EPUB; raises IngestError for anything that is not a readable EPUB."""
    _check_archive(data)
    try:
        package = read_package(data)
    except Exception as exc:  # noqa: BLE001 - zipfile, lxml and ebooklib raise many kinds of error
        raise IngestError(_DAMAGED) from exc
    documents = list(_content_documents(package))
    chapters = _assemble(documents, package.title or "", package.toc)
    if len(chapters) <= 1:
        plain = "\n\n".join(block.text for _, doc in documents for block in doc.blocks)
        fallback, notes = split_chapters(plain)
        if len(fallback) > 1:
            return ParsedBook(package.title, package.author, fallback, package.warnings + notes)
    if not chapters:
        raise IngestError("This EPUB contains no readable text (it may hold only images): try another edition.")
    return ParsedBook(package.title, package.author, chapters, package.warnings)


def _check_archive(data: bytes) -> None:
    if not data.startswith(b"PK"):
        raise IngestError("This file is not a valid EPUB (an EPUB is a ZIP archive and this is not one): "
                          "check the file or import it as .txt.")
    infos = check_archive(data, "EPUB", _DAMAGED)
    names = {info.filename for info in infos}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            encryption = zf.read("META-INF/encryption.xml") if "META-INF/encryption.xml" in names else b""
    except ZIP_ERRORS as exc:
        raise IngestError(_DAMAGED) from exc
    if "META-INF/container.xml" not in names:
        raise IngestError("This ZIP archive is not an EPUB (it has no META-INF/container.xml): check the file.")
    if re.search(rb"URI=[\"'][^\"']+\.x?html?[\"']", encryption):
        raise IngestError("This EPUB is protected by DRM, so its text cannot be read: use a DRM-free edition.")


def _content_documents(package: Package) -> Iterable[tuple[str, Document]]:
    """(file name, parsed document) for the spine documents that hold the book's own text."""
    seen_start = False
    for file_name, content in package.documents:
        doc = parse_document(content)
        blocks, ended = _without_gutenberg(doc.blocks, seen_start)
        seen_start = seen_start or len(blocks) != len(doc.blocks)
        doc = Document(blocks, doc.head_title, doc.types)
        if not _is_skipped(doc, file_name, package.toc.get(file_name, "")):
            yield file_name, doc
        if ended:
            return


def _without_gutenberg(blocks: list[Block], seen_start: bool) -> tuple[list[Block], bool]:
    """Blocks after a Gutenberg START marker and before an END marker; True when the END marker was found."""
    for k, block in enumerate(blocks):
        if not seen_start and START_MARKER.search(block.text):
            rest, ended = _without_gutenberg(blocks[k + 1:], True)
            return rest, ended
        if END_MARKER.search(block.text):
            return blocks[:k], True
    return blocks, False


def _is_skipped(doc: Document, file_name: str, toc_label: str) -> bool:
    """Navigation, covers, title pages, copyright and notes pages, and front matter with little prose."""
    words = doc.words
    if words < _MIN_WORDS or doc.types & _SKIP_TYPES:
        return True
    first_heading = next((b.text for b in doc.blocks if b.is_heading), "")
    names = " ".join((file_name.rsplit("/", 1)[-1], first_heading, toc_label, doc.head_title))
    little_prose = words < MIN_FRONT_PROSE
    return little_prose and bool(doc.types & _FRONT_TYPES or _SKIP_NAMES.search(names))


def _assemble(documents: list[tuple[str, Document]], book_title: str, toc: dict[str, str]) -> list[RawChapter]:
    """One chapter per titled section; untitled documents continue the chapter before them."""
    chapters: list[RawChapter] = []
    has_headings = any(b.is_heading for _, doc in documents for b in doc.blocks)
    for file_name, doc in documents:
        for k, (title, paras) in enumerate(_sections(doc, book_title)):
            if not paras:
                continue
            if title is None and k == 0:
                label = toc.get(file_name) or doc.head_title
                if label and label.casefold() != book_title.casefold() and (
                        not chapters or label != chapters[-1].title):
                    title = tidy_title(label)
            if title is None and has_headings and chapters:
                chapters[-1].text += "\n\n" + "\n\n".join(paras)
            elif title is None and has_headings:  # untitled text before the first chapter: the preface rule
                if sum(len(p.split()) for p in paras) >= MIN_FRONT_PROSE:
                    chapters.append(RawChapter("Preface", "\n\n".join(paras)))
            else:
                chapters.append(RawChapter(title or f"Part {len(chapters) + 1}", "\n\n".join(paras)))
    return chapters


def _sections(doc: Document, book_title: str) -> list[tuple[str | None, list[str]]]:
    """(title, paragraphs) per chapter in a document: split at the shallowest heading level that repeats with
    text under each heading, otherwise one section titled by the document's first heading."""
    blocks = _merge_adjacent_headings(doc.blocks, book_title)
    headings = [b for b in blocks if b.is_heading]
    for level in sorted({b.level for b in headings}):
        at_level = [k for k, b in enumerate(blocks) if b.is_heading and b.level == level]
        with_text = sum(1 for k in at_level if _words_until_next(blocks, k, level) >= _SPLIT_MIN_WORDS)
        if len(at_level) >= 2 and with_text >= 2:
            sections: list[tuple[str | None, list[str]]] = [(None, _texts(blocks[:at_level[0]]))]
            for j, start in enumerate(at_level):
                stop = at_level[j + 1] if j + 1 < len(at_level) else len(blocks)
                sections.append((title_from_lines(blocks[start].lines), _texts(blocks[start + 1:stop])))
            return sections
    if not headings:
        return [_paragraph_heading(blocks)]
    chosen = headings[0]
    return [(title_from_lines(chosen.lines), _texts([b for b in blocks if b is not chosen]))]


def _paragraph_heading(blocks: list[Block]) -> tuple[str | None, list[str]]:
    """A document without <h1>-<h6> whose first paragraph is a heading ("<p class="chapter">CHAPTER I</p>")."""
    heading = classify_line(blocks[0].text) if blocks and "\n" not in blocks[0].text else None
    if heading is None or heading.kind not in ("numbered", "special"):
        return None, _texts(blocks)
    lines, rest = [blocks[0].text], blocks[1:]
    if not heading.title and rest and looks_like_title(rest[0].text) and classify_line(rest[0].text) is None:
        lines, rest = [*lines, rest[0].text], rest[1:]
    return title_from_lines(lines), _texts(rest)


def _merge_adjacent_headings(blocks: list[Block], book_title: str) -> list[Block]:
    """"<h2>CHAPTER I</h2><h3>The Title</h3>" is one heading with two lines; a heading repeating the book's title
    is dropped (it is the running title, not a chapter)."""
    merged: list[Block] = []
    for block in blocks:
        if block.is_heading and block.text.casefold() == book_title.casefold():
            continue
        label = classify_line(merged[-1].lines[-1]) if merged and merged[-1].is_heading else None
        if (block.is_heading and label is not None and label.kind in ("numbered", "special") and not label.title
                and block.level >= merged[-1].level):
            last = merged[-1]
            lines = last.lines + block.lines
            merged[-1] = Block(last.level, " ".join(lines), lines)
        else:
            merged.append(block)
    return merged


def _words_until_next(blocks: list[Block], k: int, level: int) -> int:
    words = 0
    for j in range(k + 1, len(blocks)):  # not blocks[k + 1:]: copying the rest per heading is quadratic
        block = blocks[j]
        if block.is_heading and block.level <= level:
            break
        words += 0 if block.is_heading else len(block.text.split())
    return words


def _texts(blocks: list[Block]) -> list[str]:
    return [b.text for b in blocks if b.text and any(ch.isalnum() for ch in b.text)]
