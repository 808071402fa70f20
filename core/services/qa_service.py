"""Asking a book: load what QA reads once per work (cached until the book, graph, edges or vectors change), plan the
prompt for the chosen mode within the budget, and (unless a dry run) ask the answering model.

    asker = Asker(store, llm_override="local:smollm2")         # one per batch: models and the corpus load once
    result = asker.ask(work_id, "Who is Jane's sister?", QAParams(mode="narco", upto=9))
    result.as_dict() -> {"answer", "citations": [{"chapter", "chunk", "text"}], "prompt", "facts": [...], ...}
    ask(store, work_id, question, params, dry_run=True)         # no LLM call: template verbalization, answer None

`store` must implement core.store.Store, core.kg.store.KgStore and core.narco.store.NarcoStore (SqlStore does).
"""
from __future__ import annotations

import functools
import logging
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.llm import LLM, LLMError, MeteredLLM
from core.llm.registry import is_embedded
from core.qa import (Citation, Corpus, CorpusView, LLMVerbalizer, QAParams, QAPlan, generate_answer, plan_prompt,
                     template_overhead, template_verbalize)
from core.qa.extract import Extraction, Quote, embed_sentences, extract_answer
from core.qa.identity import INTRODUCED, introduction
from core.qa.prompts import lead_with, render_prompt
from core.qa.support import AnswerSupport, check_support
from core.qa.words import added_words
from core.services.qa_global import answer_globally
from core.services.qa_corpus import (EMBED_MODEL, Embed, ProgressFn, attach_meaning_vectors,  # noqa: F401
                                     ensure_vectors, load_corpus, needs_meaning_vectors, needs_vectors, stored_embed,
                                     cut_sentences)
from core.store import NotFound, Store

# The embedded model's rephrasing of the chosen sentences may add at most this many content words that neither they
# nor the question hold: more is the 270M model's own story ("The Ghost of Christmas Yet to Come shows Scrooge that he
# is not the only one who has been hurt by the Christmas spirit." beside a sentence that says neither), shown in bold
# above a quote that does not back it. Chosen on GraphRAG-Bench dev's seeded half (0-3 compared: 1 best); on the
# held-back half it withheld 10 rephrasings of 100 questions, every one stating what its quote does not, at the same
# token F1 (17.8 vs 17.9): bench/answers.py, bench/README.md.
MAX_ADDED_WORDS = 1
_SAME_PARAGRAPH = r"(?:[ \t]+|[ \t]*\r?\n[ \t]*)"  # white space within one paragraph (no blank line)

log = logging.getLogger(__name__)


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
    support: AnswerSupport | None = None  # each answer sentence checked against the cited passages (None: dry run)
    answer_path: str = "generate"          # which path gave `answer`: "extractive", "rephrased" or "generate"
    extraction: Extraction | None = None   # the book's sentence(s) the extractive reader chose (every path)
    embedded: bool = False                 # whether the answering model is an embedded one
    card: dict[str, Any] | None = None     # "Who is X?": X's X-Ray card as of `upto` (None without a graph)

    @property
    def citations(self) -> list[Citation]:
        return self.plan.citations

    @property
    def supported(self) -> bool | None:
        """The answer's verdict: None with no answer or nothing to check."""
        return None if self.support is None or self.answer is None else self.support.supported

    @property
    def answer_chapters(self) -> list[int]:
        """The chapters the answer cites: the quoted sentences' for an extractive answer, else those of the
        passages its sentences match best (all cited chapters when nothing matched)."""
        if self.answer is None:
            return []
        if self.answer_path in ("extractive", "rephrased") and self.extraction is not None:
            return self.extraction.chapters
        cited = self.plan.citations
        found = {cited[s.citation].chapter for s in (self.support.sentences if self.support else [])
                 if s.citation is not None and s.citation < len(cited)}
        return sorted(found or {c.chapter for c in cited})

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
            "graph": plan.graph.as_dict() if plan.graph is not None else None,
            "prompt_tokens": plan.prompt_tokens, "template_tokens": plan.reserve, "budget": plan.budget,
            "notes": plan.notes, "llm": self.llm, "verbalized_by": self.verbalized_by, "raw_answer": self.raw_answer,
            "timings": self.timings,
            "support": self.support.as_dict(plan.citations) if self.support is not None else None,
            "answer_path": self.answer_path, "supported": self.supported, "embedded": self.embedded,
            "answer_chapters": self.answer_chapters,
            "extraction": self.extraction.as_dict() if self.extraction is not None else None,
            "card": self.card,
        }


