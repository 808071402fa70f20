"""What graph mode puts in the prompt: the walk's passages, cut down to the sentences that answer, within the room.

    context = select_context(walk_or_none, sentences, n_passages, question_terms, seeds, passage_match,
                             sentence_match, room=780, count=llm.count_tokens, scope="local")
    context.groups      -> [(passage row, [sentence ids], value of its first pick)], in the order chosen
    context.passages    -> (n_passages,) the passage ranking (PageRank fused with the match), for the inspector

The passage ranking is the walk's PageRank fused with the question's match by reciprocal rank (MATCH_WEIGHT on the
match, as before the sentence layer); sentence relevance is the walk's sentence mass fused with the sentences' own
BM25. Candidates are the sentences of the best CANDIDATE_PASSAGES passages and the best CANDIDATE_SENTENCES sentences
anywhere; core.retrieval.excerpts chooses among them by relevance and coverage of the question's terms and seed
entities. A question of global or creative scope (core.retrieval.questions) draws from more of the book: the
sentences of GLOBAL_PASSAGES passages, and those naming the members of its entities' communities (context_entities,
core.retrieval.global_view), which count toward coverage with a small weight.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from core.retrieval.excerpts import choose_sentences, group_by_passage
from core.retrieval.graphrank import Seed
from core.retrieval.hybrid import rrf
from core.retrieval.sentences import SentenceIndex
from core.retrieval.walk import WalkGraph, WalkRanking

MATCH_WEIGHT = 2.0          # reciprocal rank fusion weight of the passage match beside the PageRank (1.0)
CANDIDATE_PASSAGES = 40     # the best passages whose every sentence is a candidate
CANDIDATE_SENTENCES = 200   # the best sentences anywhere (by relevance) that are candidates too
GLOBAL_PASSAGES = 80        # ... for a whole-book or creative question
ENTITY_TERM_WEIGHT = 1.0    # a seed entity's coverage weight, times its IDF (a named one; bridged ones scaled)


@dataclass
class GraphContext:
    passages: np.ndarray                                  # (n_passages,) fused ranking score
    groups: list[tuple[int, list[int], float]]            # (passage row, sentence ids, value), as chosen
    ranking: WalkRanking | None = None
    seeds: list[Seed] = field(default_factory=list)


def select_context(walk: WalkGraph | None, sentences: SentenceIndex, n_passages: int, terms: Sequence[str],
                   seeds: Sequence[Seed], passage_match: np.ndarray, sentence_match: np.ndarray, *, room: int,
                   count: Callable[[str], int], scope: str = "local",
                   context_entities: Mapping[int, float] | None = None) -> GraphContext:
    """`terms`: the question's stemmed content words (bm25s tokens); `passage_match` (n_passages,) and
    `sentence_match` (visible sentences,) its lexical/dense match; `walk` None when the work has no graph.
    `context_entities`: entity -> coverage weight (relative to a named seed's) for entities a global view adds (the
    members of the seeds' communities); the sentences naming them become candidates too."""
    s = sentences.upto(n_passages)
    ranking = walk.rank(seeds, passage_match, sentence_match) if walk is not None else None
    if ranking is not None:
        passage_scores = rrf([ranking.passages, passage_match], weights=(1.0, MATCH_WEIGHT))
        sentence_rel = rrf([ranking.sentences, sentence_match], ignore_zero=[False, True])
        seeds = ranking.seeds
    else:
        passage_scores = passage_match
        sentence_rel = rrf([sentence_match], ignore_zero=[True]) if s else np.zeros(0)
    if s == 0:
        return GraphContext(passage_scores, [], ranking, list(seeds))
    # a sentence's relevance: its own rank fused with its passage's rank
    owner = sentences.passage[:s]
    relevance = rrf([sentence_rel, passage_scores[owner]])
    wide = scope in ("global", "creative")
    top_passages = np.argsort(-passage_scores, kind="stable")[:GLOBAL_PASSAGES if wide else CANDIDATE_PASSAGES]
    pool = {int(i) for i in np.argsort(-relevance, kind="stable")[:CANDIDATE_SENTENCES]}
    for row in top_passages:
        pool.update(sentences.of_passage(int(row)))
    extra = dict(context_entities or {})
    if walk is not None and extra:
        named = walk.entity_sentences[:, sorted(extra)]
        hits = np.flatnonzero(np.asarray(named.sum(axis=1)).ravel() > 0)
        pool.update(int(i) for i in hits[np.argsort(-relevance[hits], kind="stable")][:CANDIDATE_SENTENCES])
    candidates = np.array(sorted(pool), dtype=np.int64)
    matrix, weights = _term_matrix(sentences, candidates, s, terms, seeds, walk, extra)
    picks = choose_sentences(sentences, candidates, relevance[candidates], matrix, weights, room, count)
    groups = group_by_passage(sentences, picks)
    return GraphContext(passage_scores, groups, ranking, list(seeds))


def _term_matrix(sentences: SentenceIndex, candidates: np.ndarray, s: int, terms: Sequence[str],
                 seeds: Sequence[Seed], walk: WalkGraph | None,
                 extra: Mapping[int, float]) -> tuple[sparse.csr_matrix, np.ndarray]:
    """(candidates x terms) 0/1 and each term's weight: the question's words (IDF over the visible sentences) and
    its seed entities (their IDF over passages, times the seed's weight)."""
    words = sorted(set(terms))
    word_weight = np.zeros(len(words))
    rows: list[int] = []
    cols: list[int] = []
    position = np.full(s, -1, dtype=np.int64)   # sentence id -> row among the candidates
    position[candidates] = np.arange(candidates.size)
    for j, w in enumerate(words):
        having = sentences.having(w, s)
        word_weight[j] = np.log1p(s / (1.0 + having.size))
        hit = position[having]
        hit = hit[hit >= 0]
        rows += hit.tolist()
        cols += [j] * hit.size
    ent_cols: list[int] = []
    ent_weight: list[float] = []
    if walk is not None and (seeds or extra):
        best: dict[int, float] = {}
        for seed in seeds:
            best[seed.entity] = max(best.get(seed.entity, 0.0), seed.weight)
        for e, share in extra.items():
            best.setdefault(e, share)
        ent_cols = sorted(best)
        ent_weight = [ENTITY_TERM_WEIGHT * best[e] * float(walk.entity_idf[e]) for e in ent_cols]
        named = sparse.csr_matrix(walk.entity_sentences[:, ent_cols])[candidates].tocoo()
        rows += named.row.tolist()
        cols += (named.col + len(words)).tolist()
    data = np.ones(len(rows))
    matrix = sparse.csr_matrix((data, (rows, cols)), shape=(candidates.size, len(words) + len(ent_cols)))
    matrix.data[:] = 1.0
    weights = np.concatenate([word_weight, np.asarray(ent_weight, dtype=np.float64)])
    return matrix, weights

