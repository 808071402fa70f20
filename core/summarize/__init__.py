"""Chapter summaries with knowledge-graph context (the KGScore paper's method) and the no-KG baseline.

    cg = chapter_edges(graph_as_of(data, k), k, name_counts)            # E_k: entities of chapter k, no later edges
    kg = ChapterKg([s.edge for s in rank_edges(cg.edges, embed, KEYWORDS)], cg.mentions, cg.names)
    outcome = summarize_chapter(llm, ChapterInput(k, title, text, passages), kg, SummaryParams(mode="kg"))

Modules: params (SummaryParams, Table 3 keywords), retrieval (E_k, eqs. 2-4), linearize (grouping, formats, budget
filling), prompts, pipeline (budget, hierarchical summarization), store (SummaryStore, versions, the current one);
extractive + signals: the summary without a model (the chapter's sentences, chosen with the graph and by salience).
Use cases (jobs, storage, export) live in core.services.summary_service.

Paper: ../shared/seeds/long_story_summaries_kgscore.txt (retrieval for chapter k, Table 3's keywords, linearization).
"""
from core.summarize.linearize import arrange, fill, linearize, linearize_lines, linearize_tokens
from core.summarize.extractive import Extract, extractive_summary, target_words
from core.summarize.params import EXTRACTIVE, KEYWORDS, MODE_LABELS, MODEL_MODES, MODES, SummaryParams
from core.summarize.pipeline import (ChapterInput, ChapterKg, SummaryOutcome, clean_summary, plan_prompt,
                                     prompt_budget, summarize_chapter)
from core.summarize.retrieval import (ChapterGraph, KgEdge, ScoredEdge, chapter_edges, edge_scores, rank_edges,
                                      zscore_columns)
from core.summarize.signals import ChapterSignals, SentenceFact, chapter_signals
from core.summarize.store import NewSummary, StoredSummary, SummaryStore, current, latest_generated

__all__ = ["SummaryParams", "MODES", "MODEL_MODES", "EXTRACTIVE", "MODE_LABELS", "Extract", "extractive_summary",
           "target_words", "ChapterSignals", "SentenceFact", "chapter_signals", "KEYWORDS", "KgEdge", "ScoredEdge",
           "ChapterGraph", "chapter_edges", "rank_edges", "edge_scores", "zscore_columns", "arrange", "fill", "linearize",
           "linearize_lines", "linearize_tokens", "ChapterInput", "ChapterKg", "SummaryOutcome", "summarize_chapter",
           "plan_prompt", "prompt_budget", "clean_summary", "NewSummary", "StoredSummary", "SummaryStore", "current",
           "latest_generated"]
