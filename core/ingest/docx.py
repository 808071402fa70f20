"""Word manuscripts (.docx): paragraphs in document order, chapters from heading styles (or, when no heading level
repeats, from "Chapter ..." lines found by the plain-text chapter detection), italics kept as Markdown emphasis
(`*word*`), which the Read page and the Markdown export show as italics.

What a writer sees in Word with "No Markup" is what is imported: tracked insertions are kept, tracked deletions
(w:del, w:moveFrom) and field codes are left out, and comments, which live in a part of their own, are never read;
nor are headers, footers, footnotes and text boxes, which are not the running text.

WordprocessingML is read directly with lxml rather than through a library: python-docx's paragraph text skips runs
inside tracked insertions (w:ins), and mammoth, which handles them, took 20-40x longer on the same novels (measured:
0.22-0.36 s against 0.01 s) and parses with minidom, where the entity guards used for EPUB cannot be applied. The
safety is the EPUB's: `archive.check_archive` before anything is decompressed, `archive.parse_xml` for every part.
"""
from __future__ import annotations

import io
import posixpath
import unicodedata
import zipfile
from dataclasses import dataclass

from lxml import etree

from core.ingest.archive import ZIP_ERRORS, check_archive, parse_xml
from core.ingest.errors import IngestError
from core.ingest.markdown import book_from_blocks
from core.ingest.models import ParsedBook
from core.ingest.text import strip_controls
from core.ingest.xhtml import DOCTYPE

_NAMESPACES = ("http://schemas.openxmlformats.org/wordprocessingml/2006/main",  # Transitional (what Word writes)
               "http://purl.oclc.org/ooxml/wordprocessingml/main")  # Strict
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_DAMAGED = "This Word document is damaged or incomplete (perhaps a partial download): save it again and retry."
_OFF = {"0", "false", "off", "none"}
_SKIPPED = {"del", "moveFrom", "delText", "delInstrText", "instrText", "pPr", "rPr", "sdtPr", "drawing", "pict",
            "object", "AlternateContent", "footnoteReference", "endnoteReference", "commentReference", "fldData"}
_CONTAINERS = {"ins", "moveTo", "hyperlink", "smartTag", "customXml", "sdt", "sdtContent", "fldSimple", "dir",
               "bdo"}
_MAX_STYLE_DEPTH = 12  # basedOn chains are short; a cycle must not loop forever


@dataclass
class _Style:
    name: str
    based_on: str | None
    outline: int | None  # heading level 1-9 from w:outlineLvl
    italic: bool | None  # None: not set by this style


