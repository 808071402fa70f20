"""EPUB reading: structure (spine, titles, skipped front/back matter) and hostile or broken files.

The EPUBs are built here with zipfile, so each test controls exactly what is inside."""
from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest

from core.ingest import IngestError, read_book

CONTAINER = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
             '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
             '</rootfiles></container>')
PROSE = ("The lamplighter went down the long street at dusk, and every window he passed grew warm and yellow "
         "behind him while the children watched from the steps. ")


def xhtml(body: str, title: str = "Test Book", doctype: str = "", body_type: str = "") -> str:
    body_attr = f' epub:type="{body_type}"' if body_type else ""
    return (f'<?xml version="1.0" encoding="utf-8"?>{doctype}<html xmlns="http://www.w3.org/1999/xhtml" '
            f'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{title}</title></head>'
            f"<body{body_attr}>{body}</body></html>")


def chapter(heading: str, paragraphs: int = 3, word: str = "") -> str:
    return f"<section epub:type=\"chapter\"><h1>{heading}</h1>" + f"<p>{word}{PROSE}</p>" * paragraphs + "</section>"


def make_epub(docs: list[tuple[str, str]], *, title: str = "Test Book", author: str = "Test Author",
              opf_prefix: str = "", toc: list[tuple[str, str]] | None = None,
              extra: dict[str, bytes] | None = None) -> bytes:
    """An EPUB 3 with a nav document; `docs` are (file name, XHTML) in spine order."""
    toc = toc if toc is not None else []
    nav_items = "".join(f'<li><a href="{href}">{label}</a></li>' for href, label in toc) or "<li><span>-</span></li>"
    nav = xhtml(f'<nav epub:type="toc"><h1>Contents</h1><ol>{nav_items}</ol></nav>', "Contents")
    manifest = '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>' + "".join(
        f'<item id="d{i}" href="{name}" media-type="application/xhtml+xml"/>' for i, (name, _) in enumerate(docs))
    spine = '<itemref idref="nav"/>' + "".join(f'<itemref idref="d{i}"/>' for i in range(len(docs)))
    opf = (f'<?xml version="1.0" encoding="utf-8"?>{opf_prefix}<package xmlns="http://www.idpf.org/2007/opf" '
           f'version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
           f'<dc:identifier id="id">test-book</dc:identifier><dc:title>{title}</dc:title>'
           f"<dc:creator>{author}</dc:creator><dc:language>en</dc:language></metadata>"
           f"<manifest>{manifest}</manifest><spine>{spine}</spine></package>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        zf.writestr("META-INF/container.xml", CONTAINER)
        zf.writestr("OEBPS/content.opf", opf)
        zf.writestr("OEBPS/nav.xhtml", nav)
        for name, content in docs:
            zf.writestr(f"OEBPS/{name}", content)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()


def basic_docs() -> list[tuple[str, str]]:
    return [("cover.xhtml", xhtml('<img src="cover.jpg" alt="Cover"/>', body_type="cover")),
            ("title.xhtml", xhtml("<h1>Test Book</h1><p>by Test Author</p>", body_type="frontmatter titlepage")),
            ("copyright.xhtml", xhtml("<h2>Copyright</h2><p>Copyright 2024 by nobody. All rights reserved. "
                                      "No part may be copied without permission of the publisher.</p>")),
            ("ch1.xhtml", xhtml(chapter("Chapter One"))),
            ("ch2.xhtml", xhtml(chapter("Chapter Two"))),
            ("colophon.xhtml", xhtml("<section epub:type=\"colophon\"><h2>Colophon</h2><p>" + PROSE * 3
                                     + "</p></section>"))]


def test_spine_order_titles_metadata_and_skipped_matter() -> None:
    book = read_book("book.epub", make_epub(basic_docs()))
    assert (book.title, book.author) == ("Test Book", "Test Author")
    assert [c.title for c in book.chapters] == ["Chapter One", "Chapter Two"]
    assert book.chapters[0].text == "\n\n".join([PROSE.strip()] * 3)


def test_upper_case_extension_is_accepted() -> None:
    assert len(read_book("BOOK.EPUB", make_epub(basic_docs())).chapters) == 2


def test_hgroup_label_and_title_are_combined() -> None:
    body = ("<section><hgroup><h2><span>Stave</span>\n<span>I</span></h2><p epub:type=\"title\">Marley’s Ghost</p>"
            f"</hgroup><p>{PROSE}</p></section>")
    book = read_book("b.epub", make_epub([("c1.xhtml", xhtml(body, "Stave I: Marley’s Ghost"))]))
    assert [c.title for c in book.chapters] == ["Stave I: Marley’s Ghost"]


def test_heading_with_line_break_and_capitals() -> None:
    body = f"<h2>CHAPTER I.<br/>DOWN THE RABBIT-HOLE</h2><p>{PROSE}</p>"
    book = read_book("b.epub", make_epub([("c1.xhtml", xhtml(body))]))
    assert book.chapters[0].title == "Chapter I: Down the Rabbit-Hole"


def test_one_document_holding_several_chapters_is_split_at_its_headings() -> None:
    body = "<h1>Test Book</h1>" + "".join(f"<h2>Chapter {n}</h2>" + f"<p>{PROSE}</p>" * 2 for n in (1, 2, 3))
    book = read_book("b.epub", make_epub([("all.xhtml", xhtml(body))]))
    assert [c.title for c in book.chapters] == ["Chapter 1", "Chapter 2", "Chapter 3"]


def test_untitled_document_continues_the_previous_chapter() -> None:
    docs = [("c1.xhtml", xhtml(chapter("Chapter 1"))), ("c1b.xhtml", xhtml(f"<p>Continued. {PROSE}</p>")),
            ("c2.xhtml", xhtml(chapter("Chapter 2")))]
    book = read_book("b.epub", make_epub(docs))
    assert [c.title for c in book.chapters] == ["Chapter 1", "Chapter 2"]
    assert book.chapters[0].text.endswith("Continued. " + PROSE.strip())


def test_documents_without_headings_take_their_titles_from_the_navigation() -> None:
    docs = [("a.xhtml", xhtml(f"<p>{PROSE}</p>")), ("b.xhtml", xhtml(f"<p>{PROSE}</p>"))]
    book = read_book("b.epub", make_epub(docs, toc=[("a.xhtml", "The Beginning"), ("b.xhtml", "The End Game")]))
    assert [c.title for c in book.chapters] == ["The Beginning", "The End Game"]


def test_paragraph_styled_headings_are_recognised() -> None:
    docs = [(f"c{n}.xhtml", xhtml(f'<p class="chapter">CHAPTER {n}</p><p class="title">THE {word} NIGHT</p>'
                                  f"<p>{PROSE}</p>")) for n, word in (("I", "FIRST"), ("II", "SECOND"))]
    book = read_book("b.epub", make_epub(docs))
    assert [c.title for c in book.chapters] == ["Chapter I: The First Night", "Chapter II: The Second Night"]
    assert book.chapters[0].text == PROSE.strip()


def test_short_preface_is_skipped_and_long_one_kept() -> None:
    short = ("preface.xhtml", xhtml(f'<section epub:type="preface"><h2>Preface</h2><p>{PROSE}</p></section>'))
    long = ("preface.xhtml", xhtml(f'<section epub:type="preface"><h2>Preface</h2>{f"<p>{PROSE}</p>" * 15}'
                                   "</section>"))
    body = [("c1.xhtml", xhtml(chapter("Chapter 1")))]
    assert [c.title for c in read_book("b.epub", make_epub([short, *body])).chapters] == ["Chapter 1"]
    assert [c.title for c in read_book("b.epub", make_epub([long, *body])).chapters] == ["Preface", "Chapter 1"]


def test_script_style_and_footnote_markers_are_dropped() -> None:
    body = ("<h1>Chapter 1</h1><script>var secret = 'SCRIPTTEXT';</script><style>p { color: red } /* STYLETEXT */"
            f"</style><p>Visible words<a epub:type=\"noteref\" href=\"#n1\">1</a> here. {PROSE}</p>"
            "<noscript>NOSCRIPTTEXT</noscript>")
    text = read_book("b.epub", make_epub([("c1.xhtml", xhtml(body))])).chapters[0].text
    assert "Visible words here." in text
    for hidden in ("SCRIPTTEXT", "STYLETEXT", "NOSCRIPTTEXT", "color", "Test Book"):
        assert hidden not in text


def test_html_entities_and_malformed_markup_are_read() -> None:
    body = f"<h1>Chapter&nbsp;1</h1><p>Caf&eacute; &mdash; na&iuml;ve &amp; calm.<br>{PROSE}<p>Second &hellip; para"
    book = read_book("b.epub", make_epub([("c1.xhtml", xhtml(body))]))
    assert book.chapters[0].title == "Chapter 1"
    assert book.chapters[0].text.startswith("Café — naïve & calm.\n" + PROSE.strip())
    assert "Second … para" in book.chapters[0].text


def test_gutenberg_boilerplate_inside_an_epub_is_removed() -> None:
    docs = [("c0.xhtml", xhtml('<section id="pg-header"><p>The Project Gutenberg eBook of Test. This eBook is for '
                               "the use of anyone anywhere.</p></section><p>*** START OF THE PROJECT GUTENBERG EBOOK "
                               f"TEST ***</p>{chapter('Chapter 1')}")),
            ("c1.xhtml", xhtml(chapter("Chapter 2") + "<p>*** END OF THE PROJECT GUTENBERG EBOOK TEST ***</p>"
                               f"<p>Licence {PROSE}</p>")),
            ("c2.xhtml", xhtml(f"<h2>The Full Project Gutenberg License</h2>{f'<p>{PROSE}</p>' * 5}"))]
    book = read_book("b.epub", make_epub(docs))
    assert [c.title for c in book.chapters] == ["Chapter 1", "Chapter 2"]
    assert not any("Gutenberg" in c.text or "Licence" in c.text for c in book.chapters)


def test_a_transcribers_note_inside_an_epub_is_removed() -> None:
    """Gutenberg's HTML puts its transcribers' notes in class "transnote"; the note's magazine name is no story."""
    body = (chapter("Chapter 1") + '<div class="blockquot transnote"><p>Transcriber’s Note: This etext was produced '
            "from Galaxy Magazine August 1959.</p></div>")
    book = read_book("b.epub", make_epub([("c1.xhtml", xhtml(body))]))
    assert "Galaxy" not in book.chapters[0].text and PROSE.split()[0] in book.chapters[0].text


def test_ebooklib_written_epub_is_read() -> None:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("x")
    book.set_title("Made by ebooklib")
    book.add_author("Ann Author")
    items = []
    for i in (1, 2):
        item = epub.EpubHtml(title=f"Chapter {i}", file_name=f"ch{i}.xhtml", lang="en")
        item.content = f"<html><body><h1>Chapter {i}</h1><p>{PROSE}</p></body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    buf = io.BytesIO()
    epub.write_epub(buf, book)
    parsed = read_book("made.epub", buf.getvalue())
    assert (parsed.title, parsed.author) == ("Made by ebooklib", "Ann Author")
    assert [c.title for c in parsed.chapters] == ["Chapter 1", "Chapter 2"]


def test_not_a_zip_is_rejected() -> None:
    with pytest.raises(IngestError, match="not a valid EPUB"):
        read_book("fake.epub", b"This is plain text pretending to be an EPUB. " * 50)


def test_truncated_epub_is_rejected() -> None:
    data = make_epub(basic_docs())
    for cut in (len(data) // 2, len(data) - 30, 100):
        with pytest.raises(IngestError, match="damaged"):
            read_book("cut.epub", data[:cut])


def test_corrupted_member_is_rejected() -> None:
    data = bytearray(make_epub(basic_docs()))
    start = data.find(b"ch1.xhtml") + 40  # inside the compressed data of the first chapter
    data[start:start + 20] = b"\x00" * 20
    with pytest.raises(IngestError):
        read_book("bad.epub", bytes(data))


def test_zip_without_container_is_rejected() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("chapter.xhtml", xhtml(chapter("Chapter 1")))
    with pytest.raises(IngestError, match="not an EPUB"):
        read_book("plain.epub", buf.getvalue())


def test_highly_compressed_member_is_rejected_as_a_zip_bomb() -> None:
    data = make_epub(basic_docs(), extra={"OEBPS/bomb.xhtml": b" " * (8 * 1024 * 1024)})
    with pytest.raises(IngestError, match="zip bomb"):
        read_book("bomb.epub", data)


def test_archive_that_unpacks_past_the_limit_is_rejected() -> None:
    chunk = bytes(1024 * 1024)  # each member is small enough to pass the ratio test; together they are 205 MB
    data = make_epub(basic_docs(), extra={f"OEBPS/pad{i}.bin": chunk for i in range(205)})
    with pytest.raises(IngestError, match="MB"):
        read_book("huge.epub", data)


@pytest.mark.parametrize("package_reader", ["ebooklib", "tolerant"])
def test_external_entities_are_not_expanded(tmp_path: Path, package_reader: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-VALUE")
    doctype = f'<!DOCTYPE html [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    body = f"<h1>Chapter 1</h1><p>Before &xxe; after. {PROSE}</p>"
    data = make_epub([("c1.xhtml", xhtml(body, doctype=doctype))], title="Title &xxe;",
                     opf_prefix=f'<!DOCTYPE package [<!ENTITY xxe SYSTEM "file://{secret}">]>')
    if package_reader == "tolerant":  # a nav document ebooklib refuses sends the file to the fallback reader
        data = _rewrite(data, replace={"OEBPS/nav.xhtml": xhtml("<nav><ol></ol></nav>")})
    book = read_book("xxe.epub", data)
    assert "TOPSECRET" not in (book.title or "") and "TOPSECRET" not in book.chapters[0].text
    assert "Before" in book.chapters[0].text and "after." in book.chapters[0].text


def test_entity_expansion_bomb_is_not_expanded() -> None:
    doctype = ('<!DOCTYPE html [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
               '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">'
               '<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">]>')
    body = f"<h1>Chapter 1</h1><p>&f;&f;&f;&f;&f;&f;&f;&f; {PROSE}</p>"
    started = time.perf_counter()
    book = read_book("lol.epub", make_epub([("c1.xhtml", xhtml(body, doctype=doctype))]))
    assert time.perf_counter() - started < 5
    assert "aaaaaaaaaa" not in book.chapters[0].text


def test_drm_protected_epub_is_rejected() -> None:
    encryption = (b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><EncryptedData '
                  b'xmlns="http://www.w3.org/2001/04/xmlenc#"><CipherData><CipherReference URI="OEBPS/ch1.xhtml"/>'
                  b"</CipherData></EncryptedData></encryption>")
    data = make_epub(basic_docs(), extra={"META-INF/encryption.xml": encryption})
    with pytest.raises(IngestError, match="DRM"):
        read_book("drm.epub", data)


def test_epub_without_readable_text_is_rejected() -> None:
    docs = [("p1.xhtml", xhtml('<img src="page1.jpg" alt="Page 1"/>')),
            ("p2.xhtml", xhtml('<img src="page2.jpg" alt="Page 2"/>'))]
    with pytest.raises(IngestError, match="no readable text"):
        read_book("images.epub", make_epub(docs))


def _rewrite(data: bytes, drop: str = "", replace: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            if drop and info.filename.endswith(drop):
                continue
            dst.writestr(info.filename, (replace or {}).get(info.filename, src.read(info)))
    return buf.getvalue()


def test_missing_chapter_file_is_skipped_with_a_warning() -> None:
    book = read_book("missing.epub", _rewrite(make_epub(basic_docs()), drop="ch2.xhtml"))
    assert [c.title for c in book.chapters] == ["Chapter One"]
    assert any("skipped" in w for w in book.warnings)


def test_navigation_document_that_ebooklib_rejects_does_not_lose_the_book() -> None:
    broken_nav = xhtml("<nav><ol><li><a href='ch1.xhtml'>One</a></li></ol></nav>")  # no epub:type="toc"
    book = read_book("nav.epub", _rewrite(make_epub(basic_docs()), replace={"OEBPS/nav.xhtml": broken_nav}))
    assert [c.title for c in book.chapters] == ["Chapter One", "Chapter Two"]
    assert (book.title, book.author) == ("Test Book", "Test Author")


def test_unreadable_package_file_is_reported_as_damage() -> None:
    with pytest.raises(IngestError, match="damaged"):
        read_book("opf.epub", _rewrite(make_epub(basic_docs()), drop="content.opf"))


@pytest.mark.parametrize("seed", range(40))
def test_damaged_epubs_only_ever_raise_ingest_error(seed: int) -> None:
    import random

    rng = random.Random(seed)
    data = bytearray(make_epub(basic_docs()))
    for _ in range(rng.randint(1, 8)):
        pos = rng.randrange(len(data))
        data[pos:pos + rng.randint(1, 40)] = bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
    try:
        book = read_book("fuzzed.epub", bytes(data))
    except IngestError:
        return
    assert book.chapters
