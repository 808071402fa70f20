"""Editing a chapter while others work on the same work (issue 10), on a real SQLite file and a real PostgreSQL
database:

- library.edit_chapter saves the user's text as a new revision with fresh passages, refuses empty text and a save
  from a stale revision, and never loses an earlier revision;
- two saves from the same revision: exactly one wins even when the second one's read happened before the first one
  committed (SQLite runs that read outside the write transaction, PostgreSQL under READ COMMITTED sees the other
  commit only at its write; the check must be part of the write);
- a graph build that read a chapter's text before the chapter was edited never marks the new revision as extracted:
  the edited chapter is read again, and the graph ends up reflecting the edit.
"""
from __future__ import annotations

import re

import pytest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.kg.types import ChapterExtraction, NameMention
from core.llm import FakeLLM
from core.services import kg_service
from core.services.library import edit_chapter
from core.store import StaleRevision
from storage.repository import SqlStore

NAMES = ("Anna Grey", "Thomas Reed", "Captain Hale", "Zebulon Quartermaine")
TEXTS = ["Anna Grey met Thomas Reed at the harbour gate.", "Captain Hale sailed to Lisbon with Thomas Reed.",
         "Thomas Reed waited for Anna Grey in the spring."]


@pytest.fixture
def db_url(any_db_url: str) -> str:
    """Every test here runs on a fresh SQLite file and on a fresh PostgreSQL database."""
    return any_db_url


def _work(store: SqlStore, texts: list[str] = TEXTS) -> int:
    return store.create_work("Harbour", None, WorkKind.BOOK, {},
                             [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(texts, 1)]).id


def _names_in(messages, options) -> str:  # noqa: ANN001 - a FakeLLM reply: the known names in the excerpt
    excerpt = messages[-1].content.rsplit("[Begin story excerpt]", 1)[-1]
    found = [n for n in NAMES if n in excerpt]
    return "\n".join(found) + "\nKnowledge graph edges (select up to 15):\n" + (
        f"1. {found[0]}; met; {found[1]}" if len(found) > 1 else "")


def _mentioned(store: SqlStore, work_id: int, chapter: int) -> set[str]:
    return {n.name for n in store.kg_name_counts(work_id) if n.chapter_index == chapter}


# ---- edit_chapter ----------------------------------------------------------------------------------------------

def test_edit_chapter_saves_a_new_revision_with_fresh_passages(store: SqlStore) -> None:
    work_id = _work(store)
    long_text = "\n\n".join(f"Paragraph {i} " + "word " * 150 for i in range(4))
    saved = edit_chapter(store, work_id, 2, long_text + "\r\n", expected_revision=1)
    assert saved.revision == 2 and saved.text == long_text and saved.source.value == "uploaded"
    chunks = [c.text for c in store.list_chunks(work_id) if c.chapter_index == 2]
    assert chunks == chunk_text(long_text) and len(chunks) > 1
    assert [r[0] for r in store.chapter_revisions(work_id, 2)] == [1, 2]
    assert store.chapter_revisions(work_id, 2)[0][2] == TEXTS[1]
    assert kg_service.graph_status(store, work_id).pending == [1, 2, 3]  # nothing built yet; 2 is pending anyway
    again = edit_chapter(store, work_id, 2, long_text, expected_revision=2)  # unchanged text: no new revision
    assert again.revision == 2 and len(store.chapter_revisions(work_id, 2)) == 2


def test_edit_chapter_refuses_empty_text_and_stale_revisions(store: SqlStore) -> None:
    work_id = _work(store)
    with pytest.raises(ValueError, match="empty"):
        edit_chapter(store, work_id, 1, " \n\n\t", expected_revision=1)
    edit_chapter(store, work_id, 1, "First edit.", expected_revision=1)
    with pytest.raises(StaleRevision):
        edit_chapter(store, work_id, 1, "Second edit from the same revision.", expected_revision=1)
    assert store.get_chapter(work_id, 1).text == "First edit."
    assert [r[2] for r in store.chapter_revisions(work_id, 1)] == [TEXTS[0], "First edit."]


