"""A story (or any work) as Markdown or EPUB. Text is data: Markdown special characters at line starts are escaped,
and so are backslashes, "<" and brackets anywhere (a book's "<img src=x onerror=...>" or "[x](javascript:...)" would
otherwise be live HTML or a link in a Markdown viewer); EPUB chapters are built from escaped paragraphs. Nothing in a
chapter can format or script the output."""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

_PARAGRAPHS = re.compile(r"\n[ \t]*\n\s*")
_LINE_START = re.compile(r"^([#>*+\-=|`]|\d+\.)", re.MULTILINE)
_INLINE_SPECIAL = re.compile(r"([\\<\[\]])")  # anywhere in a line: raw HTML (<script>, <img onerror>) and links


@dataclass(frozen=True)
class ExportChapter:
    index: int
    title: str
    text: str


def safe_filename(title: str, suffix: str) -> str:
    stem = "".join(ch if ch.isalnum() else "_" for ch in title).strip("_")[:60] or "story"
    return f"{stem}.{suffix}"


def to_markdown(title: str, chapters: Sequence[ExportChapter], premise: str = "", arc: str = "") -> str:
    lines = [f"# {_md(title)}", ""]
    if premise:
        lines += [f"*{_md(premise)}*" + (f" ({_md(arc)})" if arc else ""), ""]
    for c in chapters:
        body = _LINE_START.sub(r"\\\1", _INLINE_SPECIAL.sub(r"\\\1", c.text.strip()))
        lines += [f"## Chapter {c.index}: {_md(c.title)}", "", body, ""]
    return "\n".join(lines)


def _md(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#])", r"\\\1", " ".join(text.split()))


def to_epub(title: str, chapters: Sequence[ExportChapter], author: str = "Fabula", identifier: str = "") -> bytes:
    """A valid EPUB 3 (navigation document and NCX) with one XHTML file per chapter."""
    import io

    from ebooklib import epub
    book = epub.EpubBook()
    book.set_identifier(identifier or f"fabula-{abs(hash(title))}")
    book.set_title(title)
    book.set_language("en")
    book.add_author(author)
    items = []
    for c in chapters:
        item = epub.EpubHtml(title=f"Chapter {c.index}: {c.title}", file_name=f"chapter_{c.index:03d}.xhtml",
                             lang="en")
        paragraphs = "".join(f"<p>{html.escape(p.strip())}</p>" for p in _PARAGRAPHS.split(c.text.strip())
                             if p.strip())
        item.content = f"<h2>{html.escape(f'Chapter {c.index}: {c.title}')}</h2>{paragraphs}"
        book.add_item(item)
        items.append(item)
    book.toc = items
    book.spine = ["nav", *items]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    buffer = io.BytesIO()
    epub.write_epub(buffer, book)
    return buffer.getvalue()
