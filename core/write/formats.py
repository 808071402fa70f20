"""A work's chapters in one of the export formats: Markdown, EPUB or Word (.docx). One function for the Write
page's downloads, the manuscript and `cli.py story export`, so they cannot drift apart."""
from __future__ import annotations

from collections.abc import Sequence

from core.write.docx_export import to_docx
from core.write.export import ExportChapter, safe_filename, to_epub, to_markdown

FORMATS: dict[str, tuple[str, str]] = {   # name -> (file extension, MIME type)
    "md": ("md", "text/markdown"),
    "epub": ("epub", "application/epub+zip"),
    "docx": ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
}


def render(fmt: str, title: str, chapters: Sequence[ExportChapter], *, author: str | None = None, premise: str = "",
           arc: str = "", identifier: str = "") -> tuple[bytes, str, str]:
    """(payload, file name, MIME type); ValueError for an unknown format."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format '{fmt}'; choose one of {', '.join(FORMATS)}.")
    extension, mime = FORMATS[fmt]
    name = safe_filename(title, extension)
    if fmt == "md":
        return to_markdown(title, chapters, premise, arc).encode("utf-8"), name, mime
    if fmt == "epub":
        return to_epub(title, chapters, author or "Fabula", identifier), name, mime
    return to_docx(title, chapters, author or "Fabula"), name, mime
