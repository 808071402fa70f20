"""Prompt formulation for the four modes, all within one token budget (Andrus Algorithm 1, NARCO section 6).

    plan = plan_prompt(question, corpus.upto(9), QAParams(mode="kg"), count=llm.count_tokens, reserve=12)
    plan.prompt, plan.prompt_tokens, plan.facts, plan.passages, plan.citations

traditional  the end of the visible text, as much as fits, then the question (the paper's baseline)
kg           top-k facts by Levenshtein distance to the question (or by meaning), verbalized, then as much ending
             text as still fits
rag          passages by BM25 + MiniLM (reciprocal rank fusion; or either alone), best first while they fit (shown in
             reading order)
narco        passages by S = q·v + λ·max_j q·e_j, filled the same way
graph        passages by personalized PageRank over the passage-entity graph from the question's entities and best
             passages (core.qa.search), filled the same way; the plan keeps the seeds and subgraph walked

`count` is the answering model's token counter and `reserve` the tokens its chat template adds around a message, so
prompt_tokens + reserve <= budget_tokens always holds, whatever the input (tested with pathological inputs).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from core.qa.budget import Counter, keep_end, keep_start, truncate_to_tokens
from core.qa.corpus import CorpusView, FactRecord, Passage
from core.qa.params import QAParams
from core.qa.prompts import QA_SEPARATOR, render_prompt
from core.qa.search import GraphTrace, facts_by_meaning, graph_context, passage_match
from core.qa.verbalize import template_verbalize
from core.retrieval import rank_by_levenshtein
from core.retrieval.facts import top_k
from core.retrieval.narco import narco_scores
from core.wording import counted

Verbalizer = Callable[[FactRecord], str]
MIN_PARTIAL_TOKENS = 24  # a truncated passage shorter than this is noise, not context
JOIN_MARGIN_TOKENS = 4   # tokens a passage may add at its joins (separator, merges) beyond its own count


@dataclass
class ScoredFact:
    fact: FactRecord
    distance: float
    sentence: str        # the verbalization placed in the prompt
    in_prompt: bool = True


@dataclass
class ScoredPassage:
    passage: Passage
    score: float                 # the ranking score (RRF or cosine for rag, S for narco, PageRank mass for graph)
    similarity: float            # q·v
    question: str | None = None  # narco: the best-matching retrospective question
    in_prompt: bool = False
    truncated: bool = False


@dataclass
class Citation:
    chapter: int
    chunk: int
    text: str
    chunk_id: int | None
    kind: str                    # "passage" (retrieved), "text" (ending text) or "fact" (a fact's sentence)
    score: float | None = None

    def as_dict(self) -> dict:
        return {"chapter": self.chapter, "chunk": self.chunk, "text": self.text, "chunk_id": self.chunk_id,
                "kind": self.kind, "score": self.score}


@dataclass
class QAPlan:
    mode: str
    question: str
    prompt: str
    prompt_tokens: int
    reserve: int
    budget: int
    facts: list[ScoredFact] = field(default_factory=list)
    passages: list[ScoredPassage] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    graph: GraphTrace | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.reserve


class _Budget:
    """The room for the prompt text, and token counts of whole prompts (remembered: the fitting searches and the
    final count often measure the same candidate twice, and each count tokenizes up to a whole prompt)."""

    def __init__(self, count: Counter, room: int) -> None:
        self._count, self.room = count, room
        self._seen: dict[str, int] = {}

    def count(self, prompt: str) -> int:
        if prompt not in self._seen:
            self._seen[prompt] = self._count(prompt)
        return self._seen[prompt]

    def fits(self, prompt: str) -> bool:
        return self.count(prompt) <= self.room


def plan_prompt(question: str, view: CorpusView, params: QAParams, *, count: Counter, reserve: int = 0,
                verbalizer: Verbalizer | None = None, query_vec: np.ndarray | None = None) -> QAPlan:
    """The prompt for `question` in `params.mode` over what `view` shows, and everything that went into it."""
    budget = _Budget(count, max(params.budget_tokens - reserve, 0))
    question = " ".join(question.split())
    plan = QAPlan(params.mode, question, "", 0, reserve, params.budget_tokens)
    question = _fit_question(question, budget, plan)
    if params.mode in ("rag", "narco", "graph"):
        lexical_only = params.mode == "rag" and params.passage_search == "bm25"
        if not lexical_only and (query_vec is None or view.passage_vectors is None):
            raise ValueError(f"{params.mode} mode needs passage embeddings and a query embedding")
        if params.mode == "graph":
            plan.passages = _graph_passages(params, view, question, query_vec, plan, budget)
        else:
            plan.passages = _rank_passages(params, view, question, query_vec, plan)
        prompt = _fill_passages(question, plan, budget)
    else:
        facts: list[str] = []
        if params.mode == "kg":
            plan.facts = _top_facts(question, view, params, verbalizer or template_verbalize, query_vec)
            facts = _fit_facts(question, plan, budget)
        prompt = _fill_tail(question, facts, view.passages, plan, budget)
    if not budget.fits(prompt):  # the framing alone exceeds a tiny budget: cut the prompt itself
        prompt = truncate_to_tokens(prompt, budget.room, count)
        plan.notes.append("The budget is smaller than the question and framing; the prompt was cut.")
    plan.prompt, plan.prompt_tokens = prompt, budget.count(prompt) if prompt else 0
    return plan


def _fit_question(question: str, budget: _Budget, plan: QAPlan) -> str:
    if budget.fits(render_prompt("", [], question)):
        return question
    kept = keep_end(question, lambda q: budget.count(render_prompt("", [], q)), budget.room, max_words=budget.room)
    plan.notes.append("The question is longer than the budget allows; only its end was kept.")
    return kept


def _top_facts(question: str, view: CorpusView, params: QAParams, verbalizer: Verbalizer,
               query_vec: np.ndarray | None) -> list[ScoredFact]:
    """The top facts, with their distance (edit distance; or 1 - cosine when ranked by meaning)."""
    if params.fact_ranking == "meaning":
        if query_vec is None:
            raise ValueError("fact selection by meaning needs a query embedding")
        picked = [(i, 1.0 - sim) for i, sim in facts_by_meaning(view, query_vec, params.top_facts)]
    else:
        picked = [(r.index, r.score) for r in rank_by_levenshtein(question, view.fact_texts, k=params.top_facts)]
    return [ScoredFact(view.facts[i], round(d, 4), verbalizer(view.facts[i])) for i, d in picked]


def _fit_facts(question: str, plan: QAPlan, budget: _Budget) -> list[str]:
    """The verbalized facts that fit beside the question, dropping the lowest-ranked first."""
    kept = [f.sentence for f in plan.facts]
    while kept and not budget.fits(render_prompt("", kept, question)):
        kept.pop()
    for f in plan.facts[len(kept):]:
        f.in_prompt = False
    if len(kept) < len(plan.facts):
        plan.notes.append(f"{counted(len(plan.facts) - len(kept), 'fact')} did not fit the budget.")
    for f in plan.facts[:len(kept)]:
        plan.citations.append(Citation(f.fact.chapter, f.fact.chunk_index, f.fact.sentence, f.fact.chunk_id,
                                       "fact", f.distance))
    return kept


def _fill_tail(question: str, facts: list[str], passages: Sequence[Passage], plan: QAPlan, budget: _Budget) -> str:
    """Algorithm 1, line 15: as much of the end of the text as fits before the facts and the question."""
    # Only the last passages can matter: a prompt of R tokens holds at most R words.
    chosen: list[Passage] = []
    words = 0
    for p in reversed(passages):
        chosen.append(p)
        words += len(p.text.split())
        if words >= budget.room:
            break
    chosen.reverse()
    source = QA_SEPARATOR.join(p.text for p in chosen)
    tail = keep_end(source, lambda t: budget.count(render_prompt(t, facts, question)), budget.room,
                    max_words=budget.room)
    if not passages:
        plan.notes.append("There is no text up to this chapter.")
    # cite the passages the kept ending overlaps, the first one possibly in part
    start, offset = len(source) - len(tail), 0
    for p in chosen:
        end = offset + len(p.text)
        if tail and end > start:
            part = p.text[max(start - offset, 0):]
            plan.citations.append(Citation(p.chapter, p.index, part, p.chunk_id, "text"))
        offset = end + len(QA_SEPARATOR)
    return render_prompt(tail, facts, question)


def _rank_passages(params: QAParams, view: CorpusView, question: str, query_vec: np.ndarray | None,
                   plan: QAPlan) -> list[ScoredPassage]:
    if params.mode == "rag":
        scores, cosine = passage_match(view, question, query_vec, params.passage_search)
        return [ScoredPassage(view.passages[r.index], r.score, float(cosine[r.index]))
                for r in top_k(scores, params.max_passages)]
    vectors = view.passage_vectors
    assert vectors is not None and query_vec is not None
    edge_vecs, owners, rows = view.edge_rows(params.edge_side)
    scores, similarity, best = narco_scores(query_vec, vectors, edge_vecs, owners, params.narco_lambda)
    edges = view.corpus.edges
    out = []
    for r in top_k(scores, params.max_passages):
        asked = edges[rows[best[r.index]]].question if best[r.index] >= 0 else None
        out.append(ScoredPassage(view.passages[r.index], r.score, float(similarity[r.index]), asked))
    if not rows:
        plan.notes.append("No NARCO edges up to this chapter yet, so the ranking equals rag (build them first).")
    return out


# ---- graph mode's hook: the walk's sentences within the room (core.qa.search.graph_context) ----------------------

def _graph_passages(params: QAParams, view: CorpusView, question: str, query_vec: np.ndarray | None, plan: QAPlan,
                    budget: _Budget) -> list[ScoredPassage]:
    """Graph mode's candidates: excerpts of the walk's passages (the sentences chosen to fill the room left beside
    the question), best first; _fill_passages then fits them exactly."""
    assert query_vec is not None
    room = budget.room - budget.count(render_prompt("", [], question))
    found = graph_context(view, question, query_vec, params.passage_search, room=room, count=budget.count)
    plan.graph = found.trace
    if plan.graph is None:
        plan.notes.append("This work has no knowledge graph yet, so graph mode searched passages and sentences "
                          "without a walk (build it on the Graph page or with `kg build`).")
    elif not plan.graph.seeds:
        plan.notes.append("No entity of the graph matched the question; the walk started from the best "
                          "matching sentences and passages only.")
    return [ScoredPassage(p, score, float(found.cosine[row])) for p, score, row in found.excerpts]


def _fill_passages(question: str, plan: QAPlan, budget: _Budget) -> str:
    """Best passages first while whole ones fit; the first that does not is cut to the remaining room (if that
    room is worth using), then filling stops. The prompt shows the chosen passages in reading order.

    Whole passages are admitted on an estimate (the prompt so far plus the passage's own count plus a margin for
    tokens that merge or split at the joins), which costs one short count per passage instead of one whole-prompt
    count; the result is then counted exactly, and passages are dropped from the end in the rare case it is over."""
    chosen: list[tuple[ScoredPassage, str]] = []

    def render(items: list[tuple[ScoredPassage, str]]) -> str:
        ordered = sorted(items, key=lambda it: (it[0].passage.chapter, it[0].passage.index))
        return render_prompt(QA_SEPARATOR.join(text for _, text in ordered), [], question)

    estimate = budget.count(render([]))
    margin = JOIN_MARGIN_TOKENS + budget.room // 100
    for sp in plan.passages:
        cost = budget.count(sp.passage.text) + JOIN_MARGIN_TOKENS
        if estimate + cost + margin > budget.room:
            break
        chosen.append((sp, sp.passage.text))
        estimate += cost
    while chosen and not budget.fits(render(chosen)):  # the estimate was too low: rare, but the budget is a limit
        chosen.pop()
    if len(chosen) < len(plan.passages) and budget.room - budget.count(render(chosen)) >= MIN_PARTIAL_TOKENS:
        sp = plan.passages[len(chosen)]
        # the cut is searched on the passage's own count (short texts), then checked once on the whole prompt; only
        # when a join adds tokens is it searched again on whole prompts
        left = budget.room - budget.count(render(chosen)) - JOIN_MARGIN_TOKENS
        part = keep_start(sp.passage.text, budget.count, left) if left > 0 else ""
        if not part or not budget.fits(render([*chosen, (sp, part)])):
            part = keep_start(sp.passage.text, lambda t: budget.count(render([*chosen, (sp, t)])), budget.room)
        if part:
            sp.truncated = part != sp.passage.text
            chosen.append((sp, part))
    for sp, text in chosen:
        sp.in_prompt = True
        plan.citations.append(Citation(sp.passage.chapter, sp.passage.index, text, sp.passage.chunk_id, "passage",
                                       round(sp.score, 4)))
    plan.citations.sort(key=lambda c: (c.chapter, c.chunk))
    if not plan.passages:
        plan.notes.append("There is no text up to this chapter.")
    return render(chosen)
