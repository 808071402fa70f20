"""Building NARCO edges over real passages with a scripted LLM: verification, evidence, cost estimate and tally,
progress, resuming after an interruption, chapter ranges, the recap, and narco-mode retrieval using the edges."""
from __future__ import annotations

import re

import pytest

from core.domain import NewChapter, WorkKind
from core.ingest import split_sentences
from core.llm import FakeLLM
from core.narco.prompts import QG_TURN2
from core.qa import QAParams
from core.services import narco_service, qa_service
from tests.integration.test_qa_book import carol_chapters

PASSAGES_PER_CHAPTER = 5


def _opening(text: str) -> str:
    """The first six words of the passage's first sentence of more than five words."""
    return " ".join(next(s for s in split_sentences(text) if len(s.split()) > 5).split()[:6])


def narco_llm() -> FakeLLM:
    """Turn 1 lists a link; turn 2 asks one question about the prior passage's first real sentence (answerable
    there) and one about the current passage's (self-answerable); verification quotes the sentence a question names."""
    def reply(messages, options):  # noqa: ANN001, ANN202
        last = messages[-1].content
        if last.startswith("Here are two passages"):
            return "1. The prior passage sets up what happens next."
        if last == QG_TURN2:
            prior, current = re.search(r"Prior passage:\n(.*?)\n\nCurrent passage:\n(.*?)\n\nList", messages[0].content,
                                       re.DOTALL).groups()
            return f"1. What explains «{_opening(prior)}»?\n2. Why «{_opening(current)}»?"
        context, question = re.search(r"Context:\n(.*?)\n\nQuestion: (.*?)\n\nReply", last, re.DOTALL).groups()
        quoted = re.search(r"«(.*)»", question).group(1)
        sentence = next(s for s in split_sentences(context) if " ".join(s.split()).startswith(quoted))
        return f"Answerable: yes\nAnswer: see the text\nEvidence: \"{sentence}\""
    return FakeLLM(reply, context_window=8192)


def _work(store, title: str = "Carol"):  # noqa: ANN001, ANN202
    chapters = [NewChapter(c.title, c.text, c.chunks[:PASSAGES_PER_CHAPTER]) for c in carol_chapters()]
    return store.create_work(title, None, WorkKind.BOOK, {}, chapters).id


def _edges(store, work_id: int) -> list[tuple]:  # noqa: ANN001
    return [(e.from_chapter, e.from_index, e.to_chapter, e.to_index, e.question, e.evidence)
            for e in store.narco_edges(work_id)]


def test_build_verifies_stores_evidence_and_accounts_for_its_cost(store) -> None:  # noqa: ANN001
    work_id = _work(store)
    params = narco_service.NarcoParams(window=1)
    estimate = narco_service.estimate(store, work_id, params, "openai:gpt-4o-mini")
    assert estimate.units == 2 * PASSAGES_PER_CHAPTER and estimate.detail["pairs"] == 2 * PASSAGES_PER_CHAPTER - 1
    assert estimate.usd is not None and estimate.usd > 0 and estimate.input_tokens > 0
    progress: list[tuple[int, int]] = []
    llm = narco_llm()
    report = narco_service.build_edges(store, work_id, llm, params, llm_name="fake:narco",
                                       on_progress=lambda d, t, m: progress.append((d, t)))
    pairs = 2 * PASSAGES_PER_CHAPTER - 1
    assert (report.pairs, report.generated, report.kept, report.edges_total) == (pairs, 2 * pairs, pairs, pairs)
    assert report.calls == len(llm.calls) == pairs * 4  # two turns and two verifications per pair
    assert progress[-1] == (2 * PASSAGES_PER_CHAPTER, 2 * PASSAGES_PER_CHAPTER)
    assert report.tally["calls"] == len(llm.calls) and report.tally["input_tokens"] > 0
    chunks = {c.id: c for c in store.list_chunks(work_id)}
    for edge in store.narco_edges(work_id, with_embeddings=True):
        prior, current = chunks[edge.from_chunk_id], chunks[edge.to_chunk_id]
        assert (prior.chapter_index, prior.index) < (current.chapter_index, current.index)
        assert edge.evidence in " ".join(prior.text.split()) and edge.question.startswith("What explains")
        assert edge.embedding is not None and edge.embedding.shape == (384,)
    assert narco_service.status(store, work_id)["built"] == 2 * PASSAGES_PER_CHAPTER
    # a second run has nothing left to do
    again = narco_service.build_edges(store, work_id, FakeLLM([]), params, llm_name="fake:narco")
    assert again.passages == 0 and again.edges_total == pairs


def test_an_interrupted_build_resumes_to_the_same_edges(store) -> None:  # noqa: ANN001
    whole, broken = _work(store, "whole"), _work(store, "broken")
    params = narco_service.NarcoParams(window=2, batch_size=2)
    narco_service.build_edges(store, whole, narco_llm(), params, llm_name="fake:narco")

    class Stop(Exception):
        pass

    def stop_at_five(done: int, total: int, message: str) -> None:
        if done == 5:
            raise Stop
    with pytest.raises(Stop):
        narco_service.build_edges(store, broken, narco_llm(), params, llm_name="fake:narco", on_progress=stop_at_five)
    assert len(store.narco_built(broken)) == 4  # two committed batches; the third was lost and is redone
    assert store.latest_job(broken, narco_service.JOB_KIND).status.value == "failed"
    resumed = narco_service.build_edges(store, broken, narco_llm(), params, llm_name="fake:narco")
    assert resumed.resumed and resumed.passages == 2 * PASSAGES_PER_CHAPTER - 4
    assert _edges(store, broken) == _edges(store, whole)
    assert store.latest_job(broken, narco_service.JOB_KIND).status.value == "done"


def test_a_chapter_range_recap_and_narco_retrieval(store) -> None:  # noqa: ANN001
    work_id = _work(store)
    params = narco_service.NarcoParams(window=2, first_chapter=2, last_chapter=2)
    report = narco_service.build_edges(store, work_id, narco_llm(), params, llm_name="fake:narco")
    assert report.passages == PASSAGES_PER_CHAPTER
    assert {e[2] for e in _edges(store, work_id)} == {2}  # only chapter 2 asks; its first passages ask chapter 1
    recap = narco_service.recap(store, work_id, 2)
    last_of_one = max(c.index for c in store.list_chunks(work_id, upto_chapter=1))
    assert [(r.chapter, r.chunk, r.degree) for r in recap] == [(1, last_of_one, 2), (1, last_of_one - 1, 1)]
    assert recap[0].text and all(q["evidence"] in " ".join(recap[0].text.split()) for q in recap[0].questions)
    assert narco_service.recap(store, work_id, 1) == []
    # narco mode: a question matching an edge lifts the passage that asked it
    question = store.narco_edges(work_id)[0].question
    result = qa_service.ask(store, work_id, question, QAParams(mode="narco", upto=2), llm=FakeLLM(), dry_run=True)
    assert result.plan.passages[0].question == question
    assert not any("No NARCO edges" in n for n in result.plan.notes)
    spoiler_free = qa_service.ask(store, work_id, question, QAParams(mode="narco", upto=1), llm=FakeLLM(),
                                  dry_run=True)
    assert all(p.question is None for p in spoiler_free.plan.passages)  # chapter 2's questions are not visible