class _Reader:
    """One document: its namespace, its styles, and what was met on the way (for the user's notes)."""

    def __init__(self, ns: str, styles: dict[str, _Style]) -> None:
        self.w = f"{{{ns}}}"
        self.styles = styles
        self.revisions = False

    def local(self, el: etree._Element) -> str | None:
        tag = el.tag
        return tag[len(self.w):] if isinstance(tag, str) and tag.startswith(self.w) else None

    def val(self, el: etree._Element | None) -> str | None:
        return None if el is None else el.get(f"{self.w}val")

    def on(self, el: etree._Element | None) -> bool | None:
        """A toggle property (<w:i/>, <w:i w:val="0"/>): None when absent."""
        return None if el is None else (self.val(el) or "1").lower() not in _OFF

    def style_value(self, style_id: str | None, attr: str) -> object:
        """An attribute of a style, inherited along basedOn."""
        for _ in range(_MAX_STYLE_DEPTH):
            style = self.styles.get(style_id or "")
            if style is None:
                return None
            if getattr(style, attr) is not None:
                return getattr(style, attr)
            style_id = style.based_on
        return None

    def keeps(self, p: etree._Element) -> bool:
        """Whether a paragraph is running text: not inside a deletion, a text box or a drawing (noting revisions)."""
        for ancestor in p.iterancestors():
            name = self.local(ancestor)
            if name in ("del", "moveFrom", "ins", "moveTo"):
                self.revisions = True
            if name in _SKIPPED or name == "p" or (name is None and "AlternateContent" in str(ancestor.tag)):
                return False
            if name == "body":
                return True
        return False

    def paragraph(self, p: etree._Element) -> tuple[int | str, str]:
        ppr = p.find(f"{self.w}pPr")
        style_id = self.val(ppr.find(f"{self.w}pStyle")) if ppr is not None else None
        level = self.heading_level(style_id, ppr)
        parts: list[tuple[str, bool]] = []
        self.runs(p, bool(self.style_value(style_id, "italic")), parts)
        if level:
            return level, " ".join("".join(text for text, _ in parts).split())
        return 0, _with_emphasis(parts)

    def heading_level(self, style_id: str | None, ppr: etree._Element | None) -> int | str:
        name = str(self.style_value(style_id, "name") or "")
        if name == "title":
            return "title"
        if name.startswith("heading ") and name[8:].isdigit():
            return int(name[8:])
        direct = self.val(ppr.find(f"{self.w}outlineLvl")) if ppr is not None else None
        level = _outline(direct) or self.style_value(style_id, "outline")
        return level if isinstance(level, int) else 0

    def runs(self, el: etree._Element, italic: bool, out: list[tuple[str, bool]]) -> None:
        """(text, italic) for every run under `el`, leaving out what Word does not show as text."""
        for child in el:
            name = self.local(child)
            if name is None or name in _SKIPPED:
                self.revisions |= name in ("del", "moveFrom")
                continue
            if name == "r":
                self.run(child, italic, out)
            elif name in _CONTAINERS:
                self.revisions |= name in ("ins", "moveTo")
                self.runs(child, italic, out)

    def run(self, r: etree._Element, paragraph_italic: bool, out: list[tuple[str, bool]]) -> None:
        rpr = r.find(f"{self.w}rPr")
        italic = paragraph_italic
        if rpr is not None:
            run_style = self.val(rpr.find(f"{self.w}rStyle"))
            styled = self.style_value(run_style, "italic") if run_style else None
            direct = self.on(rpr.find(f"{self.w}i"))
            italic = direct if direct is not None else (bool(styled) if styled is not None else italic)
        for child in r:
            name = self.local(child)
            if name == "t":
                out.append((child.text or "", italic))
            elif name in ("tab", "ptab"):
                out.append((" ", italic))
            elif name in ("br", "cr"):
                out.append(("\n", italic))
            elif name == "noBreakHyphen":
                out.append(("-", italic))


def read_docx(data: bytes) -> ParsedBook:
    """Chapters, title and author of a Word document; raises IngestError for anything that is not a readable .docx."""
    if data.startswith(_OLE_MAGIC):
        raise IngestError("This is an old-style Word file (.doc) or a password-protected document: open it in Word, "
                          "remove any password and save it as .docx, then retry.")
    if not data.startswith(b"PK"):
        raise IngestError("This file is not a valid Word document (a .docx is a ZIP archive and this is not one): "
                          "check the file, or save it from Word as .docx.")
    names = {info.filename for info in check_archive(data, "Word document", _DAMAGED)}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            main = _main_part(zf, names)
            if main not in names:
                raise IngestError("This ZIP archive is not a Word document (it has no word/document.xml): "
                                  "check the file.")
            styles_part = posixpath.join(posixpath.dirname(main), "styles.xml")
            styles = parse_xml(zf.read(styles_part)) if styles_part in names else None
            core = parse_xml(zf.read("docProps/core.xml")) if "docProps/core.xml" in names else None
            reader, blocks = _read_body(zf.read(main), styles)
    except IngestError:
        raise
    except (*ZIP_ERRORS, etree.XMLSyntaxError) as exc:
        raise IngestError(_DAMAGED) from exc
    style_titles = [text for level, text in blocks if level == "title" and text]
    title, author = _core_properties(core)
    warnings = []
    if reader.revisions:
        warnings.append("This document has tracked changes: insertions were kept and deletions left out.")
    if "word/comments.xml" in names:
        warnings.append("Comments in the document were left out.")
    body = [(int(level), text) for level, text in blocks if level != "title" and text.strip()]
    return book_from_blocks(body, title or (style_titles[0] if style_titles else None), author, warnings)


