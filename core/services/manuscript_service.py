"""The manuscript (issue 34): a work's chapters in one view, each read or edited in place with its revisions (any of
which can be restored as the newest), and the whole work exported as Markdown, EPUB or Word.

    rows = manuscript(store, work_id)                         # titles, words, accepted / draft, revisions
    save_chapter(store, work_id, 2, text, expected_revision=3, title="The Crack")
    restore_revision(store, work_id, 2, revision=1, expected_revision=4)   # revision 5 holds revision 1's text
    data, name, mime = export_work(store, work_id, "docx")    # Heading 1 chapters: Fabula's import reads them back

Nothing is ever overwritten: a save, a rewrite kept and a restore each add a revision; a save from a tab that opened
an older revision is refused (core.store.StaleRevision) and stores nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.domain import Chapter, ChapterSource
from core.ingest import chunk_text
from core.services.background_jobs import saved_draft
from core.services.library import edit_chapter
from core.services.write_service import WriteError, export_story
from core.store import Store
from core.write.formats import FORMATS

TITLE_CHARS = 500


class ManuscriptError(ValueError):
    """A manuscript request that cannot be carried out (an empty chapter, an unknown revision or format)."""


@dataclass(frozen=True)
class ManuscriptRow:
    """One line of the manuscript: a stored chapter ("accepted") or the story's waiting draft ("draft", index is the
    chapter it would become, revision 0)."""

    index: int
    title: str
    words: int
    status: str
    revision: int
    source: str

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Revision:
    revision: int
    source: str
    words: int
    text: str


def manuscript(store: Store, work_id: int) -> list[ManuscriptRow]:
    """The work's chapters in reading order, then the draft a story keeps until it is accepted (if any)."""
    chapters = store.list_chapters(work_id)
    rows = [ManuscriptRow(c.index, c.title, c.word_count, "accepted", c.revision, c.source.value) for c in chapters]
    draft = saved_draft(store, work_id)
    if draft is not None:
        rows.append(ManuscriptRow(len(chapters) + 1, "(draft, not yet accepted)", len(draft.text.split()), "draft", 0,
                                  ChapterSource.GENERATED.value))
    return rows


def totals(rows: list[ManuscriptRow]) -> tuple[int, int]:
    """(accepted chapters, their words)."""
    accepted = [r for r in rows if r.status == "accepted"]
    return len(accepted), sum(r.words for r in accepted)


def revisions(store: Store, work_id: int, index: int) -> list[Revision]:
    """Every saved version of a chapter, newest first."""
    return [Revision(rev, source, len(text.split()), text)
            for rev, source, text in reversed(store.chapter_revisions(work_id, index))]


def save_chapter(store: Store, work_id: int, index: int, text: str, *, expected_revision: int,
                 title: str | None = None) -> Chapter:
    """The writer's edit of a chapter (its text, and its title when changed) as its next revision."""
    chapter = store.get_chapter(work_id, index)
    title = " ".join((title or "").split())[:TITLE_CHARS] or None
    if title and title != chapter.title:
        clean = text.replace("\r\n", "\n").strip("\n")
        if not clean.strip():
            raise ManuscriptError("The chapter text is empty: write something, or keep the current text.")
        return store.update_chapter(work_id, index, clean, chunk_text(clean), expected_revision, title=title)
    try:
        return edit_chapter(store, work_id, index, text, expected_revision)
    except ValueError as exc:   # an empty text
        raise ManuscriptError(str(exc)) from exc


def restore_revision(store: Store, work_id: int, index: int, revision: int, *, expected_revision: int) -> Chapter:
    """An earlier revision's text saved again as the newest revision (the ones in between stay in the history)."""
    for rev, _, text in store.chapter_revisions(work_id, index):
        if rev == revision:
            current = store.get_chapter(work_id, index)
            if text == current.text:
                raise ManuscriptError(f"Revision {revision} is the chapter's current text: nothing to restore.")
            return store.update_chapter(work_id, index, text, chunk_text(text), expected_revision)
    raise ManuscriptError(f"Chapter {index} has no revision {revision}.")


def export_work(store: Store, work_id: int, fmt: str = "md") -> tuple[bytes, str, str]:
    """(payload, file name, MIME type) of the whole work (any work, book or story) as "md", "epub" or "docx"."""
    try:
        return export_story(store, work_id, fmt)
    except WriteError as exc:
        raise ManuscriptError(str(exc)) from exc
