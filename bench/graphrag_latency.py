"""Part 3 of bench/graphrag_bench.py: retrieval latency without an LLM on Pride and Prejudice (dry runs through the
service, warm; p50/p95 per mode), retrieval plus the extractive answer, and personalized PageRank by library."""
from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import defaultdict
from typing import Any

from _graphrag_stores import (LATENCY_QUESTIONS, PRIDE, STORES, asker, open_store, params, plan_of, qa_corpus_of,
                              selected)

def latency(args: argparse.Namespace) -> dict[str, Any]:
    from core.services import qa_corpus
    modes = selected(args)
    store, (work_id,) = open_store("pride", [(PRIDE.name, PRIDE.read_text(encoding="utf-8"))], args.rebuild)
    ask = asker(store)
    from core.nlp import embed
    for mode in modes:  # warm: models, corpus, per-view indexes
        plan_of(ask, work_id, LATENCY_QUESTIONS[0], params(mode, args.budget))
    # Interleaved (question by question, every mode in turn), so a change in the machine's load reaches every mode
    # alike; the question's embedding is timed once per question and added to each mode that embeds it, which is
    # what Asker.ask times as retrieval_ms (embedding + plan).
    plan_ms: dict[str, list[float]] = defaultdict(list)
    embed_ms: list[float] = []
    for _ in range(args.repeats):
        for q in LATENCY_QUESTIONS:
            t0 = time.perf_counter()
            vectors = {q: embed([q])[0]}
            embed_ms.append(1000 * (time.perf_counter() - t0))
            for mode in modes:
                t0 = time.perf_counter()
                plan_of(ask, work_id, q, params(mode, args.budget), vectors)
                plan_ms[mode].append(1000 * (time.perf_counter() - t0))
    rows = []
    for mode in modes:
        embeds = mode not in ("traditional", "kg", "bm25")
        total = sorted(p + (e if embeds else 0.0) for p, e in zip(plan_ms[mode], embed_ms))
        plans = sorted(plan_ms[mode])
        rows.append({"mode": mode, "n": len(total), "p50_ms": round(statistics.median(total), 1),
                     "p95_ms": round(_p95(total), 1), "max_ms": round(total[-1], 1),
                     "plan_p50_ms": round(statistics.median(plans), 1), "plan_p95_ms": round(_p95(plans), 1)})
    embeds_sorted = sorted(embed_ms)
    rows.append({"mode": "(question embedding alone)", "n": len(embed_ms),
                 "p50_ms": round(statistics.median(embeds_sorted), 1), "p95_ms": round(_p95(embeds_sorted), 1),
                 "max_ms": round(embeds_sorted[-1], 1)})
    t0 = time.perf_counter()
    backfilled = qa_corpus.ensure_sentence_vectors(store, work_id)   # a cache built before issue 31's sentence vectors
    backfill_s = round(time.perf_counter() - t0, 1)
    extraction = extraction_latency(ask, store, work_id, [m for m in ("rag", "graph") if m in modes], args)
    corpus = qa_corpus.load_corpus(store, work_id)
    libraries = ppr_libraries(corpus)
    store.engine.dispose()
    return {"rows": rows, "extraction": extraction, "sentence_backfill": {"passages": backfilled, "s": backfill_s},
            "ppr_libraries": libraries, "load_1min": round(os.getloadavg()[0], 2),
            "store": STORES.get("pride"),
            "passages": len(corpus.passages), "entities": corpus.entities.size if corpus.entities else 0}


