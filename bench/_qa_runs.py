"""What bench/answers.py and bench/answer_support.py share: GraphRAG-Bench's questions split into a tuning half and a
held-back half, the app's own retrieval for each question (dry runs through the service on the stores
bench/graphrag_bench.py builds and caches), and a MiniLM memo kept between runs.

    questions = load_questions()                      # 1,041 GraphRAG-Bench Novel dev questions
    dev, test = halves(questions)                     # seeded: tune on dev, look at test once
    runs = retrieve(questions, mode="rag")            # id -> Run(result, view, query_vec)
"""
from __future__ import annotations

import json
import random
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _common import SHARED_DATA

DATA = SHARED_DATA / "graphrag_bench_novel"
SEED = 2025
BUDGET = 1000
TYPES = ["Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation"]
SHORT = {"Fact Retrieval": "fact", "Complex Reasoning": "reasoning", "Contextual Summarize": "summarize",
         "Creative Generation": "creative"}


class MemoEmbed:
    """MiniLM with one memory for the whole run: the extractive reader's own sentence cache (core.qa.extract), made
    unbounded and optionally kept in an .npz file between runs (--cache), so the service's extraction, the tuning
    and the support checks embed each sentence once."""

    def __init__(self, path: Path | None = None) -> None:
        from core.qa import extract
        self.path = path
        extract._VECTOR_CACHE = 10 ** 9
        self.vectors = extract._VECTORS
        if path is not None and path.exists():
            with np.load(path, allow_pickle=False) as data:
                self.vectors.update(zip(data["texts"].tolist(), data["vectors"]))
        self._embed = extract.embed_sentences

    def __call__(self, texts: Any) -> np.ndarray:
        return self._embed(list(texts))

    def save(self) -> None:
        if self.path is not None and self.vectors:
            np.savez(self.path, texts=np.array(list(self.vectors)), vectors=np.stack(list(self.vectors.values())))


def load_questions(limit: int | None = None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (DATA / "questions.jsonl").open(encoding="utf-8") if line.strip()]
    return rows[:limit] if limit else rows


def halves(questions: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """(dev ids, test ids): a seeded half each (the split bench/answer_support.py has always used)."""
    ids = [q["id"] for q in questions]
    random.Random(SEED).shuffle(ids)
    return set(ids[:len(ids) // 2]), set(ids[len(ids) // 2:])


def per_type(questions: list[dict[str, Any]], ids: set[str], cap: int | None, seed: int = SEED) -> list[dict]:
    """The questions of `ids`, at most `cap` of each type (a seeded sample; None: all), in their file order."""
    if not cap:
        return [q for q in questions if q["id"] in ids]
    rng, keep = random.Random(seed), set()
    for t in TYPES:
        of_type = [q["id"] for q in questions if q["id"] in ids and q["question_type"] == t]
        keep |= set(rng.sample(of_type, min(cap, len(of_type))))
    return [q for q in questions if q["id"] in keep]


@dataclass
class Run:
    """One question asked as the app asks it (a dry run): its result, the view it saw and its query vector."""

    result: Any
    view: Any
    query_vec: np.ndarray


def cached_store(name: str, docs: list[tuple[str, str]], reuse: bool = False) -> tuple[Any, list[int]]:
    """graphrag_bench.open_store; with `reuse`, the newest complete cached store of that name is opened even when
    the importer or extractor changed since it was built (building anew takes 10-40 minutes on 2 busy cores)."""
    from _graphrag_stores import CACHE, open_store
    built = sorted((p for p in CACHE.glob(f"{name}-*.db") if ".building" not in p.name),
                   key=lambda p: p.stat().st_mtime)
    if reuse and built:
        from storage.repository import SqlStore
        print(f"  reusing {built[-1].name} (built {time.ctime(built[-1].stat().st_mtime)})", flush=True)
        store = SqlStore.from_url(f"sqlite:///{built[-1]}")
        return store, [w.id for w in sorted(store.list_works(), key=lambda w: w.id)]
    return open_store(name, docs)


def novel_store(reuse: bool = False) -> tuple[Any, dict[str, int]]:
    """The 10 GraphRAG-Bench books imported, graphed and embedded as the app does (cached by graphrag_bench)."""
    books = sorted({q["source"] for q in load_questions()})
    docs = [(f"{b}.txt", (DATA / "books" / f"{b}.txt").read_text(encoding="utf-8")) for b in books]
    store, ids = cached_store("novel", docs, reuse)
    return store, dict(zip(books, ids))


def retrieve(questions: list[dict[str, Any]], mode: str = "rag", answer: str = "extractive",
             store: Any = None, work_of: dict[str, int] | None = None, reuse: bool = False,
             memo: MemoEmbed | None = None) -> dict[str, Run]:
    """Question id -> its dry run in `mode` (budget 1,000 tokens of the default model), grouped by book."""
    from core.config import get_settings
    from core.llm import get_llm
    from core.qa import QAParams
    from core.services.qa_corpus import load_corpus
    from core.services.qa_service import Asker
    if store is None or work_of is None:
        store, work_of = novel_store(reuse)
    asker = Asker(store, get_llm(get_settings().llm), dry_run=True)
    params = QAParams(mode=mode, budget_tokens=BUDGET, verbalize="template", answer=answer)
    by_book: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_book[q["source"]].append(q)
    out: dict[str, Run] = {}
    from core.nlp import embed
    for book, qs in sorted(by_book.items()):
        start = time.perf_counter()
        work_id = work_of[book]
        corpus = load_corpus(store, work_id)
        vectors = embed([q["question"] for q in qs])
        for q, vec in zip(qs, vectors):
            result = asker.ask(work_id, q["question"], params)
            out[q["id"]] = Run(result, corpus.upto(result.upto), vec)
        print(f"  {book}: {len(qs)} questions, {time.perf_counter() - start:.0f} s", flush=True)
        if memo is not None:
            memo.save()  # a run stopped on a busy machine keeps what it embedded
    return out


READER_RULES = {
    "topic-rule": "the topic rule (core.qa.relevance.speaks_to): a name is shown whatever its sentence is about",
    "roles": "the parse roles (core.qa.roles): the names of a sentence weigh the same wherever they stand",
    "graph-facts": "the graph's facts (core.qa.graph_answer): who / where answers from the sentences' words only",
    "unnamed-topic-rule": "the topic rule for a who / where / when question whose sentence names nothing of the "
                          "asked type (core.qa.extract.TOPIC_RULE_WITHOUT_NAME)",
}


def add_reader_switches(parser: Any) -> None:
    """--no-topic-rule, --no-roles, --no-graph-facts: the extractive reader as it was before each rule."""
    for rule, what in READER_RULES.items():
        parser.add_argument(f"--no-{rule}", action="store_true", help=f"the reader without {what}")


def switch_reader_rules(args: Any) -> None:
    """Turn off the rules the command line asked off (add_reader_switches), in core.qa.extract, for this process."""
    import core.qa.extract as extract_module
    if getattr(args, "no_topic_rule", False):
        extract_module.speaks_to = lambda *a, **k: (True, ())   # type: ignore[assignment]
    if getattr(args, "no_roles", False):
        extract_module.role_weights = lambda doc, spans, *a, **k: dict(spans)   # type: ignore[assignment]
    if getattr(args, "no_unnamed_topic_rule", False):
        extract_module.TOPIC_RULE_WITHOUT_NAME = False
    if getattr(args, "no_graph_facts", False):
        extract_module.fact_answer = lambda *a, **k: None   # type: ignore[assignment]
