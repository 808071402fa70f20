"""What an EPUB's package says: title, author, the navigation labels, and the spine's content documents.

ebooklib reads the package first. It is strict: one missing image, a nav document without `epub:type="toc"` or a
damaged NCX makes it raise, although the chapters themselves are fine. When it refuses a file, a small tolerant
reader takes over (container.xml -> OPF -> spine, with lxml in recover mode, entities and network off) and skips
whatever is missing or unreadable, noting it in `warnings`. It also takes over when ebooklib finds no content
document at all.
"""
from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote

from ebooklib import epub
from lxml import etree

from core.ingest.archive import parse_xml
from core.ingest.text import strip_controls


@dataclass
class Package:
    """The reading order of an EPUB: (file name relative to the OPF, raw XHTML) per linear spine document."""

    title: str | None
    author: str | None
    documents: list[tuple[str, bytes]]
    toc: dict[str, str] = field(default_factory=dict)  # document file name -> navigation label
    warnings: list[str] = field(default_factory=list)


def read_package(data: bytes) -> Package:
    """The package of an EPUB already checked by `epub._check_archive`; raises whatever both readers raise."""
    try:
        package = _with_ebooklib(data)
    except Exception:  # noqa: BLE001 - any ebooklib failure: try the tolerant reader before giving up
        return _tolerant(data)
    if package.documents:
        return package
    try:
        fallback = _tolerant(data)
    except Exception:  # noqa: BLE001 - the tolerant reader found nothing better: keep ebooklib's (empty) reading
        return package
    return fallback if fallback.documents else package


def _with_ebooklib(data: bytes) -> Package:
    book = epub.read_epub(io.BytesIO(data), {"ignore_ncx": True})
    documents = []
    for idref, linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or linear == "no" or isinstance(item, epub.EpubNav):
            continue
        if "html" in (item.media_type or "") or isinstance(item, epub.EpubHtml):
            documents.append((item.file_name, item.content or b""))
    titles = [_clean(value) for value, _ in book.get_metadata("DC", "title") if value]
    creators = [_clean(value) for value, _ in book.get_metadata("DC", "creator") if value]
    return Package(titles[0] if titles else None, _authors(creators), documents, dict(_toc_entries(book.toc)))


def _toc_entries(items: Iterable[object]) -> Iterable[tuple[str, str]]:
    """(document file name, label) for every entry of ebooklib's navigation tree; the first per file wins."""
    for item in reversed(list(items)):  # reversed, so that dict() keeps the first entry for a file
        if isinstance(item, (tuple, list)):
            yield from _toc_entries(item)
            continue
        href, label = getattr(item, "href", None), getattr(item, "title", None)
        if href and label:
            yield href.split("#", 1)[0], _clean(label)


def _tolerant(data: bytes) -> Package:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        container = parse_xml(zf.read("META-INF/container.xml"))
        rootfiles = [el.get("full-path") for el in container.iter() if _local(el) == "rootfile" and el.get("full-path")]
        opf_path = next(path for path in rootfiles if path in names)
        opf = parse_xml(zf.read(opf_path))
        opf_dir = posixpath.dirname(opf_path)
        manifest = {el.get("id"): el for el in opf.iter() if _local(el) == "item" and el.get("id")}
        documents: list[tuple[str, bytes]] = []
        unreadable = 0
        for ref in (el for el in opf.iter() if _local(el) == "itemref"):
            item = manifest.get(ref.get("idref"))
            if item is None or ref.get("linear") == "no" or "nav" in (item.get("properties") or "").split():
                continue
            if "html" not in (item.get("media-type") or ""):
                continue
            href = unquote(item.get("href") or "")
            path = posixpath.normpath(posixpath.join(opf_dir, href))
            try:
                documents.append((href, zf.read(path)))
            except (KeyError, zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError):
                unreadable += 1
    titles = [_clean(el.text) for el in opf.iter() if _local(el) == "title" and el.text and el.text.strip()]
    creators = [_clean(el.text) for el in opf.iter() if _local(el) == "creator" and el.text and el.text.strip()]
    parts = "1 damaged or missing part of this EPUB was" if unreadable == 1 else \
        f"{unreadable} damaged or missing parts of this EPUB were"
    warnings = [f"{parts} skipped."] if unreadable else []
    return Package(titles[0] if titles else None, _authors(creators), documents, {}, warnings)


def _local(el: etree._Element) -> str | None:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else None


def _clean(value: object) -> str:
    return " ".join(strip_controls(str(value)).split())


def _authors(creators: list[str]) -> str | None:
    return ", ".join(dict.fromkeys(creators[:3])) or None