# ---- asking (the corpus of a work: core.services.qa_corpus, re-exported above) ---------------------------------

class Asker:
    """Answers questions about works with one answering LLM (resolved once), for one question or a batch."""

    def __init__(self, store: Store, llm: LLM | None = None, *, llm_override: str | None = None,
                 dry_run: bool = False, embed: Embed = embed_sentences) -> None:
        """`embed` embeds what the store lacks (MiniLM, remembered per process): the sentences of the cited passages
        are read from the store's sentence vectors (stored at import) first."""
        from core.services import llm_service
        self.store, self.dry_run = store, dry_run
        self._fallback, self._embed = embed, stored_embed(store, embed)
        if llm is None:
            self.llm: LLM = llm_service.build_llm(store, "answering", llm_override)
            spec = llm_service.resolve_llm_name(store, "answering", llm_override)
        else:  # an injected model (a test's, a benchmark's) is metered like a built one, and only once
            self.llm = llm if isinstance(llm, MeteredLLM) else llm_service.metered(store, llm, "answering")
            spec = llm.name
        self.embedded = _embedded(spec)  # what auto answers with (the provider's declaration, not the name)
        self._reserve: int | None = None
        # passages recur across questions: their token counts are remembered for this asker's model
        self._count = functools.lru_cache(maxsize=1 << 16)(self.llm.count_tokens)

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
        meaning = params.mode == "graph" or (params.mode == "kg" and params.fact_ranking == "meaning")
        retrieves = meaning or (params.mode in ("rag", "narco") and not (
            params.mode == "rag" and params.passage_search == "bm25"))
        corpus = load_corpus(self.store, work_id)
        if retrieves and corpus.passage_vectors is None and corpus.passages:
            ensure_vectors(self.store, work_id, sentences=False)  # sentences: embedded on demand, stored at import
            corpus = load_corpus(self.store, work_id)
        if meaning:
            attach_meaning_vectors(self.store, corpus)  # embedded once per fact text, then read from the store
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
        plan = plan_prompt(question, corpus.upto(upto), params, count=self._count, reserve=reserve,
                           verbalizer=verbalizer, query_vec=query_vec)
        if isinstance(verbalizer, LLMVerbalizer):
            timings["verbalize_ms"] = round(verbalizer.seconds * 1000, 2)
        timings["retrieval_ms"] = round(_ms(t1) - timings.get("verbalize_ms", 0.0), 2)
        if params.mode == "kg" and not corpus.facts:
            plan.notes.append("This work has no knowledge graph yet: build it on the Graph page (or `kg build`).")
        t2 = time.perf_counter()
        view = corpus.upto(upto)
        embed = stored_embed(self.store, self._fallback, cut_sentences(plan.citations, corpus))
        extraction = extract_answer(plan.question, plan.citations, view=view, query_vec=query_vec, embed=embed)
        card = identity_card(self.store, work_id, upto, extraction.about) if extraction.about else None
        if card is not None and not extraction.confident:
            extraction = _introduced(extraction, card, corpus)
        timings["extract_ms"] = _ms(t2)
        path = self.answer_path(params)
        answer = raw = None
        if path == "extractive" and not self.dry_run:  # a dry run answers nothing (the extraction is in the result)
            answer = extraction.answer
            if params.answer == "auto" and answer is not None and extraction.confident:
                # (the closest sentence that does not answer is not reworded: a fluent wrong answer reads as one)
                t3 = time.perf_counter()
                rephrased, raw = self._rephrase(llm, extraction, plan.question, params, corpus)
                timings["llm_ms"] = _ms(t3)
                if rephrased is not None:  # checked again below against every cited passage, as any answer
                    answer, path = rephrased, "rephrased"
        elif not self.dry_run:
            if not self.embedded and extraction.quotes and not extraction.unstated:  # (a closest sentence that
                # does not mention what was asked is no lead for the prompt)
                plan = self._lead_with(plan, extraction, question, view, params, verbalizer, query_vec)
            t3 = time.perf_counter()
            if not self.embedded and plan.graph is not None and plan.graph.scope != "local":
                # a whole-book or creative question with a capable model: GraphRAG's global search (issue 31)
                answer, raw, notes = answer_globally(llm, self.store, work_id, upto, plan, params)
                plan.notes.extend(notes)
            if answer is None:
                answer, raw = generate_answer(llm, plan.prompt, params.answer_tokens)
            timings["llm_ms"] = _ms(t3)
        support: AnswerSupport | None = None
        if answer is not None:
            t4 = time.perf_counter()
            sources = [c.text for c in plan.citations] + [q.text for q in extraction.quotes if q.citation < 0]
            support = check_support(answer, sources, question=plan.question,
                                    entities=corpus.entities, embed=self._embed)
            timings["support_ms"] = _ms(t4)
        by = "llm" if isinstance(verbalizer, LLMVerbalizer) and verbalizer.used_llm else "template"
        return QAResult(" ".join(question.split()), params.mode, upto, answer, plan, self.llm.name, raw, by, timings,
                        support=support, answer_path=path, extraction=extraction, embedded=self.embedded, card=card)

    def answer_path(self, params: QAParams) -> str:
        """The answer path, "extractive" or "generate": auto is extractive when the answering model is embedded
        (its 270M model loses the right sentence the prompt holds; it may only rephrase the chosen sentence, see
        _rephrase), the capable model's answer otherwise."""
        if params.answer != "auto":
            return params.answer
        return "extractive" if self.embedded else "generate"

    def _rephrase(self, llm: LLM, extraction: Extraction, question: str, params: QAParams,
                  corpus: Corpus) -> tuple[str | None, str | None]:
        """The embedded model's short answer from the chosen sentences alone (asked only when they answer the
        question, core.qa.confidence), kept only when it still states the answer the reader found (its span: the
        name, place or time asked for) and the support check (names included) passes on those sentences: (answer
        or None, raw reply). A rephrasing that drops the span is no rephrasing ("What are the names of the two
        races?" -> "The two races are the same, but the names are different." beside a sentence naming the
        Morlocks)."""
        quotes = [q.text for q in extraction.quotes]
        answer, raw = generate_answer(llm, render_prompt(" ".join(quotes), [], question), params.answer_tokens)
        shown = rephrasing_shown(answer, extraction, question, entities=corpus.entities, embed=self._embed)
        return (answer, raw) if shown else (None, raw)

    def _lead_with(self, plan: QAPlan, extraction: Extraction, question: str, view: CorpusView, params: QAParams,
                   verbalizer: Any, query_vec: np.ndarray | None) -> QAPlan:
        """The plan again with room kept for the chosen sentences, which then lead its prompt (within budget)."""
        lead = lead_with([q.text for q in extraction.quotes], "")
        room = params.budget_tokens - self._count(lead)
        if room < 50:  # a tiny budget: the chosen sentences would crowd out the question
            return plan
        fitted = plan_prompt(question, view, params.with_(budget_tokens=room), count=self._count,
                             reserve=self.reserve, verbalizer=verbalizer, query_vec=query_vec)
        prompt = lead_with([q.text for q in extraction.quotes], fitted.prompt)
        if self._count(prompt) + self.reserve > params.budget_tokens:
            return plan
        fitted.prompt, fitted.prompt_tokens, fitted.budget = prompt, self._count(prompt), params.budget_tokens
        fitted.notes.append("The sentences the extractive reader chose lead the prompt.")
        return fitted


