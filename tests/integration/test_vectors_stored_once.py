"""Passage embeddings are computed once and stored: after the first embedding, a new process (a new SqlStore on the
same SQLite file, an empty corpus cache) asking in rag mode embeds no passage again, whether through
`ensure_vectors` plus `Asker` or through repeated `cli.py ask --questions ... --mode rag --dry-run` batches: only
its question, and the sentences of the passages it cites for the extractive reader (core.qa.extract, which keeps
them for the process), never a whole passage.

`core.nlp.embed` is replaced by a counting fake (bag-of-words vectors), so what is embedded can be checked exactly.
"""
from __future__ import annotations

import json
import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import cli
import cli_commands
import core.nlp
from core.domain import NewChapter, WorkKind
from core.llm import FakeLLM
from core.qa import QAParams
from core.services import qa_corpus, qa_service

NAMES = ["Marley", "Scrooge", "Fred", "Belle", "Fezziwig", "Cratchit", "Tim", "Dick"]
QUESTIONS = ["Who was dead, to begin with?", "Who danced at the ball?", "What did Tiny Tim say?"]


class CountingEmbed:
    """Stands in for core.nlp.embed: unit bag-of-words vectors (384 dims), and a record of every call."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: Sequence[str], batch_size: int = 128) -> np.ndarray:
        texts = list(texts)
        self.calls.append(texts)
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, zlib.crc32(word.encode()) % 384] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)

    @property
    def texts(self) -> list[str]:
        return [t for call in self.calls for t in call]


def _chapters() -> list[NewChapter]:
    chapters = []
    for c in range(6):
        paragraphs = [f"In stave {c + 1}, part {p + 1}, {NAMES[(c + p) % 8]} spoke with {NAMES[(c * 3 + p) % 8]} "
                      f"about the {['ball', 'ghost', 'goose', 'ledger', 'bells'][p % 5]}. The fire burned low in "
                      f"stave {c + 1}, part {p + 1}."
                      for p in range(7)]
        chapters.append(NewChapter(f"Stave {c + 1}", "\n\n".join(paragraphs), paragraphs))
    return chapters


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> CountingEmbed:
    fake = CountingEmbed()
    monkeypatch.setattr(core.nlp, "embed", fake)
    monkeypatch.setattr(core.nlp, "load_embedder", lambda: None)  # the fake needs no model
    return fake


def _new_process_store(db_url: str):  # noqa: ANN202 - what a new process has: its own SqlStore, no cached corpus
    from core.qa import extract
    from storage.repository import SqlStore
    qa_corpus._corpora.clear()
    extract._VECTORS.clear()   # the extractive reader's sentence vectors, kept per process
    return SqlStore.from_url(db_url)


@pytest.mark.parametrize("search", ["hybrid", "dense"])
def test_a_new_process_asking_in_rag_mode_embeds_only_the_question(store, db_url: str,  # noqa: ANN001
                                                                   embedder: CountingEmbed, search: str) -> None:
    work = store.create_work("Carol", None, WorkKind.BOOK, {}, _chapters())
    passages = [c.text for c in store.list_chunks(work.id)]
    assert len(passages) == 42
    assert qa_service.needs_vectors(store, work.id)
    assert qa_service.ensure_vectors(store, work.id, sentences=False) == 42  # sentences: test_sentence_vectors
    assert sorted(embedder.texts) == sorted(passages)  # each passage once
    stored = store.chunk_vectors(work.id, qa_service.EMBED_MODEL)
    embedder.calls.clear()

    other = _new_process_store(db_url)
    try:
        assert not qa_service.needs_vectors(other, work.id)
        assert qa_service.ensure_vectors(other, work.id) == 0  # nothing left to embed
        corpus = qa_service.load_corpus(other, work.id)
        assert corpus.passage_vectors is not None
        assert np.array_equal(corpus.passage_vectors, np.stack([stored[c.id] for c in other.list_chunks(work.id)]))
        asker = qa_service.Asker(other, FakeLLM(), dry_run=True)
        for question in QUESTIONS:
            result = asker.ask(work.id, question, QAParams(mode="rag", passage_search=search))
            assert result.answer is None and result.plan.passages and result.citations
        asked = [c for c in embedder.calls if c[0] in QUESTIONS]
        assert asked == [[q] for q in QUESTIONS]  # each question once, alone
        others = [t for c in embedder.calls if c[0] not in QUESTIONS for t in c]
        assert not set(others) & set(passages)   # no passage embedded again: only the sentences of cited ones
        assert all(any(t in p for p in passages) for t in others) and len(others) == len(set(others))
    finally:
        other.engine.dispose()


def test_repeated_batch_dry_runs_embed_the_book_once(store, db_url: str, embedder: CountingEmbed,  # noqa: ANN001
                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    work = store.create_work("Carol", None, WorkKind.BOOK, {}, _chapters())
    passages = [c.text for c in store.list_chunks(work.id)]
    batch = tmp_path / "questions.jsonl"
    batch.write_text("".join(json.dumps({"question": q}) + "\n" for q in QUESTIONS))
    outputs = []
    for run in range(3):  # three separate runs of the batch, each like a new process
        embedder.calls.clear()
        run_store = _new_process_store(db_url)
        monkeypatch.setattr(cli_commands, "_store", run_store)
        try:
            status = cli.main(["ask", str(work.id), "--questions", str(batch), "--mode", "rag", "--dry-run",
                               "--json", "--llm", "fake:echo"])
        finally:
            run_store.engine.dispose()
        out = capsys.readouterr()
        assert status == 0, out.err
        outputs.append([{k: v for k, v in json.loads(line).items() if k != "timings"} for line in out.out.splitlines()])
        embedded_passages = [t for t in embedder.texts if t in passages]
        if run == 0:
            assert sorted(embedded_passages) == sorted(passages)  # the first run embeds the book, once
        else:
            assert embedded_passages == []
        assert [t for t in embedder.texts if t in QUESTIONS] == QUESTIONS
        assert all(t in QUESTIONS or any(t in p for p in passages) for t in embedder.texts)   # cited sentences
    assert outputs[0] == outputs[1] == outputs[2]  # stored vectors rank exactly like fresh ones
    assert len(store.chunk_vectors(work.id, qa_service.EMBED_MODEL)) == len(passages)



def test_the_default_mode_is_graph_and_cites_passages(store, embedder: CountingEmbed) -> None:  # noqa: ANN001
    """Ask's and the CLI's default (graph mode: the most gold evidence in the prompt on GraphRAG-Bench, 68.5% against
    kg's 32.3%) answers from the book's passages."""
    from core.services import kg_service
    assert QAParams().mode == "graph"
    work = store.create_work("Carol", None, WorkKind.BOOK, {}, _chapters())
    kg_service.build_graph(store, work.id)
    result = qa_service.Asker(store, FakeLLM(), dry_run=True).ask(work.id, QUESTIONS[0], QAParams())
    assert result.plan.passages and result.citations
