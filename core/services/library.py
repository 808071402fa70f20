"""Library use cases: import a book, list and read works, rename, delete, start an empty story, seed the sample."""
from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

from core.config import PROJECT_ROOT, get_settings
from core.domain import Chapter, ChapterInfo, ChapterSource, NewChapter, Work, WorkKind
from core.ingest import IngestError, ParsedBook, chunk_text, read_book
from core.store import Store

SAMPLE_BOOK = PROJECT_ROOT / "assets" / "a_christmas_carol.txt"
SAMPLE_META_KEY = "sample_seeded"
ALLOWED_SUFFIXES = (".txt", ".md", ".markdown", ".epub", ".docx", ".pdf")
MAX_TITLE_CHARS = 200

ProgressFn = Callable[[int, int, str], None]


def clean_filename(name: str) -> str:
    """The last path component of an uploaded name, with control characters and markup removed.

    Browsers and the CLI can hand in "../../etc/passwd.txt" or "<script>.txt"; only the base name is kept, and
    it is used only as a display title fallback (never as a path).
    """
    base = re.split(r"[\\/]", name or "")[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C")
    base = re.sub(r"<[^>]*>", "", base).strip()
    stem, dot, suffix = base.rpartition(".")
    if not dot:
        stem, suffix = base, ""
    stem = stem.strip(" .") or "untitled"
    return (stem[:240] + (f".{suffix[:12]}" if suffix else ""))


def clean_title(title: str) -> str:
    """A single-line, length-limited title. Markup is kept as literal text (pages escape it when rendering)."""
    title = " ".join((title or "").split())
    return title[:MAX_TITLE_CHARS] or "Untitled"


def _title_from_filename(filename: str) -> str:
    stem = Path(clean_filename(filename)).stem
    stem = re.sub(r"_pg\d+$", "", stem)
    return clean_title(re.sub(r"[_\-]+", " ", stem).strip().title() or "Untitled")


def parse_upload(filename: str, data: bytes) -> ParsedBook:
    """Validate and parse an uploaded file; raises IngestError with a message for the user."""
    settings = get_settings()
    safe = clean_filename(filename)
    suffix = Path(safe).suffix.lower()
    if suffix not in ALLOWED_SUFFIXES:
        raise IngestError(f"'{safe}' is not a supported file type: import a .txt, .md, .epub, .docx or .pdf file.")
    limit = settings.max_upload_mb * 1024 * 1024
    if len(data) > limit:
        raise IngestError(
            f"'{safe}' is {len(data) / 1e6:.1f} MB; Fabula imports books up to {settings.max_upload_mb} MB "
            "(the longest novels are about 5 MB). Split the file, or raise FABULA_MAX_UPLOAD_MB.")
    try:
        book = read_book(safe, data)
    except IngestError as exc:
        raise IngestError(f"Could not import '{safe}': {exc}") from exc
    if not book.chapters or not any(ch.text.strip() for ch in book.chapters):
        raise IngestError(f"'{safe}' contains no readable text.")
    return book


class AlreadyInLibrary(IngestError):
    """The same file was imported before: the caller offers to open `existing`, or imports a copy."""

    def __init__(self, existing: Work) -> None:
        super().__init__(f"This file is already in the library as “{existing.title}” (work {existing.id}).")
        self.existing = existing


def content_hash(data: bytes) -> str:
    """What recognises a file imported twice: the SHA-256 of its bytes (the same book saved again with other line
    endings or another encoding is a different file)."""
    return hashlib.sha256(data).hexdigest()


def find_same_book(store: Store, data: bytes) -> Work | None:
    """The work first imported from these very bytes, if it is still in the library."""
    works = store.find_works_by_content(content_hash(data))
    return works[0] if works else None


def import_book(store: Store, filename: str, data: bytes, title: str | None = None,
                on_progress: ProgressFn | None = None, allow_copy: bool = True) -> Work:
    """Parse, split into chapters, cut passages and store the book in one transaction.

    Either the whole work is stored or nothing is: a failure at any point leaves the database unchanged. With
    `allow_copy=False` a file already imported is refused with AlreadyInLibrary before it is parsed.
    """
    report = on_progress or (lambda done, total, msg: None)
    report(0, 3, "Reading the file")
    digest = content_hash(data)
    if not allow_copy and (same := store.find_works_by_content(digest)):
        raise AlreadyInLibrary(same[0])
    book = parse_upload(filename, data)
    report(1, 3, f"Found {len(book.chapters)} chapters; cutting passages")
    chapters = [NewChapter(title=clean_title(ch.title), text=ch.text, chunks=chunk_text(ch.text),
                           source=ChapterSource.UPLOADED) for ch in book.chapters if ch.text.strip()]
    report(2, 3, "Saving")
    final_title = clean_title(title) if title and title.strip() else (
        clean_title(book.title) if book.title else _title_from_filename(filename))
    work = store.create_work(final_title, book.author, WorkKind.BOOK,
                             {"source_file": clean_filename(filename), "warnings": book.warnings}, chapters,
                             content_sha256=digest)
    report(3, 3, "Done")
    return work


def create_story(store: Store, title: str, premise: str = "", settings: dict | None = None) -> Work:
    """An empty story (no chapters yet); the premise and writing settings are kept on the work."""
    if not title.strip():
        raise ValueError("A story needs a title.")
    return store.create_work(clean_title(title), None, WorkKind.STORY, {"premise": premise.strip(), **(settings or {})},
                             [])


def rename_work(store: Store, work_id: int, title: str) -> Work:
    if not title.strip():
        raise ValueError("The new title is empty.")
    return store.rename_work(work_id, clean_title(title))


def chapter_table(store: Store, work_id: int) -> list[ChapterInfo]:
    return store.list_chapters(work_id)


def ensure_sample(store: Store) -> Work | None:
    """Import the bundled sample book the first time the app starts on a database; never again after.

    A marker in app metadata remembers that it was seeded, so a user who deletes the sample does not get it back.
    """
    if store.get_meta(SAMPLE_META_KEY):
        return None
    work = None
    if not store.list_works():
        work = import_book(store, SAMPLE_BOOK.name, SAMPLE_BOOK.read_bytes(), title="A Christmas Carol")
    store.set_meta(SAMPLE_META_KEY, "1")
    return work


def sample_work(store: Store, restore: bool = False) -> Work | None:
    """The bundled sample book as it is in the library (found by its bytes); None when the user deleted it, unless
    `restore`, which imports it again."""
    data = SAMPLE_BOOK.read_bytes()
    work = find_same_book(store, data)
    if work is None and restore:
        work = import_book(store, SAMPLE_BOOK.name, data, title="A Christmas Carol")
    return work


def edit_chapter(store: Store, work_id: int, index: int, text: str, expected_revision: int) -> Chapter:
    """Save the user's own text of a chapter as its next revision (every earlier one stays in its history), with
    fresh passages. ValueError for an empty text; core.store.StaleRevision (nothing saved) when the chapter was
    saved elsewhere since `expected_revision` was opened. The graph, vectors and summaries see the new revision as
    changed and redo it when next built. A text equal to the saved one adds no revision."""
    text = text.replace("\r\n", "\n").strip("\n")
    if not text.strip():
        raise ValueError("The chapter text is empty: write something, or keep the current text.")
    current = store.get_chapter(work_id, index)
    if text == current.text:
        return current
    return store.update_chapter(work_id, index, text, chunk_text(text), expected_revision)


__all__ = ["IngestError", "AlreadyInLibrary", "import_book", "find_same_book", "content_hash", "parse_upload",
           "create_story", "rename_work", "ensure_sample", "sample_work", "clean_filename", "clean_title",
           "chapter_table", "edit_chapter"]