def extraction_latency(ask: Any, store: Any, work_id: int, modes: list[str], args: argparse.Namespace) -> list[dict]:
    """Retrieval plus the extractive answer per question (question embedding + plan + extract_answer, as Asker.ask
    times them), with the cited sentences' vectors embedded at question time (before issue 31: MiniLM on up to 40
    candidates) against read from the store (embedded at import), the process's sentence cache emptied before every
    call; both ways on the same question one after the other, so the machine's load reaches them alike."""
    from core.nlp import embed
    from core.qa import extract
    from core.services.qa_corpus import cut_sentences, stored_embed
    from core.services.qa_service import _check_upto
    ways = {"embedded at question time": lambda plan, corpus: extract.embed_sentences,   # as Asker.ask did before
            "stored at import": lambda plan, corpus: stored_embed(store, extract.embed_sentences,
                                                                  cut_sentences(plan.citations, corpus))}
    totals: dict[tuple[str, str], list[float]] = defaultdict(list)
    for mode in modes:  # warm: spaCy's NER (loaded on the first typed question), the corpus per mode
        qa_params = params(mode, args.budget)
        plan = plan_of(ask, work_id, LATENCY_QUESTIONS[0], qa_params)
        extract.extract_answer(LATENCY_QUESTIONS[0], plan.citations, view=qa_corpus_of(ask, work_id, qa_params).upto(
            None), embed=extract.embed_sentences)
    for _ in range(args.repeats):
        for q in LATENCY_QUESTIONS:
            t0 = time.perf_counter()
            vector = embed([q])[0]
            embed_ms = 1000 * (time.perf_counter() - t0)
            for mode in modes:
                qa_params = params(mode, args.budget)
                for way, fn in ways.items():
                    extract._VECTORS.clear()
                    t0 = time.perf_counter()
                    plan = plan_of(ask, work_id, q, qa_params, {q: vector})
                    corpus = qa_corpus_of(ask, work_id, qa_params)
                    extract.extract_answer(q, plan.citations, view=corpus.upto(_check_upto(corpus, qa_params.upto)),
                                           query_vec=vector, embed=fn(plan, corpus))
                    totals[(mode, way)].append(embed_ms + 1000 * (time.perf_counter() - t0))
    rows = []
    for (mode, way), values in totals.items():
        ordered = sorted(values)
        rows.append({"mode": mode, "sentence vectors": way, "n": len(ordered),
                     "p50_ms": round(statistics.median(ordered), 1), "p95_ms": round(_p95(ordered), 1),
                     "max_ms": round(ordered[-1], 1)})
    return rows


def _p95(ordered: list[float]) -> float:
    return ordered[int(0.95 * (len(ordered) - 1))]


def ppr_libraries(corpus: Any, repeats: int = 50) -> list[dict[str, Any]]:
    """The same personalized PageRank (damping 0.5) on the whole book's view graph with each installed library."""
    import numpy as np

    from core.retrieval.graphrank import DAMPING, personalized_pagerank
    graph = corpus.upto(None).graph()
    if graph is None:
        return []
    n = graph.adjacency.shape[0]
    reset = np.zeros(n)
    reset[graph.n_passages + int(np.argmax(graph.passage_degree))] = 1.0
    reset[:20] = 0.05
    reset /= reset.sum()
    reference = personalized_pagerank(graph.adjacency, reset)
    out = []

    def timed(name: str, run: Any, build: Any = None) -> None:
        built = build() if build else None
        t0 = time.perf_counter()
        for _ in range(repeats):
            scores = run(built)
        ms = 1000 * (time.perf_counter() - t0) / repeats
        out.append({"library": name, "ms_per_call": round(ms, 2),
                    "max_abs_diff": float(np.abs(np.asarray(scores) - reference).max())})

    timed("scikit-network (CSR, used)", lambda _: personalized_pagerank(graph.adjacency, reset))
    try:
        import networkx as nx
        timed("networkx (graph built once)", lambda g: _nx_scores(nx, g, reset, n, DAMPING),
              lambda: nx.from_scipy_sparse_array(graph.adjacency))
    except ImportError:
        pass
    try:
        import igraph
        coo = graph.adjacency.tocoo()
        keep = coo.row <= coo.col

        def make() -> Any:
            g = igraph.Graph(n=n, edges=list(zip(coo.row[keep].tolist(), coo.col[keep].tolist())), directed=False)
            g.es["weight"] = coo.data[keep].tolist()
            return g
        timed("igraph (PRPACK, graph built once)",
              lambda g: g.personalized_pagerank(damping=DAMPING, reset=reset.tolist(), weights="weight"), make)
    except ImportError:
        pass
    return out


def _nx_scores(nx: Any, g: Any, reset: Any, n: int, damping: float) -> list[float]:
    pr = nx.pagerank(g, alpha=damping, personalization={i: float(reset[i]) for i in range(n) if reset[i] > 0},
                     weight="weight", tol=1e-10)
    return [pr[i] for i in range(n)]
