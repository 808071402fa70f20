"""What bench/graphrag_bench.py's parts share (and bench/_qa_runs.py, bench/answers.py, bench/graphrag_latency.py):
the books imported, graphed and embedded as the app does, cached as SQLite files under bench/.cache/graphrag_bench,
the retrieval modes compared, and a dry run's plan for one question."""
from __future__ import annotations

import argparse
import hashlib
import os
import time
from pathlib import Path
from typing import Any

from _common import ROOT, SHARED_DATA

CACHE = ROOT / "bench" / ".cache" / "graphrag_bench"
BENCH_DIR = SHARED_DATA / "graphrag_bench_novel"
PRIDE = SHARED_DATA / "novels" / "txt" / "pride_and_prejudice_pg1342.txt"
TYPES = ("Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation")
MODES: dict[str, dict[str, Any]] = {
    "traditional": {"mode": "traditional"},
    "kg": {"mode": "kg", "verbalize": "template"},
    "kg-meaning": {"mode": "kg", "verbalize": "template", "fact_ranking": "meaning"},
    "rag": {"mode": "rag"},
    "rag-dense": {"mode": "rag", "passage_search": "dense"},
    "bm25": {"mode": "rag", "passage_search": "bm25"},
    "narco": {"mode": "narco"},
    "graph": {"mode": "graph"},
}
LATENCY_QUESTIONS = ["Who is Mr. Bingley?", "Why does Elizabeth refuse Mr. Collins?", "Where is Netherfield?",
                     "Who does Lydia run away with?", "What did Darcy write in his letter?", "Who is Lady Catherine?",
                     "Why does Jane go to London?", "What does Mrs. Bennet want for her daughters?",
                     "Who inherits Longbourn?", "How does Elizabeth feel about Pemberley?"]
SEED = 2022
# GraphRAG-Bench books held back while graph mode's sentence layer was tuned (issue 31): its figures are reported
# apart; the other seven books are the tuning split
HOLD_OUT = ("Novel-25646", "Novel-47558", "Novel-8559")
REUSE_CACHE = False                 # --reuse-cache: the newest cached store of a name when its exact key is missing
STORES: dict[str, str] = {}         # name -> the store file a run used


# ---- building the works as the app does ---------------------------------------------------------------------------

def open_store(name: str, docs: list[tuple[str, str]], rebuild: bool = False) -> tuple[Any, list[int]]:
    """A SQLite store holding `docs` (file name, text) imported, graphed offline and embedded; cached on disk."""
    from core.kg.offline import VERSION
    from core.services import kg_service, qa_corpus
    from core.services.library import import_book
    from storage.repository import SqlStore
    CACHE.mkdir(parents=True, exist_ok=True)
    # the importer's code is part of the key: a change to chapter detection or chunking makes different passages
    importer = "".join(hashlib.sha1(f.read_bytes()).hexdigest()
                       for f in sorted((ROOT / "core" / "ingest").glob("*.py")))
    digest = hashlib.sha1((VERSION + importer + "".join(n + hashlib.sha1(t.encode()).hexdigest() for n, t in docs))
                          .encode()).hexdigest()[:12]
    path = CACHE / f"{name}-{digest}.db"
    older = sorted((p for p in CACHE.glob(f"{name}-*.db") if ".building-" not in p.name),
                   key=lambda p: p.stat().st_mtime)
    if not path.exists() and not rebuild and REUSE_CACHE and older:
        print(f"  [{name}] reusing {older[-1].name}: built by an older extractor or importer (--reuse-cache)",
              flush=True)
        path = older[-1]
    STORES[name] = path.name
    if path.exists() and not rebuild:
        store = SqlStore.from_url(f"sqlite:///{path}")
        return store, [w.id for w in sorted(store.list_works(), key=lambda w: w.id)]
    # built under a private name and renamed when complete: a reader never sees (or deletes) a half-built cache
    building = path.with_name(f"{path.stem}.building-{os.getpid()}.db")
    building.unlink(missing_ok=True)
    store = SqlStore.from_url(f"sqlite:///{building}")
    ids = []
    for i, (file_name, text) in enumerate(docs):
        t0 = time.perf_counter()
        work_id = import_book(store, file_name, text.encode("utf-8")).id
        kg_service.build_graph(store, work_id)
        qa_corpus.ensure_vectors(store, work_id)
        qa_corpus.attach_meaning_vectors(store, qa_corpus.load_corpus(store, work_id))
        ids.append(work_id)
        print(f"  [{name}] {i + 1}/{len(docs)} {file_name}: built in {time.perf_counter() - t0:.0f} s", flush=True)
    store.engine.dispose()
    os.replace(building, path)
    for suffix in ("-wal", "-shm"):
        Path(f"{building}{suffix}").unlink(missing_ok=True)
    store = SqlStore.from_url(f"sqlite:///{path}")
    return store, ids