def _introduced(extraction: Extraction, card: dict[str, Any], corpus: Corpus) -> Extraction:
    """"Who is X?" answered by the sentence that introduces X in the graph (the card's, as of the reader's place)
    where no cited sentence says who X is and that one does (core.qa.identity.introduction); else as it was."""
    intro = card.get("introduced") or {}
    name, sentence, chapter = extraction.about or "", intro.get("sentence") or "", int(intro.get("chapter") or 0)
    found = introduction(name, sentence, chapter, corpus.entities, corpus.passages)
    if found is None:
        return extraction
    quote = Quote(sentence, found[0], found[1], -1, 1.0)   # citation -1: quoted from the graph, not the cited passages
    return replace(extraction, answer=sentence, quotes=(quote,), confident=True,
                   note=INTRODUCED.format(name=name, chapter=chapter))


def identity_card(store: Store, work_id: int, upto: int, name: str) -> dict[str, Any] | None:
    """What the graph knows of `name` as of chapter `upto` (its X-Ray card, core.companion.xray: type, other names,
    the sentence that introduces it, relationships and states, each with its chapter; nothing after `upto`), or
    None when the work has no graph or no one of that name by then."""
    from core.services.companion_service import xray_cards
    try:
        shown = xray_cards(store, work_id, upto, position=upto, entity=name)
    except (NotFound, ValueError, KeyError):   # a work deleted or its graph rebuilt meanwhile: the answer stands
        log.warning("no graph card for %r in work %s", name, work_id, exc_info=True)
        return None
    return shown.cards[0].as_json() if shown.cards else None


