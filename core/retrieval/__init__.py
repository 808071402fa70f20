"""Ranking what a prompt should contain: facts by edit distance or embeddings, passages by embeddings, and
passages by the NARCO score (passage similarity plus the best-matching retrospective question).

    rank_by_levenshtein("Who is Jane's sister?", fact_texts, k=3)      # Andrus eq. (1): the 3 nearest facts
    rank_by_similarity(query_vec, fact_vecs, k=3)                      # Andrus eq. (2) (SBERT)
    rank_by_similarity(query_vec, passage_vecs, k=8)                   # plain RAG
    narco_scores(query_vec, passage_vecs, edge_vecs, edge_owner, lam=0.1)   # NARCO eq. (2)

Everything here is pure numpy/rapidfuzz on arrays the caller prepared, so ranking a whole novel's facts or passages
takes milliseconds and needs no model (query embeddings come from core.nlp.embed).
"""
from core.retrieval.facts import Ranked, rank_by_levenshtein, rank_by_similarity
from core.retrieval.narco import narco_scores, rank_narco

__all__ = ["Ranked", "rank_by_levenshtein", "rank_by_similarity", "narco_scores", "rank_narco"]
