"""Word and PDF files made from a book's chapters, the way a writer's or a publisher's tools lay them out, for the
import tests and bench/ingest.py.

The .docx has the book's title in the Title style, chapter headings in Heading 1, italic runs, and (on request) a
comment, a tracked deletion and a tracked insertion. The .pdf is typeset: a title page, each chapter on a new page
with its heading in a larger font, first-line indents and no blank lines between paragraphs, long words hyphenated
at line ends, a running header (the book's title on even pages, the chapter's on odd ones, none on a chapter's first
page) and a page number at the foot of every page; an outline (bookmarks) on request. PDF text uses the standard
Times font, which covers Latin-1 only, so typographic quotes and dashes are written as their ASCII forms.
"""
from __future__ import annotations

import datetime
import io
import re
import unicodedata
from collections.abc import Callable, Sequence

Chapter = tuple[str, str]  # (title, text with paragraphs separated by blank lines)

DELETED_WORD = "Withdrawnword"   # inside a tracked deletion: must not be imported
INSERTED_WORD = "Addedlater"     # inside a tracked insertion: must be imported
COMMENT_TEXT = "Editor remark: tighten this scene"  # a comment: must not be imported

_EPOCH = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)  # fixed, so the files are reproducible
_ASCII = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "—": "--", "–": "-", "…": "...", "\u00a0": " "})


def make_docx(title: str, author: str, chapters: Sequence[Chapter], italic: Callable[[str], bool] = lambda w: False,
              revisions: bool = False) -> bytes:
    """A Word manuscript: Title, a "by" line, then a Heading 1 and its paragraphs per chapter. Words for which
    `italic` is true are italic runs. With `revisions`, the first chapter's first paragraph carries a comment, a
    tracked deletion of DELETED_WORD and a tracked insertion of INSERTED_WORD."""
    import docx
    from docx.oxml import parse_xml

    doc = docx.Document()
    doc.core_properties.title, doc.core_properties.author = title, author
    doc.add_paragraph(title, style="Title")
    doc.add_paragraph(f"by {author}")
    for number, (heading, text) in enumerate(chapters):
        doc.add_heading(heading, level=1)
        for k, para in enumerate(p for p in text.split("\n\n") if p.strip()):
            paragraph = doc.add_paragraph()
            _add_runs(paragraph, " ".join(para.split()), italic)
            if revisions and number == 0 and k == 0:
                doc.add_comment(paragraph.runs[0], text=COMMENT_TEXT, author="Editor")
                w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
                stamp = 'w:author="Editor" w:date="2024-01-01T00:00:00Z"'
                paragraph._p.append(parse_xml(f'<w:del {w} w:id="901" {stamp}><w:r><w:delText xml:space="preserve">'
                                              f" {DELETED_WORD}</w:delText></w:r></w:del>"))
                paragraph._p.append(parse_xml(f'<w:ins {w} w:id="902" {stamp}><w:r><w:t xml:space="preserve">'
                                              f" {INSERTED_WORD}</w:t></w:r></w:ins>"))
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def _add_runs(paragraph, text: str, italic: Callable[[str], bool]) -> None:  # noqa: ANN001 - a docx Paragraph
    """Runs of plain and italic words, spaces kept outside the italic runs (as Word writes them)."""
    plain: list[str] = []
    for k, word in enumerate(text.split(" ")):
        core = word.strip(".,;:!?\"'“”‘’()")
        if core and italic(core):
            lead, _, tail = word.partition(core)
            paragraph.add_run("".join(plain) + (" " if k else "") + lead)
            paragraph.add_run(core).italic = True
            plain = [tail]
        else:
            plain.append((" " if k else "") + word)
    if plain:
        paragraph.add_run("".join(plain))


