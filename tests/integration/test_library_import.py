"""Importing through the library service and the CLI: good books, unusual but readable files, and bad input.

Every rejection must leave the database exactly as it was (row counts of every table compared)."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from core.ingest import IngestError
from core.services import library
from storage.repository import SqlStore

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(256)) * 8
STORY = ("CHAPTER I. The Arrival\n\nMarie arrived at the château on a grey morning. Her café au lait was cold, "
         "and the naïve porter smiled. " * 8 + "\n\nCHAPTER II. The Letter\n\n" +
         "A letter came for Marie from Zoë, who wrote of the façade and the garden. " * 8)


def _epub_bytes() -> bytes:
    from ebooklib import epub
    book = epub.EpubBook()
    book.set_identifier("test-id")
    book.set_title("A Tiny Book")
    book.set_language("en")
    book.add_author("Test Author")
    chapters = []
    for i in (1, 2):
        c = epub.EpubHtml(title=f"Chapter {i}", file_name=f"ch{i}.xhtml", lang="en")
        c.content = f"<html><body><h1>Chapter {i}</h1>" + f"<p>Paragraph {i} of the tiny book is here.</p>" * 40 + \
            "</body></html>"
        book.add_item(c)
        chapters.append(c)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    buf = io.BytesIO()
    epub.write_epub(buf, book)
    return buf.getvalue()


REJECTED = {
    "empty.txt": b"",
    "blank.txt": b"   \n\n \t ",
    "picture.txt": PNG,
    "not_a_zip.epub": b"This is plain text pretending to be an EPUB. " * 50,
    "document.pdf": b"%PDF-1.4 fake",
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_bad_input_is_rejected_and_changes_nothing(store: SqlStore, name: str) -> None:
    library.ensure_sample(store)
    before = store.table_counts()
    with pytest.raises(IngestError) as info:
        library.import_book(store, name, REJECTED[name])
    assert len(str(info.value)) > 10
    assert store.table_counts() == before


def test_truncated_epub_is_rejected(store: SqlStore) -> None:
    data = _epub_bytes()
    before = store.table_counts()
    with pytest.raises(IngestError):
        library.import_book(store, "cut.epub", data[: len(data) // 2])
    assert store.table_counts() == before


def test_oversized_text_is_rejected_before_parsing(store: SqlStore) -> None:
    big = (b"All work and no play makes Jack a dull boy. " * 30 + b"\n\n") * 40_000  # ~53 MB
    assert len(big) > 50_000_000
    before = store.table_counts()
    with pytest.raises(IngestError, match="MB"):
        library.import_book(store, "huge.txt", big)
    assert store.table_counts() == before


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16", "utf-16-le", "cp1252"])
def test_unusual_encodings_import_correctly(store: SqlStore, encoding: str) -> None:
    work = library.import_book(store, f"story-{encoding}.txt", STORY.encode(encoding))
    chapters = store.list_chapters(work.id)
    assert len(chapters) == 2
    text = store.get_chapter(work.id, 1).text
    assert "château" in text and "café" in text and "naïve" in text


def test_epub_imports_with_metadata(store: SqlStore) -> None:
    work = library.import_book(store, "tiny.epub", _epub_bytes())
    assert work.title == "A Tiny Book"
    assert work.author == "Test Author"
    assert work.chapter_count == 2


@pytest.mark.parametrize("name", ["../../etc/passwd.txt", "dir\\sub\\book.txt", "<img src=x onerror=alert(1)>.txt",
                                  "<script>alert(1)</script>story.md"])
def test_hostile_file_names_are_reduced_to_a_safe_title(store: SqlStore, name: str) -> None:
    work = library.import_book(store, name, STORY.encode())
    assert "/" not in work.title and "\\" not in work.title and "<" not in work.title
    assert work.settings["source_file"] == library.clean_filename(name)
    assert "/" not in work.settings["source_file"] and "<" not in work.settings["source_file"]


def test_failure_midway_leaves_nothing(store: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    before = store.table_counts()
    calls = {"n": 0}
    real = library.chunk_text

    def failing_chunker(text: str, max_words: int = 240) -> list[str]:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("disk on fire")
        return real(text, max_words)

    monkeypatch.setattr(library, "chunk_text", failing_chunker)
    with pytest.raises(RuntimeError):
        library.import_book(store, "story.txt", STORY.encode())
    assert store.table_counts() == before


def test_sample_is_seeded_once(store: SqlStore) -> None:
    work = library.ensure_sample(store)
    assert work is not None and work.title == "A Christmas Carol" and work.chapter_count == 5
    store.delete_work(work.id)
    assert library.ensure_sample(store) is None
    assert store.list_works() == []


def _cli(args: list[str], db_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FABULA_DB_URL": db_url}
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


def test_cli_ingest_list_and_delete(tmp_path: Path, db_url: str) -> None:
    book = tmp_path / "story.txt"
    book.write_bytes(STORY.encode("latin-1"))
    out = _cli(["ingest", str(book), "--title", "My Story", "--json"], db_url)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["title"] == "My Story"
    assert [c["index"] for c in result["chapters"]] == [1, 2]
    assert all(c["words"] > 0 for c in result["chapters"])
    works = json.loads(_cli(["works", "--json"], db_url).stdout)
    assert [w["work_id"] for w in works] == [result["work_id"]]
    chapters = json.loads(_cli(["chapters", str(result["work_id"]), "--json"], db_url).stdout)
    assert chapters[1]["title"].startswith("Chapter II")
    assert _cli(["delete", str(result["work_id"])], db_url).returncode == 0
    assert json.loads(_cli(["works", "--json"], db_url).stdout) == []


def test_cli_errors_are_one_line_and_nonzero(tmp_path: Path, db_url: str) -> None:
    png = tmp_path / "cover.txt"
    png.write_bytes(PNG)
    out = _cli(["ingest", str(png), "--json"], db_url)
    assert out.returncode != 0
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("error:")
    missing = _cli(["chapters", "999", "--json"], db_url)
    assert missing.returncode != 0 and "999" in missing.stderr