def rephrasing_shown(answer: str, extraction: Extraction, question: str, *, entities: Any = None,
                     embed: Embed | None = None, span_rule: bool = True, added_rule: bool = True) -> bool:
    """Whether the embedded model's rephrasing `answer` of `extraction` may be shown: it is not empty, it keeps the
    reader's span (`span_rule`), it adds at most MAX_ADDED_WORDS content words that neither the quoted sentences
    nor the question hold (`added_rule`; each rule off only to measure it) and the support check (names included)
    passes on the quoted sentences alone."""
    if not answer.strip() or (span_rule and not keeps_span(answer, extraction.span)):
        return False
    if added_rule and len(added_words(answer, [*(q.text for q in extraction.quotes), question])) > MAX_ADDED_WORDS:
        return False
    support = check_support(answer, [q.text for q in extraction.quotes], question=question, entities=entities,
                            embed=embed)
    support.question_missing = ()  # the question's names were found in the cited passages (the extraction's
    return support.supported is True  # check), not necessarily in the one quote


def keeps_span(answer: str, span: str | None) -> bool:
    """Whether `answer` states `span` (as whole words, any case; True when there is no span to keep)."""
    if not span:
        return True
    return re.search(rf"(?<!\w){re.escape(' '.join(span.split()))}(?!\w)", " ".join(answer.split()), re.I) is not None


def ask(store: Store, work_id: int, question: str, params: QAParams | None = None, *, llm: LLM | None = None,
        llm_override: str | None = None, dry_run: bool = False) -> QAResult:
    """One question (see Asker for batches)."""
    return Asker(store, llm, llm_override=llm_override, dry_run=dry_run).ask(work_id, question, params)


def _embedded(spec: str) -> bool:
    try:
        return is_embedded(spec)
    except (LLMError, ValueError, KeyError):  # an unknown provider runs nowhere here
        return False


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

def reader_anchor(store: Store, work_id: int, chapter: int, text: str, words: int = 8) -> str | None:
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
