"""Asking a book: load what QA reads once per work (cached until the book, graph, edges or vectors change), plan the
prompt for the chosen mode within the budget, and (unless a dry run) ask the answering model.

    asker = Asker(store, llm_override="local:smollm2")         # one per batch: models and the corpus load once
    result = asker.ask(work_id, "Who is Jane's sister?", QAParams(mode="narco", upto=9))
    result.as_dict() -> {"answer", "citations": [{"chapter", "chunk", "text"}], "prompt", "facts": [...], ...}
    ask(store, work_id, question, params, dry_run=True)         # no LLM call: template verbalization, answer None

`store` must implement core.store.Store, core.kg.store.KgStore and core.narco.store.NarcoStore (SqlStore does).
"""
from __future__ import annotations

import re
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.kg.types import INTERACTION_RELATIONS
from core.llm import MeteredLLM
from core.qa import (Citation, Corpus, FactRecord, LLMVerbalizer, Passage, QAParams, QAPlan, generate_answer,
                     plan_prompt, template_overhead, template_verbalize)
from core.store import NotFound

EMBED_MODEL = "all-MiniLM-L6-v2"
EMBED_BATCH = 64
ProgressFn = Callable[[int, int, str], None]
_SAME_PARAGRAPH = r"(?:[ \t]+|[ \t]*\r?\n[ \t]*)"  # white space within one paragraph (no blank line)
_corpora: weakref.WeakKeyDictionary[Any, dict[int, tuple[tuple[int, ...], Corpus]]] = weakref.WeakKeyDictionary()


@dataclass
class QAResult:
    question: str
    mode: str
    upto: int
    answer: str | None
    plan: QAPlan
    llm: str
    raw_answer: str | None = None
    verbalized_by: str = "template"
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def citations(self) -> list[Citation]:
        return self.plan.citations

    def as_dict(self) -> dict[str, Any]:
        plan = self.plan
        return {
            "question": self.question, "mode": self.mode, "upto": self.upto, "answer": self.answer,
            "citations": [c.as_dict() for c in plan.citations], "prompt": plan.prompt,
            "facts": [{"rank": i + 1, "fact": f.fact.text, "sentence": f.sentence, "distance": f.distance,
                       "chapter": f.fact.chapter, "chunk": f.fact.chunk_index, "evidence": f.fact.sentence,
                       "in_prompt": f.in_prompt} for i, f in enumerate(plan.facts)],
            "passages": [{"rank": i + 1, "chapter": p.passage.chapter, "chunk": p.passage.index,
                          "score": round(p.score, 4), "similarity": round(p.similarity, 4), "question": p.question,
                          "in_prompt": p.in_prompt, "truncated": p.truncated, "preview": p.passage.text[:160]}
                         for i, p in enumerate(plan.passages)],
            "prompt_tokens": plan.prompt_tokens, "template_tokens": plan.reserve, "budget": plan.budget,
            "notes": plan.notes, "llm": self.llm, "verbalized_by": self.verbalized_by, "raw_answer": self.raw_answer,
            "timings": self.timings,
        }


# ---- the corpus of a work ------------------------------------------------------------------------------------

def load_corpus(store: Any, work_id: int) -> Corpus:
    """Passages, facts, NARCO edges and cached passage vectors of the whole work (reading order), cached per
    store and work until `store.qa_signature` changes."""
    signature = store.qa_signature(work_id)
    per_store = _corpora.setdefault(store, {})
    hit = per_store.get(work_id)
    if hit and hit[0] == signature:
        return hit[1]
    store.get_work(work_id)  # NotFound for a deleted work
    chunks = store.list_chunks(work_id)
    passages = [Passage(c.id, c.chapter_index, c.index, c.text) for c in chunks]
    facts = [FactRecord(t.subject, t.relation, t.object, t.chapter_index, t.chunk_index, t.chunk_id, t.sentence)
             for t in store.kg_triples(work_id, None, kind="all") if t.relation not in INTERACTION_RELATIONS]
    cached = store.chunk_vectors(work_id, EMBED_MODEL)
    vectors = np.stack([cached[p.chunk_id] for p in passages]) if passages and all(
        p.chunk_id in cached for p in passages) else None
    edges = store.narco_edges(work_id, with_embeddings=True)
    edge_vectors = _edge_vectors(edges)
    corpus = Corpus(passages, facts, vectors, edges, edge_vectors)
    per_store[work_id] = (signature, corpus)
    return corpus


def _edge_vectors(edges: list) -> np.ndarray | None:
    if not edges:
        return None
    missing = [i for i, e in enumerate(edges) if e.embedding is None]
    if missing:  # edges stored without vectors (an older build): embed them now, in memory
        from core.nlp import embed
        fresh = embed([edges[i].question for i in missing])
        filled = {i: fresh[k] for k, i in enumerate(missing)}
        return np.stack([filled.get(i, e.embedding) for i, e in enumerate(edges)]).astype(np.float32)
    return np.stack([e.embedding for e in edges]).astype(np.float32)


