"""One EPUB content document (XHTML) to a list of headings and paragraphs of plain text.

Parsing is hardened: entities are never resolved (an `<!ENTITY x SYSTEM "file:///etc/passwd">` stays an unexpanded
reference and contributes no text), no DTD is loaded, nothing is fetched from the network, and huge trees are
refused. HTML named entities such as `&nbsp;` are rewritten to numeric references first, because without the DTD
an XML parser does not know them; a document that still is not well-formed XML is parsed with lxml's forgiving
HTML parser, with the same network restriction.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape
from html.entities import name2codepoint

from lxml import etree
from lxml import html as lxml_html

from core.ingest.text import strip_controls

EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"
_DROP = {"script", "style", "head", "noscript", "template", "svg", "math", "iframe", "object", "embed", "audio",
         "video", "canvas", "button", "form", "input", "select", "textarea", "nav", "img", "map"}
_BLOCKS = {"p", "div", "section", "article", "header", "footer", "main", "blockquote", "li", "ul", "ol", "dl", "dt",
           "dd", "figure", "figcaption", "table", "tr", "td", "th", "thead", "tbody", "pre", "address", "hr", "body",
           "caption", "center", "aside", "details", "summary", "html"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_NOTE_TYPES = {"noteref", "footnote", "endnote", "rearnote", "annoref"}
_XML_SAFE = {"amp", "lt", "gt", "quot", "apos"}
_NAMED_ENTITY = re.compile(rb"&([A-Za-z][A-Za-z0-9]{1,31});")
# The DOCTYPE at the top of a document, with its internal subset. lxml's HTML parser does not understand an internal
# subset and would keep its tail ("]>") as text, so it is cut before that parser is tried (one pass, at the top only).
DOCTYPE = re.compile(rb"\A(\s*(?:<\?xml[^>]*\?>\s*)?)<!DOCTYPE[^\[>]*(?:\[.*?\]\s*)?>", re.DOTALL | re.IGNORECASE)
_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                              remove_comments=True, remove_pis=True, recover=False)
_HTML_PARSER = lxml_html.HTMLParser(no_network=True, remove_comments=True, remove_pis=True, recover=True)
# lxml's HTML parser reads bytes that declare no encoding as Latin-1, so "café" in a chapter that is not well-formed
# XML (an unclosed <br>) became "cafÃ©"; XHTML without a declaration is UTF-8, so valid UTF-8 is read as such.
_HTML_PARSER_UTF8 = lxml_html.HTMLParser(encoding="utf-8", no_network=True, remove_comments=True, remove_pis=True,
                                         recover=True)
_DECLARED_ENCODING = re.compile(rb"encoding\s*=|charset\s*=", re.IGNORECASE)


@dataclass
class Block:
    """A heading (level 1-6, lines as printed) or a paragraph (level 0, one string with "\\n" for <br/>)."""

    level: int
    text: str
    lines: list[str] = field(default_factory=list)

    @property
    def is_heading(self) -> bool:
        return self.level > 0


@dataclass
class Document:
    """What a content document holds: its blocks, the <title> in its head, and its epub:type/role words."""

    blocks: list[Block]
    head_title: str
    types: set[str]

    @property
    def words(self) -> int:
        return sum(len(b.text.split()) for b in self.blocks if not b.is_heading)


def parse_document(content: bytes) -> Document:
    """Blocks of text from one XHTML document; an empty Document when nothing can be parsed at all."""
    root = _parse(content)
    if root is None or root is _TOO_DEEP:
        return Document(_recovered_blocks(content), "", set())
    collector = _Collector()
    body = next((el for el in root.iter() if _local(el) == "body"), root)
    _walk(body, collector)
    collector.flush()
    if not collector.blocks:  # markup too deep or broken for the parsers (libxml2 stops at 256 levels)
        collector.blocks = _recovered_blocks(content)
    title_el = next((el for el in root.iter() if _local(el) == "title"), None)
    head_title = " ".join("".join(title_el.itertext()).split()) if title_el is not None else ""
    return Document(collector.blocks, head_title, _structural_types(body))


_TOO_DEEP = etree.Element("too-deep")  # a marker: nested past libxml2's depth limit


def _parse(content: bytes) -> etree._Element | None:
    rewritten = _NAMED_ENTITY.sub(_numeric_reference, content)
    try:
        return etree.fromstring(rewritten, _XML_PARSER)
    except etree.XMLSyntaxError as exc:
        if "Excessive depth" in str(exc):  # the HTML parser would keep only the first 256 levels
            return _TOO_DEEP
    try:
        return lxml_html.document_fromstring(DOCTYPE.sub(rb"\1", rewritten, count=1), parser=_html_parser(rewritten))
    except (etree.ParserError, ValueError, etree.XMLSyntaxError):
        return None


def _html_parser(content: bytes) -> lxml_html.HTMLParser:
    """The UTF-8 parser for undeclared valid UTF-8; otherwise lxml's own detection (declarations, byte-order marks)."""
    if _DECLARED_ENCODING.search(content[:1024]) or content.startswith((b"\xff\xfe", b"\xfe\xff")):
        return _HTML_PARSER
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return _HTML_PARSER
    return _HTML_PARSER_UTF8