def _read_body(xml: bytes, styles: etree._Element | None) -> tuple[_Reader, list[tuple[int | str, str]]]:
    """(heading level, text) per paragraph of the main part, read as a stream: each paragraph is dropped from the
    tree once read, so a document holding hundreds of thousands of paragraphs never sits in memory whole (a parsed
    tree takes about seven times the XML's size)."""
    events = etree.iterparse(io.BytesIO(DOCTYPE.sub(rb"\1", xml, count=1)), events=("end",),
                             tag=[f"{{{ns}}}p" for ns in _NAMESPACES], resolve_entities=False, no_network=True,
                             load_dtd=False, huge_tree=False, recover=True, remove_comments=True, remove_pis=True)
    reader: _Reader | None = None
    blocks: list[tuple[int | str, str]] = []
    for _, el in events:
        if reader is None:
            reader = _reader_for(el.getroottree().getroot(), styles)
        if reader.keeps(el):
            blocks.append(reader.paragraph(el))
            el.clear()
            parent = el.getparent()
            while parent is not None and el.getprevious() is not None:
                del parent[0]  # paragraphs and tables already read
    return reader or _reader_for(events.root, styles), blocks


def _reader_for(root: etree._Element | None, styles: etree._Element | None) -> _Reader:
    if root is None:
        raise IngestError(_DAMAGED)
    qname = etree.QName(root) if isinstance(root.tag, str) else None
    if qname is None or qname.namespace not in _NAMESPACES or qname.localname != "document":
        raise IngestError("This file is not a Word document (its main part is not WordprocessingML): check the file, "
                          "or save it from Word as .docx.")
    return _Reader(qname.namespace or "", _styles(styles, qname.namespace or ""))


def _main_part(zf: zipfile.ZipFile, names: set[str]) -> str:
    """The main document part named by the package relationships, else Word's usual word/document.xml."""
    if "_rels/.rels" in names:
        rels = parse_xml(zf.read("_rels/.rels"))
        for rel in rels.iter():
            if isinstance(rel.tag, str) and (rel.get("Type") or "").endswith("/officeDocument") and rel.get("Target"):
                return posixpath.normpath(rel.get("Target", "").lstrip("/"))
    return "word/document.xml"


def _styles(root: etree._Element | None, ns: str) -> dict[str, _Style]:
    w = f"{{{ns}}}"
    styles: dict[str, _Style] = {}
    for el in root.iter(f"{w}style") if root is not None else ():
        style_id = el.get(f"{w}styleId")
        if not style_id:
            continue
        name, based, outline, italic = el.find(f"{w}name"), el.find(f"{w}basedOn"), el.find(f"{w}pPr/{w}outlineLvl"), \
            el.find(f"{w}rPr/{w}i")
        styles[style_id] = _Style(
            name=" ".join((name.get(f"{w}val") or "").lower().split()) if name is not None else "",
            based_on=based.get(f"{w}val") if based is not None else None,
            outline=_outline(outline.get(f"{w}val")) if outline is not None else None,
            italic=None if italic is None else (italic.get(f"{w}val") or "1").lower() not in _OFF)
    return styles


def _outline(value: str | None) -> int | None:
    """w:outlineLvl 0-8 is heading level 1-9; 9 means body text."""
    return int(value) + 1 if value is not None and value.isdigit() and int(value) < 9 else None


def _core_properties(core: etree._Element | None) -> tuple[str | None, str | None]:
    found: dict[str, str] = {}
    for el in core.iter() if core is not None else ():
        name = etree.QName(el).localname if isinstance(el.tag, str) else ""
        if name in ("title", "creator") and el.text and el.text.strip() and name not in found:
            found[name] = " ".join(strip_controls(el.text).split())
    return found.get("title"), found.get("creator")


def _with_emphasis(parts: list[tuple[str, bool]]) -> str:
    """A paragraph's text with italic stretches as `*...*`: white space kept outside the marks, one pair per line,
    nothing marked that has no letter or digit in it."""
    merged: list[list[object]] = []
    for text, italic in parts:
        if merged and merged[-1][1] == italic:
            merged[-1][0] = str(merged[-1][0]) + text
        else:
            merged.append([text, italic])
    out: list[str] = []
    for text, italic in ((str(t), bool(i)) for t, i in merged):
        if not italic:
            out.append(text)
            continue
        lines = []
        for line in text.split("\n"):
            core = line.strip()
            if core and any(ch.isalnum() for ch in core):
                lead, tail = line[:len(line) - len(line.lstrip())], line[len(line.rstrip()):]
                line = f"{lead}*{core}*{tail}"
            lines.append(line)
        out.append("\n".join(lines))
    text = unicodedata.normalize("NFC", strip_controls("".join(out)))
    squeezed = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in squeezed if line)
