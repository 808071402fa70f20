"""Word documents written here as raw WordprocessingML: what Word shows is what is imported (insertions kept,
deletions, field codes and comments not), italics as *emphasis*, chapters from heading styles or "Chapter" lines,
and hostile or wrong files refused with one sentence."""
from __future__ import annotations

import io
import zipfile

import pytest

from core.ingest import IngestError, read_book

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
STYLES = f"""<?xml version="1.0"?><w:styles xmlns:w="{W}">
<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="ChapterHead"><w:name w:val="My Chapter"/><w:basedOn w:val="Normal"/>
  <w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="character" w:styleId="Emphasis"><w:name w:val="Emphasis"/><w:rPr><w:i/></w:rPr></w:style>
</w:styles>"""
PROSE = "Mary walked down to the harbour with her brother, and the boats came in late that night. " * 6


def _p(text: str, style: str = "", extra: str = "") -> str:
    ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f'<w:p>{ppr}<w:r><w:t xml:space="preserve">{text}</w:t></w:r>{extra}</w:p>'


def _docx(body: str, doctype: str = "", core: str = "", styles: str = STYLES, ns: str = W) -> bytes:
    document = f'<?xml version="1.0"?>{doctype}<w:document xmlns:w="{ns}"><w:body>{body}</w:body></w:document>'
    members = [("[Content_Types].xml", '<?xml version="1.0"?><Types/>'), ("word/document.xml", document),
               ("word/styles.xml", styles)]
    if core:
        members.append(("docProps/core.xml", core))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members:
            archive.writestr(name, text)
    return buffer.getvalue()


def test_heading_styles_make_chapters_and_the_title_style_the_title() -> None:
    body = _p("The Harbour", "Title") + "".join(_p(f"Chapter {n}", "Heading1") + _p(PROSE) for n in (1, 2, 3))
    book = read_book("tale.docx", _docx(body))
    assert book.title == "The Harbour"
    assert [c.title for c in book.chapters] == ["Chapter 1", "Chapter 2", "Chapter 3"]
    assert book.chapters[0].text.startswith("Mary walked")


def test_outline_level_of_a_custom_style_and_core_properties() -> None:
    core = ('<cp:coreProperties xmlns:cp="urn:cp" xmlns:dc="http://purl.org/dc/elements/1.1/">'
            "<dc:title>Core Title</dc:title><dc:creator>Ann Writer</dc:creator></cp:coreProperties>")
    body = "".join(_p(f"Part the {n}", "ChapterHead") + _p(PROSE) for n in ("First", "Second"))
    book = read_book("tale.docx", _docx(body, core=core))
    assert (book.title, book.author) == ("Core Title", "Ann Writer")
    assert [c.title for c in book.chapters] == ["Part the First", "Part the Second"]


def test_chapter_lines_in_normal_style_are_found_by_the_text_rules() -> None:
    body = "".join(_p(f"CHAPTER {n}.") + _p(PROSE) for n in ("I", "II", "III"))
    assert [c.title for c in read_book("tale.docx", _docx(body)).chapters] == ["Chapter I", "Chapter II",
                                                                                "Chapter III"]


def test_tracked_changes_fields_comments_and_italics() -> None:
    runs = (f'<w:r><w:t xml:space="preserve">{PROSE}She said </w:t></w:r>'
            '<w:del w:id="1" w:author="E"><w:r><w:delText>never</w:delText></w:r></w:del>'
            '<w:ins w:id="2" w:author="E"><w:r><w:t xml:space="preserve">always </w:t></w:r></w:ins>'
            '<w:moveFrom w:id="3" w:author="E"><w:r><w:t>movedaway</w:t></w:r></w:moveFrom>'
            '<w:commentRangeStart w:id="4"/><w:r><w:rPr><w:i/></w:rPr><w:t xml:space="preserve">hello </w:t></w:r>'
            '<w:commentRangeEnd w:id="4"/><w:r><w:commentReference w:id="4"/></w:r>'
            '<w:r><w:rPr><w:rStyle w:val="Emphasis"/></w:rPr><w:t>there</w:t></w:r>'
            '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>'
            '<w:r><w:rPr><w:i w:val="0"/></w:rPr><w:t xml:space="preserve"> and left.</w:t></w:r>')
    table = f"<w:tbl><w:tr><w:tc>{_p('In a table cell.')}</w:tc></w:tr></w:tbl>"
    book = read_book("tale.docx", _docx(f"<w:p>{runs}</w:p>" + table))
    text = book.chapters[0].text
    assert "She said always *hello there* and left." in text
    for absent in ("never", "movedaway", "PAGE"):
        assert absent not in text
    assert "In a table cell." in text
    assert any("tracked changes" in w for w in book.warnings)


def test_external_entities_are_never_read() -> None:
    doctype = ('<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">'
               '<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>')
    body = _p("CHAPTER 1.") + _p(PROSE + " &xxe; &b;") + _p("CHAPTER 2.") + _p(PROSE)
    book = read_book("tale.docx", _docx(body, doctype=doctype))
    text = "\n".join(c.text for c in book.chapters)
    assert "root:" not in text and "aaaaaaaaaa" not in text and "Mary walked" in text


@pytest.mark.parametrize(("data", "message"), [
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(2048), "password-protected"),
    (b"Just some text named .docx", "not a valid Word document"),
    (_docx(_p(PROSE), ns="urn:not-word"), "not a Word document"),
    (b"PK\x03\x04" + bytes(100), "damaged"),
])
def test_files_that_are_not_readable_word_documents_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(IngestError, match=message):
        read_book("tale.docx", data)


def test_a_zip_without_the_main_document_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/other.xml", "<x/>")
    with pytest.raises(IngestError, match="no word/document.xml"):
        read_book("tale.docx", buffer.getvalue())