def _numeric_reference(m: re.Match[bytes]) -> bytes:
    name = m.group(1).decode("ascii")
    if name in _XML_SAFE or name not in name2codepoint:
        return m.group(0)
    return f"&#{name2codepoint[name]};".encode("ascii")


def _local(el: etree._Element) -> str | None:
    """Lower-case local tag name; None for comments, processing instructions and entity references."""
    if not isinstance(el.tag, str):
        return None
    return el.tag.rsplit("}", 1)[-1].lower()


def _types(el: etree._Element) -> set[str]:
    raw = f"{el.get(EPUB_TYPE) or ''} {el.get('epub:type') or ''} {el.get('role') or ''}"
    return {t.split(":")[-1].removeprefix("doc-") for t in raw.lower().split()}


def _structural_types(body: etree._Element) -> set[str]:
    """epub:type and role words on the body and its top few levels of sections (where EPUBs mark front matter).

    A <nav> inside a content document is not looked at: a whole book in one file may start with its contents.
    """
    found = _types(body)
    level = [body]
    for _ in range(3):
        level = [child for el in level for child in el if _local(child) in _BLOCKS]
        for el in level:
            found |= _types(el)
    return found


def _is_dropped(el: etree._Element, tag: str) -> bool:
    if tag in _DROP:
        return True
    if _types(el) & _NOTE_TYPES:
        return True
    # Project Gutenberg's own EPUBs wrap their header and licence in these, and transcribers' notes in "transnote".
    classes = el.get("class") or ""
    return el.get("id") in ("pg-header", "pg-footer") or "pg-boilerplate" in classes or "transnote" in classes.split()


class _Collector:
    """Gathers inline text into the current paragraph and emits blocks at block-element boundaries."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.parts: list[str] = []

    def add(self, text: str | None) -> None:
        """Inline text; newlines in the source are plain white space in XHTML. Control characters, which lxml's HTML
        parser lets through (raw or as `&#1;`), are dropped as in plain-text books."""
        if text:
            self.parts.append(strip_controls(text.replace("\r", " ").replace("\n", " ")))

    def line_break(self) -> None:
        self.parts.append("\n")

    def flush(self) -> None:
        lines = [" ".join(line.split()) for line in "".join(self.parts).split("\n")]
        text = "\n".join(line for line in lines if line)
        if text:
            self.blocks.append(Block(0, text))
        self.parts = []


def _walk(el: etree._Element, out: _Collector, depth: int = 0) -> None:
    tag = _local(el)
    if tag is None or _is_dropped(el, tag) or depth > 400:
        return
    if tag in _HEADINGS or tag == "hgroup":
        out.flush()
        lines = _heading_lines(el)
        if lines:
            level = _HEADINGS.get(tag) or min((_HEADINGS[_local(h) or ""] for h in el.iter()
                                               if _local(h) in _HEADINGS), default=2)
            out.blocks.append(Block(level, " ".join(lines), lines))
        return
    if tag == "br":
        out.line_break()
        return
    block = tag in _BLOCKS
    if block:
        out.flush()
    out.add(el.text)
    for child in el:
        _walk(child, out, depth + 1)
        out.add(child.tail)  # entity references and dropped elements still have a tail that is text
    if block:
        out.flush()


def _heading_lines(el: etree._Element) -> list[str]:
    """The printed lines of a heading: <br/> and child blocks (an hgroup's h2 and subtitle) start new lines."""
    inner = _Collector()
    inner.add(el.text)
    for child in el:
        _walk(child, inner, 1)
        inner.add(child.tail)
    inner.flush()
    return [line for block in inner.blocks for line in block.text.split("\n") if line]


_DROPPED_ELEMENTS = re.compile(rb"<(script|style|head|noscript|template|svg|math)\b.*?</\1\s*>", re.S | re.I)
_BLOCK_TAG = re.compile(rb"<\s*/?\s*(?:p|div|section|article|blockquote|li|h[1-6]|br|tr|td)\b[^>]*>", re.I)
_ANY_TAG = re.compile(rb"<[^>]*>")


def _recovered_blocks(content: bytes) -> list[Block]:
    """Paragraphs from a document no parser could read, by removing the markup: text is never silently lost
    because of how deeply it is nested. Entities are decoded; the text stays plain (pages escape it)."""
    body = re.split(rb"<body\b[^>]*>", content, maxsplit=1, flags=re.I)[-1]
    body = _BLOCK_TAG.sub(b"\n\n", _DROPPED_ELEMENTS.sub(b" ", body))
    text = unescape(_ANY_TAG.sub(b" ", body).decode("utf-8", "replace"))
    paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", strip_controls(text)))
    return [Block(0, p) for p in paragraphs if p]