def test_two_saves_from_one_revision_never_both_win(store: SqlStore, db_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The second tab's save reads the chapter (revision 1) and, before it writes, the first tab's save commits."""
    work_id = _work(store)
    other = SqlStore.from_url(db_url)  # another process's connection to the same file
    real = SqlStore._chapter_row
    interleaved: list[int] = []

    def read_then_other_commits(self, s, work, index):  # noqa: ANN001, ANN202
        row = real(self, s, work, index)
        if self is store and not interleaved:
            interleaved.append(other.update_chapter(work, index, "Tab A's edit.", ["Tab A's edit."], 1).revision)
        return row

    monkeypatch.setattr(SqlStore, "_chapter_row", read_then_other_commits)
    with pytest.raises(StaleRevision, match="revision 2"):
        store.update_chapter(work_id, 1, "Tab B's edit.", ["Tab B's edit."], 1)
    monkeypatch.undo()
    assert interleaved == [2]
    assert store.get_chapter(work_id, 1).text == "Tab A's edit."
    assert store.chapter_revisions(work_id, 1) == [(1, "uploaded", TEXTS[0]), (2, "uploaded", "Tab A's edit.")]
    assert [c.text for c in store.list_chunks(work_id) if c.chapter_index == 1] == ["Tab A's edit."]
    other.engine.dispose()


# ---- the graph and edits ------------------------------------------------------------------------------------------

def test_an_extraction_of_an_older_revision_is_not_stored(store: SqlStore) -> None:
    work_id = _work(store)
    kg_service.build_graph(store, work_id, extractor="llm", llm=FakeLLM(_names_in, context_window=4096))
    before = store.kg_extracted_chapters(work_id)
    edit_chapter(store, work_id, 2, "Zebulon Quartermaine arrived.", expected_revision=1)
    old = ChapterExtraction(2, mentions=[NameMention("Captain Hale", "PERSON", 0, 1)])
    assert store.kg_replace_chapter(work_id, old, "llm", revision=1) is False
    assert store.kg_extracted_chapters(work_id) == before  # nothing written: still marked as revision 1
    assert kg_service.graph_status(store, work_id).pending == [2]
    new = ChapterExtraction(2, mentions=[NameMention("Zebulon Quartermaine", "PERSON", 0, 1)])
    assert store.kg_replace_chapter(work_id, new, "llm", revision=2) is True
    assert store.kg_extracted_chapters(work_id)[2] == (2, "llm")
    assert _mentioned(store, work_id, 2) == {"Zebulon Quartermaine"}


def test_a_chapter_edited_during_a_build_is_read_again(store: SqlStore) -> None:
    """The build reads every chapter's text first; chapter 3 is edited after chapter 1 was stored."""
    work_id = _work(store)
    llm = FakeLLM(_names_in, context_window=4096)
    edited = "Zebulon Quartermaine met Anna Grey at the harbour in the spring."

    def edit_midway(done: int, total: int, message: str) -> None:
        if done == 1 and store.get_chapter(work_id, 3).revision == 1:
            edit_chapter(store, work_id, 3, edited, expected_revision=1)

    report = kg_service.build_graph(store, work_id, extractor="llm", llm=llm, on_progress=edit_midway)
    assert store.get_chapter(work_id, 3).revision == 2
    assert store.kg_extracted_chapters(work_id) == {1: (1, "llm"), 2: (1, "llm"), 3: (2, "llm")}
    assert _mentioned(store, work_id, 3) == {"Zebulon Quartermaine", "Anna Grey"}  # from the edited text
    prompts = [c.prompt.rsplit("[Begin story excerpt]", 1)[-1] for c in llm.calls]
    assert [bool(re.search("Thomas Reed waited", p)) for p in prompts] == [False, False, True, False]
    assert edited in prompts[-1]  # chapter 3 was read again, from its new text
    assert report.extracted == 3 and "changed_during_build" not in report.stats
    status = kg_service.graph_status(store, work_id)
    assert status.up_to_date and not status.unfinished_job
    assert kg_service.find_entity(store, work_id, "Zebulon Quartermaine").first_chapter == 3


def test_a_chapter_that_keeps_changing_stays_pending(store: SqlStore) -> None:
    work_id = _work(store)
    edits = iter(["Captain Hale came back.", "Captain Hale left again."])

    def reply(messages, options) -> str:  # noqa: ANN001 - every read of chapter 2 races with a save of it
        if "Captain Hale" in messages[-1].content.rsplit("[Begin story excerpt]", 1)[-1]:
            chapter = store.get_chapter(work_id, 2)
            edit_chapter(store, work_id, 2, next(edits), expected_revision=chapter.revision)
        return _names_in(messages, options)

    report = kg_service.build_graph(store, work_id, extractor="llm", llm=FakeLLM(reply, context_window=4096))
    assert report.stats["changed_during_build"] == 1 and report.extracted == 2
    assert 2 not in store.kg_extracted_chapters(work_id)
    assert kg_service.graph_status(store, work_id).pending == [2]
    assert not kg_service.graph_status(store, work_id).unfinished_job


def test_update_chapter_graph_reads_a_chapter_saved_meanwhile_again(store: SqlStore) -> None:
    work_id = _work(store)
    kg_service.build_graph(store, work_id, extractor="llm", llm=FakeLLM(_names_in, context_window=4096))
    edit_chapter(store, work_id, 1, "Captain Hale met Anna Grey.", expected_revision=1)
    saved_meanwhile = []

    def reply(messages, options) -> str:  # noqa: ANN001
        if not saved_meanwhile:
            saved_meanwhile.append(edit_chapter(store, work_id, 1, "Zebulon Quartermaine met Anna Grey.",
                                                expected_revision=2).revision)
        return _names_in(messages, options)

    kg_service.update_chapter_graph(store, work_id, 1, llm=FakeLLM(reply, context_window=4096))
    assert saved_meanwhile == [3]
    assert store.kg_extracted_chapters(work_id)[1] == (3, "llm")
    assert _mentioned(store, work_id, 1) == {"Zebulon Quartermaine", "Anna Grey"}


def test_a_failed_build_keeps_and_shows_the_finished_chapters_then_resumes(store: SqlStore) -> None:
    from core.llm import LLMUnavailable
    work_id = _work(store)
    replies = [_names_in, LLMUnavailable("openai: server error HTTP 500")]

    def reply(messages, options) -> str:  # noqa: ANN001 - chapter 1 answers, chapter 2 fails
        step = replies.pop(0) if replies else _names_in
        if isinstance(step, Exception):
            raise step
        return step(messages, options)

    with pytest.raises(LLMUnavailable):
        kg_service.build_graph(store, work_id, extractor="llm", llm=FakeLLM(reply, context_window=4096))
    assert store.kg_extracted_chapters(work_id) == {1: (1, "llm")}
    status = kg_service.graph_status(store, work_id)
    assert status.built and status.pending == [2, 3] and status.unfinished_job  # the graph so far can be shown
    assert {e.label for e in store.kg_entities(work_id)} == {"Anna Grey", "Thomas Reed"}
    llm = FakeLLM(_names_in, context_window=4096)
    report = kg_service.build_graph(store, work_id, extractor="llm", llm=llm)
    assert report.resumed and report.extracted == 2 and len(llm.calls) == 2
    assert kg_service.graph_status(store, work_id).up_to_date