def make_pdf(title: str, author: str, chapters: Sequence[Chapter], outline: bool = True) -> bytes:
    """A typeset book (see the module's docstring); `outline` adds one bookmark per chapter."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format=(420, 595))  # A5
    pdf.set_creation_date(_EPOCH)
    pdf.set_auto_page_break(False)
    pdf.set_margins(50, 60, 50)
    width, left, top, bottom, leading = pdf.w - 100, 50.0, 60.0, pdf.h - 60, 13.0
    pdf.add_page()
    pdf.set_font("Times", "B", 20)
    pdf.set_xy(left, 200)
    pdf.cell(width, 24, _latin1(title), align="C")
    pdf.set_font("Times", "", 12)
    pdf.set_xy(left, 240)
    pdf.cell(width, 14, _latin1(f"by {author}"), align="C")
    _folio(pdf, title, None)
    for heading, text in chapters:
        pdf.add_page()
        if outline:
            pdf.start_section(_latin1(heading), level=0)
        pdf.set_font("Times", "B", 15)
        y = top + 40
        for line in _wrap(pdf, _latin1(heading), width):
            pdf.set_xy(left, y)
            pdf.cell(width, 18, line, align="C")
            y += 20
        y += 24
        pdf.set_font("Times", "", 10.5)
        first_page = True
        for para in (p for p in text.split("\n\n") if p.strip()):
            for k, line in enumerate(_wrap(pdf, _latin1(" ".join(para.split())), width, indent=15)):
                if y > bottom - leading:
                    _folio(pdf, title, None if first_page else heading)
                    pdf.add_page()
                    pdf.set_font("Times", "", 10.5)
                    first_page, y = False, top
                pdf.set_xy(left + (15 if k == 0 else 0), y)
                pdf.cell(width, leading, line)
                y += leading
        _folio(pdf, title, None if first_page else heading)
    return bytes(pdf.output())


def _folio(pdf, book_title: str, chapter_title: str | None) -> None:  # noqa: ANN001 - an fpdf.FPDF
    """The page number at the foot; the running header at the top, except on a chapter's first page."""
    pdf.set_font("Times", "", 9)
    pdf.set_xy(50, pdf.h - 40)
    pdf.cell(pdf.w - 100, 10, str(pdf.page_no()), align="C")
    if chapter_title is not None:
        pdf.set_font("Times", "I", 9)
        pdf.set_xy(50, 30)
        pdf.cell(pdf.w - 100, 10, _latin1(book_title if pdf.page_no() % 2 == 0 else chapter_title), align="C")


def _wrap(pdf, text: str, width: float, indent: float = 0.0) -> list[str]:  # noqa: ANN001 - an fpdf.FPDF
    """Greedy line breaking; a long word (or a compound at its hyphen) that does not fit is hyphenated."""
    lines: list[str] = []
    line, room = "", width - indent
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if pdf.get_string_width(candidate) <= room:
            line = candidate
            continue
        head, tail = _hyphenate(pdf, line, word, room)
        if head:
            lines.append(f"{line} {head}" if line else head)
            line = tail
        else:
            lines.append(line)
            line = word
        room = width
    if line:
        lines.append(line)
    return lines


def _hyphenate(pdf, line: str, word: str, room: float) -> tuple[str, str]:  # noqa: ANN001 - an fpdf.FPDF
    """(word's head ending in "-", the rest) that fits on the line, or ("", "") when the word is not split."""
    if "-" in word.strip("-"):
        cuts = [word.index("-", 1) + 1]  # a compound breaks after its own hyphen: "sea-" / "shore"
    elif re.fullmatch(r"[A-Za-z]{8,}[,.;:!?]?", word):
        cuts = list(range(len(word.rstrip(",.;:!?")) - 3, 3, -1))
    else:
        return "", ""
    for cut in cuts:
        head = word[:cut] if word[cut - 1] == "-" else word[:cut] + "-"
        if pdf.get_string_width(f"{line} {head}" if line else head) <= room:
            return head, word[cut:]
    return "", ""


def _latin1(text: str) -> str:
    text = unicodedata.normalize("NFC", text.translate(_ASCII))
    return "".join(ch if ord(ch) < 256 else unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
                   for ch in text)
