"""A work as a Word document (.docx), written directly as WordprocessingML with zipfile (no python-docx at run time:
it is a development requirement only, and the handful of parts needed here are short).

The title is in the "Title" style, each chapter's heading in "Heading 1" (outline level 1, so Word's navigation pane
lists the chapters) and its paragraphs in "Normal"; `*emphasis*` becomes italic runs, the way Fabula's own .docx
import (core.ingest.docx) reads italics back, so a story exported and imported again has the same chapters and
words. Text is data: it is XML-escaped and stripped of the characters XML 1.0 cannot hold.
"""
from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from datetime import datetime, timezone
from xml.sax.saxutils import escape

from core.write.export import ExportChapter

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_PARAGRAPHS = re.compile(r"\n[ \t]*\n\s*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_CHAPTER_TITLE = re.compile(r"^\s*chapter\b", re.IGNORECASE)

_CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" \
ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" \
ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>
</Types>"""
_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" \
Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
<Relationship Id="rId2" \
Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" \
Target="docProps/core.xml"/>
</Relationships>"""
_DOC_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" \
Target="styles.xml"/>
</Relationships>"""
_STYLES = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="{_W}">
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/>
<w:pPr><w:spacing w:after="160" w:line="300" w:lineRule="auto"/></w:pPr>
<w:rPr><w:rFonts w:ascii="Georgia" w:hAnsi="Georgia"/><w:sz w:val="24"/></w:rPr></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/>
<w:next w:val="Normal"/><w:pPr><w:jc w:val="center"/><w:spacing w:after="480"/></w:pPr>
<w:rPr><w:sz w:val="56"/></w:rPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/>
<w:next w:val="Normal"/><w:pPr><w:keepNext/><w:pageBreakBefore/><w:spacing w:before="480" w:after="240"/>
<w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="36"/></w:rPr></w:style>
</w:styles>"""
_CORE = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" \
xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<dc:title>{title}</dc:title><dc:creator>{author}</dc:creator>
<dcterms:created xsi:type="dcterms:W3CDTF">{when}</dcterms:created></cp:coreProperties>"""


def _text(value: str) -> str:
    return escape(_NOT_XML.sub("", value))


def _runs(text: str) -> str:
    """A paragraph's runs: `*emphasis*` italic, line breaks as <w:br/>, white space kept."""
    out: list[str] = []
    at = 0
    for m in [*_EMPHASIS.finditer(text), None]:
        plain = text[at:m.start()] if m else text[at:]
        if plain:
            out.append(_run(plain, False))
        if m:
            out.append(_run(m.group(1), True))
            at = m.end()
    return "".join(out)


def _run(text: str, italic: bool) -> str:
    props = "<w:rPr><w:i/></w:rPr>" if italic else ""
    lines = text.split("\n")
    body = "<w:br/>".join(f'<w:t xml:space="preserve">{_text(line)}</w:t>' for line in lines)
    return f"<w:r>{props}{body}</w:r>"


def _paragraph(text: str, style: str | None = None) -> str:
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{props}{_runs(text)}</w:p>"


def heading(chapter: ExportChapter) -> str:
    """A chapter's heading: its own title when it already says "Chapter ...", else "Chapter N: title"."""
    title = " ".join(chapter.title.split())
    return title if _CHAPTER_TITLE.match(title) else f"Chapter {chapter.index}: {title}" if title else \
        f"Chapter {chapter.index}"


def to_docx(title: str, chapters: Sequence[ExportChapter], author: str = "Fabula") -> bytes:
    """The whole work as a .docx: Title, then per chapter a Heading 1 and its paragraphs."""
    body = [_paragraph(" ".join(title.split()) or "Untitled", "Title")]
    for c in chapters:
        body.append(_paragraph(heading(c), "Heading1"))
        body += [_paragraph(p.strip()) for p in _PARAGRAPHS.split(c.text.strip()) if p.strip()]
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{_W}"><w:body>'
                + "".join(body) + "<w:sectPr/></w:body></w:document>")
    when = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", _CONTENT_TYPES)
        zf.writestr("_rels/.rels", _RELS)
        zf.writestr("word/_rels/document.xml.rels", _DOC_RELS)
        zf.writestr("word/document.xml", document)
        zf.writestr("word/styles.xml", _STYLES)
        zf.writestr("docProps/core.xml", _CORE.format(title=_text(title), author=_text(author), when=when))
    return buffer.getvalue()