def ensure_vectors(store: Any, work_id: int, on_progress: ProgressFn | None = None) -> int:
    """Embed the passages that have no cached vector yet (committed per batch); returns how many were embedded."""
    from core.nlp import embed
    report = on_progress or (lambda done, total, message: None)
    cached = store.chunk_vectors(work_id, EMBED_MODEL)
    todo = [c for c in store.list_chunks(work_id) if c.id not in cached]
    for start in range(0, len(todo), EMBED_BATCH):
        batch = todo[start:start + EMBED_BATCH]
        vectors = embed([c.text for c in batch])
        store.put_chunk_vectors(EMBED_MODEL, {c.id: v for c, v in zip(batch, vectors)})
        report(start + len(batch), len(todo), f"Embedded {start + len(batch)} of {len(todo)} passages")
    return len(todo)


def needs_vectors(store: Any, work_id: int) -> bool:
    return load_corpus(store, work_id).passage_vectors is None and bool(store.list_chunks(work_id))


# ---- asking ----------------------------------------------------------------------------------------------------

class Asker:
    """Answers questions about works with one answering LLM (resolved once), for one question or a batch."""

    def __init__(self, store: Any, llm: Any = None, *, llm_override: str | None = None, dry_run: bool = False) -> None:
        from core.services import llm_service
        self.store, self.dry_run = store, dry_run
        self.llm = llm if llm is not None else llm_service.build_llm(store, "answering", llm_override)
        self._reserve: int | None = None

    @property
    def reserve(self) -> int:
        if self._reserve is None:
            self._reserve = template_overhead(self.llm)
        return self._reserve

    def ask(self, work_id: int, question: str, params: QAParams | None = None) -> QAResult:
        params = params or QAParams()
        if not question or not question.strip():
            raise ValueError("Ask a question: the text is empty.")
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        retrieves = params.mode in ("rag", "narco")
        corpus = load_corpus(self.store, work_id)
        if retrieves and corpus.passage_vectors is None and corpus.passages:
            ensure_vectors(self.store, work_id)
            corpus = load_corpus(self.store, work_id)
        upto = _check_upto(corpus, params.upto)
        reserve = self.reserve  # loads the answering model's tokenizer once, outside the retrieval timing
        if retrieves:
            from core.nlp import load_embedder
            load_embedder()
        timings["load_ms"] = _ms(t0)
        t1 = time.perf_counter()
        query_vec = _embed_query(question) if retrieves else None
        llm = self.llm.with_context(work_id=work_id) if isinstance(self.llm, MeteredLLM) else self.llm
        verbalizer: Any = template_verbalize
        if params.mode == "kg" and params.verbalize == "llm" and not self.dry_run:
            verbalizer = LLMVerbalizer(llm)
        plan = plan_prompt(question, corpus.upto(upto), params, count=self.llm.count_tokens, reserve=reserve,
                           verbalizer=verbalizer, query_vec=query_vec)
        if isinstance(verbalizer, LLMVerbalizer):
            timings["verbalize_ms"] = round(verbalizer.seconds * 1000, 2)
        timings["retrieval_ms"] = round(_ms(t1) - timings.get("verbalize_ms", 0.0), 2)
        if params.mode == "kg" and not corpus.facts:
            plan.notes.append("This work has no knowledge graph yet: build it on the Graph page (or `kg build`).")
        answer = raw = None
        if not self.dry_run:
            t2 = time.perf_counter()
            answer, raw = generate_answer(llm, plan.prompt, params.answer_tokens)
            timings["llm_ms"] = _ms(t2)
        by = "llm" if isinstance(verbalizer, LLMVerbalizer) and verbalizer.used_llm else "template"
        return QAResult(" ".join(question.split()), params.mode, upto, answer, plan, self.llm.name, raw, by, timings)


def ask(store: Any, work_id: int, question: str, params: QAParams | None = None, *, llm: Any = None,
        llm_override: str | None = None, dry_run: bool = False) -> QAResult:
    """One question (see Asker for batches)."""
    return Asker(store, llm, llm_override=llm_override, dry_run=dry_run).ask(work_id, question, params)


def _check_upto(corpus: Corpus, upto: int | None) -> int:
    last = corpus.chapters
    if upto is None:
        return last
    if last and upto > last:
        raise NotFound(f"This work has {last} chapters; there is no chapter {upto}.")
    return upto


def _embed_query(question: str) -> np.ndarray:
    from core.nlp import embed
    return embed([question])[0]


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


# ---- the reading view ----------------------------------------------------------------------------------------

def reader_anchor(store: Any, work_id: int, chapter: int, text: str, words: int = 8) -> str | None:
    """The exact stretch of the chapter's text where a cited passage begins (its first words, with the chapter's
    own line wrapping), for the reading view to highlight; None if it cannot be found. A stretch never crosses a
    blank line, because the reading view highlights one paragraph."""
    head = text.split()[:words]
    chapter_text = store.get_chapter(work_id, chapter).text
    for n in range(len(head), 0, -1):
        found = re.search(_SAME_PARAGRAPH.join(re.escape(w) for w in head[:n]), chapter_text)
        if found:
            return found.group(0)
    return None
