"""Question answering in four modes (traditional, kg, rag, narco) within one 1,000-token prompt budget, with the
default local model (core.config Settings.llm):

  1. module analysis (Andrus et al., Figure 4), LLM-independent: how often the gold answer is present after each
     stage (document, all KG facts, top-3 facts, verbalized facts, retrieved passages, the prompt) on LF-SQuAD (a
     seeded sample of 600 questions, as in the paper) and LF-QUOREF (all questions, and those on documents longer
     than the budget). Dry runs: template verbalization, prompts counted with the answering model's tokenizer.
  2. token F1 (x100, as in the paper; best over the gold answers) with the local model on a small seeded sample of
     each, plus the answer-in-response rate. kg mode verbalizes facts with the model (Figure 2 prompt).
  3. QuALITY: accuracy by the options' mean token log-probability (chance 25%), on one article for which NARCO edges
     are built with the local model within a time cap (window 1, self-verified).
  4. the NarrativeQA summaries: token F1 on a small sample.
  5. retrieval latency on Pride and Prejudice without the LLM (dry runs through the service, warm): p50/p95 per mode.

    .venv/bin/python bench/qa.py                        # ~20 min on 2 cores; prints tables, writes results/qa.json
    .venv/bin/python bench/qa.py --phases module latency   # LLM-free parts only (~6 min)

With no edges, NARCO ranks exactly as RAG (eq. 2 adds nothing), so where a dataset has no edges the narco row is
reported as such instead of re-running the model on identical prompts.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, table, write_results
from core.metrics.token_f1 import normalize_answer, token_f1

from core.config import get_settings
from core.llm import get_llm
from core.narco import QuestionEdge, edge_questions
from core.nlp import embed
from core.qa import (MODES, Corpus, LLMVerbalizer, QAParams, corpus_from_text, generate_answer, plan_prompt,
                     score_options, template_overhead, template_verbalize)

PRIDE = SHARED_DATA / "novels" / "txt" / "pride_and_prejudice_pg1342.txt"
PRIDE_QUESTIONS = ["Who is Mr. Bingley?", "Why does Elizabeth refuse Mr. Collins?", "Where is Netherfield?",
                   "Who does Lydia run away with?", "What did Darcy write in his letter?", "Who is Lady Catherine?",
                   "Why does Jane go to London?", "What does Mrs. Bennet want for her daughters?",
                   "Who inherits Longbourn?", "How does Elizabeth feel about Pemberley?"]
SEED = 2022


def load(name: str) -> list[dict[str, Any]]:
    path = SHARED_DATA / name
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def present(answers: list[str], text: str) -> bool:
    """A gold answer occurs in the text (SQuAD normalisation, whole words)."""
    return present_in(answers, padded(text))


def padded(text: str) -> str:
    return f" {normalize_answer(text)} "


def present_in(answers: list[str], haystack: str) -> bool:
    return any(f" {a} " in haystack for a in (normalize_answer(x) for x in answers) if a)


def pct(values: list[bool]) -> float:
    return round(100 * sum(values) / len(values), 1) if values else float("nan")


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.llm_name = get_settings().llm
        self.llm = get_llm(self.llm_name)
        self.reserve = template_overhead(self.llm)
        self.budget = get_settings().prompt_budget_tokens

    def corpus(self, document: str) -> Corpus:
        corpus = corpus_from_text(document)
        corpus.passage_vectors = embed([p.text for p in corpus.passages])
        return corpus

    def plan(self, question: str, corpus: Corpus, mode: str, query_vec: Any, verbalizer: Any = None) -> Any:
        return plan_prompt(question, corpus.upto(None), QAParams(mode=mode, budget_tokens=self.budget),
                           count=self.llm.count_tokens, reserve=self.reserve, query_vec=query_vec,
                           verbalizer=verbalizer or template_verbalize)

    # -- 1. module analysis ---------------------------------------------------------------------------------------
    def module_analysis(self, docs: list[tuple[Corpus, list[dict]]], label: str) -> list[dict[str, Any]]:
        stages: dict[str, dict[str, list[bool]]] = {m: {} for m in MODES}
        long_doc: list[bool] = []
        for corpus, questions in docs:
            full_text = "\n\n".join(p.text for p in corpus.passages)
            is_long = self.llm.count_tokens(full_text) > self.budget
            document, facts = padded(full_text), [padded(f.text) for f in corpus.facts]
            vectors = embed([q["question"] for q in questions])
            for q, vec in zip(questions, vectors):
                gold = q["answers"]
                long_doc.append(is_long)
                for mode in MODES:
                    plan = self.plan(q["question"], corpus, mode, vec)
                    s = stages[mode]
                    s.setdefault("document", []).append(present_in(gold, document))
                    if mode == "kg":
                        s.setdefault("all_facts", []).append(any(present_in(gold, f) for f in facts))
                        s.setdefault("top3_facts", []).append(any(present(gold, f.fact.text) for f in plan.facts))
                        s.setdefault("verbalized", []).append(any(present(gold, f.sentence) for f in plan.facts))
                    if mode in ("rag", "narco"):
                        s.setdefault("retrieved", []).append(any(present(gold, p.passage.text) for p in plan.passages))
                    s.setdefault("prompt", []).append(present(gold, plan.prompt))
                    s.setdefault("tokens", []).append(plan.total_tokens)
        rows = []
        for mode in MODES:
            s = stages[mode]
            long_prompt = [p for p, lg in zip(s["prompt"], long_doc) if lg]
            rows.append({"dataset": label, "mode": mode, "n": len(s["prompt"]), "document": pct(s["document"]),
                         "all_facts": pct(s.get("all_facts", [])), "top3_facts": pct(s.get("top3_facts", [])),
                         "verbalized": pct(s.get("verbalized", [])), "retrieved": pct(s.get("retrieved", [])),
                         "prompt": pct(s["prompt"]), "n_long": len(long_prompt), "prompt_long": pct(long_prompt),
                         "max_tokens": max(s["tokens"]), "edges": sum(len(c.edges) for c, _ in docs)})
        return rows

    # -- 2. token F1 with the local model ------------------------------------------------------------------------
    def f1(self, sample: list[tuple[Corpus, dict]], label: str, answers_key: str = "answers") -> list[dict[str, Any]]:
        rows, by_mode = [], {}
        for mode in MODES:
            if mode == "narco" and not any(c.edges for c, _ in sample):
                rows.append({**by_mode["rag"], "mode": "narco", "note": "no edges: same prompts as rag"})
                continue
            scores, in_response, in_prompt, llm_facts, start = [], [], [], [], time.perf_counter()
            for corpus, q in sample:
                vec = embed([q["question"]])[0] if mode in ("rag", "narco") else None
                verbalizer = LLMVerbalizer(self.llm) if mode == "kg" else None
                plan = self.plan(q["question"], corpus, mode, vec, verbalizer)
                answer, _ = generate_answer(self.llm, plan.prompt)
                gold = q[answers_key]
                scores.append(100 * max(token_f1(answer, g) for g in gold))
                in_response.append(present(gold, answer))
                in_prompt.append(present(gold, plan.prompt))
                if verbalizer:
                    llm_facts.append(verbalizer.used_llm / max(len(plan.facts), 1))
            by_mode[mode] = {"dataset": label, "mode": mode, "n": len(sample), "f1": round(statistics.mean(scores), 1),
                             "f1_sem": round(statistics.stdev(scores) / len(scores) ** 0.5, 1) if len(scores) > 1
                             else None, "answer_in_response": pct(in_response), "answer_in_prompt": pct(in_prompt),
                             "llm_verbalized": round(100 * statistics.mean(llm_facts), 1) if llm_facts else "",
                             "s_per_q": round((time.perf_counter() - start) / len(sample), 1), "note": ""}
            rows.append(by_mode[mode])
            print(f"  {label} {mode}: F1 {by_mode[mode]['f1']}", flush=True)
        return rows

    # -- 3. NARCO edges with the local model, and QuALITY ----------------------------------------------------------
    def narco_edges(self, corpus: Corpus, seconds: float, window: int = 1) -> dict[str, Any]:
        """Edges for the corpus's passages in reading order until the time cap (the build job's loop, in memory)."""
        start, pairs, generated, edges = time.perf_counter(), 0, 0, []
        for j in range(1, len(corpus.passages)):
            if time.perf_counter() - start > seconds:
                break
            for i in range(max(0, j - window), j):
                prior, current = corpus.passages[i], corpus.passages[j]
                result = edge_questions(self.llm, prior.text, current.text)
                pairs += 1
                generated += len(result.generated)
                edges += [QuestionEdge(len(edges), prior.chunk_id, current.chunk_id, prior.chapter, prior.index,
                                       current.chapter, current.index, k.question, k.evidence, k.answer)
                          for k in result.kept]
        corpus.edges = edges
        corpus.edge_vectors = embed([e.question for e in edges]) if edges else None
        return {"pairs": pairs, "generated": generated, "kept": len(edges), "passages": len(corpus.passages),
                "seconds": round(time.perf_counter() - start, 1), "window": window,
                "examples": [{"question": e.question, "evidence": e.evidence} for e in edges[:5]]}

    def quality(self, n: int, narco_seconds: float) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        article = max(load("quality/dev.jsonl"), key=lambda a: len(a["questions"]))
        corpus = self.corpus(article["article"])
        print(f"  QuALITY '{article['title_guess']}': building NARCO edges for up to {narco_seconds:.0f} s", flush=True)
        narco = self.narco_edges(corpus, narco_seconds)
        narco["article"] = article["title_guess"]
        questions = article["questions"][:n]
        rows: list[dict[str, Any]] = []
        for mode in MODES:
            if mode == "narco" and not corpus.edges:
                rows.append({**rows[-1], "mode": "narco", "note": "no edges kept: same prompts as rag"})
                continue
            correct, start = [], time.perf_counter()
            for q in questions:
                vec = embed([q["question"]])[0] if mode in ("rag", "narco") else None
                plan = self.plan(q["question"], corpus, mode, vec)
                scores = score_options(self.llm, plan.prompt, q["options"])
                correct.append(scores.index(max(scores)) + 1 == q["gold_label"])
            rows.append({"dataset": "QuALITY", "mode": mode, "n": len(questions), "accuracy": pct(correct),
                         "edges": len(corpus.edges), "note": "",
                         "s_per_q": round((time.perf_counter() - start) / len(questions), 1)})
            print(f"  QuALITY {mode}: {rows[-1]['accuracy']}%", flush=True)
        return rows, narco

    # -- 5. retrieval latency on Pride and Prejudice -----------------------------------------------------------------
    def latency(self, repeats: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        import numpy as np

        from core.narco import NewQuestionEdge
        from core.services import kg_service, qa_service
        from core.services.library import import_book
        from storage.repository import SqlStore
        with tempfile.TemporaryDirectory(prefix="fabula-bench-qa-") as tmp:
            store = SqlStore.from_url(f"sqlite:///{Path(tmp) / 'pride.db'}")
            t0 = time.perf_counter()
            work = import_book(store, PRIDE.name, PRIDE.read_bytes())
            t1 = time.perf_counter()
            kg = kg_service.build_graph(store, work.id)
            t2 = time.perf_counter()
            qa_service.ensure_vectors(store, work.id)
            setup = {"chapters": work.chapter_count, "passages": len(store.list_chunks(work.id)),
                     "facts": kg.edges + kg.facts, "import_s": round(t1 - t0, 1), "kg_build_s": round(t2 - t1, 1),
                     "embed_s": round(time.perf_counter() - t2, 1)}
            asker = qa_service.Asker(store, self.llm, dry_run=True)
            rows = [self._timed(asker, work.id, mode, repeats, setup["chapters"]) for mode in MODES]
            # NARCO edges need an LLM; for timing only, 3 synthetic questions per passage exercise the S score
            rng = np.random.default_rng(SEED)
            chunks = store.list_chunks(work.id)
            for a, b in zip(chunks, chunks[1:]):
                vecs = rng.normal(size=(3, 384)).astype(np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                store.narco_replace_edges(work.id, [b.id], [NewQuestionEdge(a.id, b.id, f"synthetic {k}?", "", "", v)
                                                            for k, v in enumerate(vecs)], window=1, model="synthetic")
            rows.append(self._timed(asker, work.id, "narco", repeats, setup["chapters"]) |
                        {"mode": "narco (+synthetic edges)", "edges": 3 * (len(chunks) - 1)})
            store.engine.dispose()
        return rows, setup

    def _timed(self, asker: Any, work_id: int, mode: str, repeats: int, chapters: int) -> dict[str, Any]:
        rng = random.Random(SEED)
        asker.ask(work_id, PRIDE_QUESTIONS[0], QAParams(mode=mode))  # warm: corpus cache, tokenizer, embedder
        totals, retrieval = [], []
        for k in range(repeats):
            params = QAParams(mode=mode, upto=rng.randint(1, chapters))
            start = time.perf_counter()
            result = asker.ask(work_id, PRIDE_QUESTIONS[k % len(PRIDE_QUESTIONS)], params)
            totals.append(1000 * (time.perf_counter() - start))
            retrieval.append(result.timings["retrieval_ms"])
        q = statistics.quantiles
        return {"mode": mode, "n": repeats, "p50_ms": round(statistics.median(totals), 1),
                "p95_ms": round(q(totals, n=20)[18], 1), "retrieval_p50_ms": round(statistics.median(retrieval), 1),
                "retrieval_p95_ms": round(q(retrieval, n=20)[18], 1), "edges": 0}


def sample_lf(name: str, n: int | None, bench: Bench, long_only: bool = False) -> list[tuple[Corpus, list[dict]]]:
    """(corpus, its questions) per document; with `n`, a seeded sample of n questions over all documents."""
    docs = load(name)
    if long_only:
        docs = [d for d in docs if bench.llm.count_tokens(d["document"]) > bench.budget]
    pairs = [(i, q) for i, d in enumerate(docs) for q in d["questions"]]
    if n is not None and n < len(pairs):
        pairs = random.Random(SEED).sample(pairs, n)
    wanted: dict[int, list[dict]] = {}
    for i, q in pairs:
        wanted.setdefault(i, []).append(q)
    return [(bench.corpus(docs[i]["document"]), qs) for i, qs in sorted(wanted.items())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", nargs="*", default=["module", "f1", "quality", "narrativeqa", "latency"])
    parser.add_argument("--squad-module", type=int, default=600, help="LF-SQuAD questions in the module analysis")
    parser.add_argument("--n-f1", type=int, default=6, help="questions per dataset and mode for token F1")
    parser.add_argument("--n-quality", type=int, default=6)
    parser.add_argument("--n-narrativeqa", type=int, default=5)
    parser.add_argument("--narco-seconds", type=float, default=100)
    parser.add_argument("--latency-repeats", type=int, default=60)
    args = parser.parse_args()
    bench, out, started = Bench(args), {}, time.perf_counter()
    out["params"] = {"llm": bench.llm_name, "budget_tokens": bench.budget, "template_tokens": bench.reserve,
                     "top_facts": QAParams().top_facts, "narco_lambda": QAParams().narco_lambda, "seed": SEED,
                     **{k: v for k, v in vars(args).items() if k != "phases"}}
    print(f"model {bench.llm_name}, budget {bench.budget} tokens ({bench.reserve} for the chat template)", flush=True)
    if "module" in args.phases:
        squad = sample_lf("lf_squad/dev.jsonl", args.squad_module, bench)
        quoref = sample_lf("lf_quoref/dev.jsonl", None, bench)
        out["module_analysis"] = bench.module_analysis(squad, "LF-SQuAD") + bench.module_analysis(quoref, "LF-QUOREF")
        print("\n" + table(out["module_analysis"]) + "\n", flush=True)
    if "f1" in args.phases:
        rows = []
        for name, label in (("lf_squad/dev.jsonl", "LF-SQuAD"), ("lf_quoref/dev.jsonl", "LF-QUOREF")):
            docs = sample_lf(name, args.n_f1, bench, long_only=True)
            rows += bench.f1([(c, q) for c, qs in docs for q in qs], label)
        out["f1"] = rows
        print("\n" + table(rows) + "\n", flush=True)
    if "quality" in args.phases:
        out["quality"], out["narco_edges"] = bench.quality(args.n_quality, args.narco_seconds)
        print("\n" + table(out["quality"]) + "\n", flush=True)
        print({k: v for k, v in out["narco_edges"].items() if k != "examples"}, flush=True)
    if "narrativeqa" in args.phases:
        items = random.Random(SEED).sample(load("narrativeqa/summaries_qa_dev.jsonl"), args.n_narrativeqa)
        out["narrativeqa"] = bench.f1([(bench.corpus(i["passage"]), i) for i in items], "NarrativeQA", "answer")
        print("\n" + table(out["narrativeqa"]) + "\n", flush=True)
    if "latency" in args.phases:
        out["latency"], out["latency_setup"] = bench.latency(args.latency_repeats)
        print("\n" + table(out["latency"]) + "\n", out["latency_setup"], flush=True)
    out["seconds"] = round(time.perf_counter() - started, 1)
    print(f"wrote {write_results('qa', out)} after {out['seconds']:.0f} s")


if __name__ == "__main__":
    main()
