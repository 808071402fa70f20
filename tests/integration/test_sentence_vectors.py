"""Issue 31: the sentences of every passage are embedded at import, in the same background job as the passage
vectors, and stored; the extractive reader and the support check read them from the store, so a question embeds
none of its cited sentences. A book stored before (no sentence vectors) still answers, embedding on demand, until a
backfill stores them. Sentence vectors hang off their chunks: an edited chapter or a removed work leaves no rows.

`core.nlp.embed` (what the import embeds with) and the asker's on-demand embedder are counting fakes
(bag-of-words vectors, tests.integration.test_vectors_stored_once.CountingEmbed), so what is embedded is exact.
"""
from __future__ import annotations

import pytest
from sqlalchemy import text

from core.domain import JobStatus, WorkKind
from core.ingest.sentences import split_sentences
from core.llm import FakeLLM
from core.qa import Citation, QAParams
from core.services import background, imports, qa_corpus, qa_service
from storage.repository import SqlStore
from tests.integration.test_vectors_stored_once import CountingEmbed, _chapters, embedder  # noqa: F401

STORY = ("Chapter 1\n\nAnna walked to the harbour and watched the boats. Tom mended the nets by the pier. " * 12 +
         "\n\nChapter 2\n\nThe storm came in the night, and Anna lit the lamp. Tom slept through it. " * 12).encode()
PARAMS = QAParams(mode="rag", passage_search="bm25", answer="extractive")


def _rows(store: SqlStore) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM sentence_vectors")).scalar_one())


def _cited_sentences(result: qa_service.QAResult) -> set[str]:
    return {s for c in result.citations for s in split_sentences(c.text)}


def test_the_import_stores_sentence_vectors_and_a_question_embeds_no_cited_sentence(
        db_url: str, embedder: CountingEmbed) -> None:  # noqa: F811
    store = SqlStore.from_url(db_url)
    try:
        job = imports.submit(store, "harbour.txt", STORY, title="Harbour")
        assert background.worker().wait(f"import:{job.key}", 60) and job.status is JobStatus.DONE
        work_id = job.work_id
        assert work_id is not None and background.worker().wait(f"embed:{work_id}", 120)
        chunks = store.list_chunks(work_id)
        assert store.sentence_vector_chunks(work_id, qa_corpus.EMBED_MODEL) == {c.id for c in chunks}
        assert _rows(store) == sum(len(split_sentences(c.text)) for c in chunks)
        assert qa_corpus.ensure_vectors(store, work_id) == 0   # nothing left: the import did both

        qa_corpus._corpora.clear()
        on_demand = CountingEmbed()
        asker = qa_service.Asker(SqlStore.from_url(db_url), FakeLLM(), embed=on_demand)
        result = asker.ask(work_id, "Who mended the nets by the pier?", PARAMS)
        assert result.extraction is not None and result.extraction.quotes and result.answer
        assert result.support is not None   # the support check ran too, on the same lookup
        assert _cited_sentences(result)
        assert not set(on_demand.texts) & _cited_sentences(result)   # every cited sentence came from the store
    finally:
        store.engine.dispose()


def test_an_older_book_embeds_on_demand_until_backfilled_and_leaves_no_orphan_rows(
        store: SqlStore, embedder: CountingEmbed) -> None:  # noqa: F811
    work = store.create_work("Carol", None, WorkKind.BOOK, {}, _chapters())
    qa_corpus.ensure_vectors(store, work.id, sentences=False)   # as stored before issue 31: passages only
    assert _rows(store) == 0
    question = "Who spoke with Scrooge about the ghost?"
    on_demand = CountingEmbed()
    before = qa_service.Asker(store, FakeLLM(), embed=on_demand).ask(work.id, question, PARAMS)
    assert set(on_demand.texts) & _cited_sentences(before)   # embedded at question time, as before

    assert qa_corpus.ensure_sentence_vectors(store, work.id) == 42   # the backfill
    on_demand.calls.clear()
    after = qa_service.Asker(store, FakeLLM(), embed=on_demand).ask(work.id, question, PARAMS)
    assert not set(on_demand.texts) & _cited_sentences(after)
    assert after.answer == before.answer   # the stored vectors are the same ones

    # a passage the prompt budget cut short: its cut last sentence is ranked with the whole sentence's stored vector
    corpus = qa_corpus.load_corpus(store, work.id)
    passage = corpus.passages[3]
    cut = Citation(passage.chapter, passage.index, passage.text[:len(passage.text) - 12], passage.chunk_id, "passage")
    stand_ins = qa_corpus.cut_sentences([cut], corpus)
    assert stand_ins == {split_sentences(cut.text)[-1]: split_sentences(passage.text)[-1]}
    on_demand.calls.clear()
    qa_corpus.stored_embed(store, on_demand, stand_ins)(split_sentences(cut.text))
    assert on_demand.calls == []

    chapter = store.list_chapters(work.id)[0]
    edited = "Scrooge counted the coins alone. Marley's ghost came at midnight."
    store.update_chapter(work.id, chapter.index, edited, [edited], chapter.revision)
    assert qa_corpus.ensure_sentence_vectors(store, work.id) == 1   # only the edited chapter's new passage
    with store.engine.connect() as conn:
        orphans = conn.execute(text("SELECT count(*) FROM sentence_vectors WHERE chunk_id NOT IN "
                                    "(SELECT id FROM chunks)")).scalar_one()
    assert orphans == 0
    assert _rows(store) == sum(len(split_sentences(c.text)) for c in store.list_chunks(work.id))
    store.delete_work(work.id)
    assert _rows(store) == 0