def asker(store: Any) -> Any:
    from core.config import get_settings
    from core.llm import get_llm
    from core.services.qa_service import Asker
    return Asker(store, get_llm(get_settings().llm), dry_run=True)


def plan_of(ask: Any, work_id: int, question: str, qa_params: Any, vectors: dict[str, Any] | None = None) -> Any:
    """The plan a dry run makes (Asker.ask's retrieval: corpus, vectors, query embedding, plan_prompt with the
    answering model's counter and template reserve), without the extractive reader that Asker.ask also runs on
    every question (it embeds up to 60 sentences per question, which this benchmark does not measure). `vectors`:
    question -> its MiniLM vector, embedded once for all modes (in one batch: on a loaded 2-core machine a single
    question's embedding took 3 s)."""
    from core.qa import plan_prompt, template_verbalize
    from core.services.qa_service import _check_upto, _embed_query
    corpus = qa_corpus_of(ask, work_id, qa_params)
    embed = (lambda q: vectors[q]) if vectors is not None and question in vectors else _embed_query
    query_vec = embed(question) if not (qa_params.mode in ("traditional",) or (
        qa_params.mode == "kg" and qa_params.fact_ranking != "meaning") or (
        qa_params.mode == "rag" and qa_params.passage_search == "bm25")) else None
    upto = _check_upto(corpus, qa_params.upto)
    return plan_prompt(question, corpus.upto(upto), qa_params, count=ask._count, reserve=ask.reserve,
                       verbalizer=template_verbalize, query_vec=query_vec)


def qa_corpus_of(ask: Any, work_id: int, qa_params: Any) -> Any:
    """The work's corpus with what the mode reads (vectors embedded once, as Asker.ask does)."""
    from core.services import qa_corpus
    corpus = qa_corpus.load_corpus(ask.store, work_id)
    if corpus.passage_vectors is None and corpus.passages:
        qa_corpus.ensure_vectors(ask.store, work_id)
        corpus = qa_corpus.load_corpus(ask.store, work_id)
    if qa_params.mode in ("graph", "kg"):
        qa_corpus.attach_meaning_vectors(ask.store, corpus)
    return corpus


def selected(args: argparse.Namespace) -> list[str]:
    """The modes this run measures (--modes, else all)."""
    return [m for m in MODES if not getattr(args, "modes", None) or m in args.modes]


def params(mode: str, budget: int) -> Any:
    from core.qa import QAParams
    return QAParams(budget_tokens=budget, **MODES[mode])


def context_of(plan: Any) -> str:
    """The prompt without its question (whose words would count as found)."""
    prompt, question = plan.prompt, plan.question
    cut = prompt.rfind(question) if question else -1
    return prompt[:cut] + prompt[cut + len(question):] if cut >= 0 else prompt


def words(text: str) -> set[str]:
    from core.retrieval.hybrid import tokenize
    return set(tokenize([text])[0]) if text.strip() else set()


def recall(gold: set[str], found: set[str]) -> float | None:
    return len(gold & found) / len(gold) if gold else None
