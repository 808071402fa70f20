"""Word and PDF editions of shared novels, made here (tests/support/book_files.py), imported through the library
service into a real SQLite file and compared with the plain-text import of the same novel: the same chapters, at
least 99% of the words (one tokenizer for both), no running header or page number left in the text, italics kept as
emphasis, tracked deletions and comments left out; the CLI takes both kinds of file. Skipped without shared data."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.ingest.pdf import _read_document
from core.services import library
from storage.repository import SqlStore
from tests.conftest import novel_path
from tests.support.book_files import COMMENT_TEXT, DELETED_WORD, INSERTED_WORD, make_docx, make_pdf

ROOT = Path(__file__).resolve().parents[2]
NOVELS = {"the_call_of_the_wild_pg215.txt": "Buck", "a_christmas_carol_pg46.txt": "Scrooge"}
_WORD = re.compile(r"[^\W_]+")


@dataclass
class Imported:
    title: str
    chapter_titles: list[str]
    texts: list[str]

    @property
    def words(self) -> list[str]:
        return [w.lower() for text in self.texts for w in _WORD.findall(text)]

    @property
    def paragraphs(self) -> list[str]:
        return [p for text in self.texts for p in text.split("\n\n")]


@dataclass
class Editions:
    """One novel imported as .txt, .docx, .pdf with an outline and .pdf without; the files themselves too."""

    source: str
    italic_word: str
    book_title: str
    txt: Imported
    docx: Imported
    pdf: Imported
    pdf_plain: Imported
    docx_bytes: bytes
    pdf_bytes: bytes
    docx_warnings: list[str]


def _import(store: SqlStore, name: str, data: bytes) -> tuple[Imported, list[str]]:
    work = library.import_book(store, name, data)
    chapters = [store.get_chapter(work.id, c.index) for c in store.list_chapters(work.id)]
    return Imported(work.title, [c.title for c in chapters], [c.text for c in chapters]), work.settings["warnings"]


@pytest.fixture(scope="module", params=sorted(NOVELS))
def editions(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Editions:
    path = novel_path(request.param)
    store = SqlStore.from_url(f"sqlite:///{tmp_path_factory.mktemp('editions') / 'fabula.db'}")
    try:
        txt, _ = _import(store, path.name, path.read_bytes())
        chapters = list(zip(txt.chapter_titles, txt.texts))
        word = NOVELS[request.param]
        docx_bytes = make_docx(txt.title, "Test Author", chapters, italic=lambda w: w == word, revisions=True)
        pdf_bytes = make_pdf(txt.title, "Test Author", chapters, outline=True)
        docx, warnings = _import(store, path.stem + ".docx", docx_bytes)
        pdf, _ = _import(store, path.stem + ".pdf", pdf_bytes)
        pdf_plain, _ = _import(store, path.stem + "_no_outline.pdf",
                               make_pdf(txt.title, "Test Author", chapters, outline=False))
    finally:
        store.engine.dispose()
    return Editions(request.param, word, txt.title, txt, docx, pdf, pdf_plain, docx_bytes, pdf_bytes, warnings)


@pytest.mark.parametrize("kind", ["docx", "pdf", "pdf_plain"])
def test_same_chapters_and_nearly_all_words_as_the_text_import(editions: Editions, kind: str) -> None:
    imported: Imported = getattr(editions, kind)
    assert len(imported.chapter_titles) == len(editions.txt.chapter_titles), imported.chapter_titles
    assert [_fold(t) for t in imported.chapter_titles] == [_fold(t) for t in editions.txt.chapter_titles]
    assert imported.title == editions.book_title
    for title, text in zip(imported.chapter_titles, imported.texts):  # the printed heading is not text as well
        assert _fold(text.split("\n\n")[0]) != _fold(title), title
    got, want = Counter(imported.words), Counter(editions.txt.words)
    shared = sum((got & want).values())
    assert shared >= 0.99 * sum(want.values()), f"{kind}: {shared} of {sum(want.values())} words"
    assert sum(got.values()) <= 1.01 * sum(want.values()), f"{kind}: {sum(got.values())} words, text had more"


@pytest.mark.parametrize("kind", ["pdf", "pdf_plain"])
def test_pdf_headers_footers_and_page_numbers_are_removed(editions: Editions, kind: str) -> None:
    imported: Imported = getattr(editions, kind)
    assert not [p for p in imported.paragraphs if re.fullmatch(r"\W*\d{1,4}\W*", p)]
    text = "\n".join(imported.texts)
    # The running headers: the book's title on even pages, the chapter's on odd ones, each printed on many pages.
    for header in [editions.book_title, *editions.txt.chapter_titles]:
        printed = _ascii(header)
        assert text.count(printed) <= "\n".join(editions.txt.texts).count(header), printed
    # A page number glued into a sentence ("... the dogs 23 were ...") would show as a number the text lacks.
    numbers = Counter(w for w in imported.words if w.isdigit())
    assert not numbers - Counter(w for w in editions.txt.words if w.isdigit())


def test_pdf_line_end_hyphens_are_repaired(editions: Editions) -> None:
    """The typeset PDF breaks words at line ends ("strugg-" / "led"); the import joins those the text writes whole."""
    pages, _, _, _ = _read_document(editions.pdf_bytes)
    lines = [line.text for page in pages for line in page]
    broken = [(a, b) for a, b in zip(lines, lines[1:]) if a.endswith(("-", "\x02")) and a[-2:-1].isalpha()]
    assert len(broken) >= 10
    txt_words = set(editions.txt.words)
    pdf_text = "\n".join(editions.pdf.texts).lower()
    joined = [head + tail for a, b in broken if (head := _WORD.findall(a[:-1])[-1].lower()) and b[:1].isalpha()
              and (tail := _WORD.findall(b)[0].lower()) and (head + tail) in txt_words]
    assert joined and sum(1 for w in joined if re.search(rf"\b{w}\b", pdf_text)) >= 0.95 * len(joined)


def test_docx_italics_revisions_and_comments(editions: Editions) -> None:
    text = "\n".join(editions.docx.texts)
    word = editions.italic_word
    assert text.count(f"*{word}*") >= 50, "italic runs are kept as Markdown emphasis"
    assert f"{word}*" not in text.replace(f"*{word}*", "")
    assert INSERTED_WORD in text and DELETED_WORD not in text and COMMENT_TEXT not in text
    assert any("tracked changes" in w for w in editions.docx_warnings)
    assert any("Comments" in w for w in editions.docx_warnings)


def test_cli_ingest_takes_docx_and_pdf(editions: Editions, tmp_path: Path) -> None:
    """One kind per novel (a CLI start costs seconds): the first novel as .docx, the second as .pdf."""
    env = {**os.environ, "FABULA_DB_URL": f"sqlite:///{tmp_path / 'cli.db'}"}
    first = editions.source == sorted(NOVELS)[0]
    name, data = ("book.docx", editions.docx_bytes) if first else ("book.pdf", editions.pdf_bytes)
    (tmp_path / name).write_bytes(data)
    out = subprocess.run([sys.executable, str(ROOT / "cli.py"), "ingest", str(tmp_path / name), "--json"],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["chapters"]) == len(editions.txt.chapter_titles)


def _fold(title: str) -> str:
    return " ".join(_WORD.findall(_ascii(title).lower()))


def _ascii(text: str) -> str:
    return text.translate(str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "—": "--", "–": "-"}))
