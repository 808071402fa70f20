"""Answers against gold answers: the extractive answer (the book's own words, no generative model), the embedded
model's generated answer, and the better of the two by the support check.

  graphrag  GraphRAG-Bench Novel dev (1,041 questions, 10 books): token F1 per question type. The extractive reader's
            constants were chosen on the seeded dev half (--tune prints the candidates); the held-back test half is
            reported. The embedded model answers a sample of the test half stratified by type (--gen-per-type).
  long      LF-SQuAD (600 sampled, as bench/qa.py) and LF-QUOREF dev: the gold answer found in the answer (SQuAD
            normalisation) and token F1 (best over the gold answers); nothing was tuned on these sets.
  latency   Pride and Prejudice: the extractive answer without an LLM (retrieval + extraction, as the service times
            them), p50/p95, every question with an empty sentence cache (the worst case) and warm.

Questions are asked through the service (core.services.qa_service.Asker) on the stores bench/graphrag_bench.py
builds (imported, offline graph, vectors; cached under bench/.cache), mode --mode (rag: BM25 + MiniLM), budget 1,000.

    .venv/bin/python bench/answers.py --cache /tmp/answers.npz                   # all parts
    .venv/bin/python bench/answers.py --parts graphrag --tune --cache /tmp/answers.npz   # dev-half candidates only
Writes bench/results/answers.json.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED_DATA, table, write_results  # noqa: E402
from _qa_runs import (SHORT, TYPES, MemoEmbed, add_reader_switches, halves, load_questions, novel_store,  # noqa: E402
                      per_type, retrieve, switch_reader_rules)

from core.metrics.token_f1 import normalize_answer, token_f1  # noqa: E402

WEIGHT_CANDIDATES = [(0.5, 0.35, 0.05, 0.1), (0.6, 0.3, 0.0, 0.1), (0.4, 0.5, 0.0, 0.1), (0.5, 0.35, 0.15, 0.0),
                     (0.7, 0.2, 0.05, 0.05), (0.3, 0.6, 0.05, 0.05)]
FORMS = ("span", "clause", "sentence")
ADDED_CANDIDATES = (0, 1, 2, 3)  # qa_service.MAX_ADDED_WORDS candidates, compared on the dev half (--half dev)


def _f1(answer: str | None, gold: str) -> float:
    return token_f1(answer or "", gold)


def _mean(values: list[float]) -> float | None:
    return round(100 * statistics.mean(values), 1) if values else None


# ---- GraphRAG-Bench -------------------------------------------------------------------------------------------------

def tune(questions: list[dict[str, Any]], runs: dict[str, Any], dev: set[str], memo: MemoEmbed) -> list[dict]:
    """Dev-half F1 of each sentence weighting, and per answer type of each answer form under the best weighting."""
    from core.qa.extract import ANSWER_FORM, extract_answer, question_type
    qs = [q for q in questions if q["id"] in dev]
    rows = []
    for weights in WEIGHT_CANDIDATES:
        scores = [_f1(extract_answer(q["question"], runs[q["id"]].result.plan.citations, view=runs[q["id"]].view,
                                     query_vec=runs[q["id"]].query_vec, embed=memo, weights=weights).answer,
                      q["answer"]) for q in qs]
        rows.append({"weights": str(weights), "dev_f1": _mean(scores)})
        print(f"  weights {weights}: dev F1 {rows[-1]['dev_f1']}", flush=True)
    best = eval(max(rows, key=lambda r: r["dev_f1"])["weights"])  # noqa: S307 - our own tuple literal
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in qs:
        by_kind[question_type(q["question"])].append(q)
    for kind, items in sorted(by_kind.items()):
        row: dict[str, Any] = {"weights": f"{best} / {kind}", "n": len(items), "current": ANSWER_FORM.get(kind)}
        for form in (*FORMS, "sentences"):
            forms = {**ANSWER_FORM, kind: form}
            row[form] = _mean([_f1(extract_answer(q["question"], runs[q["id"]].result.plan.citations,
                                                  view=runs[q["id"]].view, query_vec=runs[q["id"]].query_vec,
                                                  embed=memo, weights=best, forms=forms).answer, q["answer"])
                               for q in items])
        rows.append(row)
        print(f"  {kind}: {row}", flush=True)
    return rows


def pick(ext: Any, gen: Any) -> str | None:
    """The better answer of two results by the answer check: a supported one over an unsupported one, else the
    generated one when it has a higher support score (the extractive one on a tie)."""
    ext_ok = shown_supported(ext)
    if bool(gen.supported) != ext_ok:
        return gen.answer if gen.supported else shown(ext)
    score = lambda r: (r.support.score or 0.0) if r.support is not None else -1.0  # noqa: E731
    return gen.answer if score(gen) > score(ext) else shown(ext)


def graphrag(args: argparse.Namespace, memo: MemoEmbed) -> dict[str, Any]:
    everything = load_questions(args.limit)
    dev, test = halves(everything)
    questions = per_type(everything, dev if args.tune or args.half == "dev" else test, args.per_type)
    store, work_of = novel_store(args.reuse_store)
    half = "dev" if args.tune or args.half == "dev" else "test"
    print(f"{len(questions)} questions of the {half} half: retrieving ({args.mode}) and "
          "extracting…", flush=True)
    runs = retrieve(questions, args.mode, "extractive", store, work_of, memo=memo)
    memo.save()
    if args.tune:
        return {"tuning": tune(questions, runs, dev, memo), "n": len(questions)}
    held = questions
    rng = random.Random(args.seed)
    sample = []
    for t in TYPES:
        of_type = [q for q in held if q["question_type"] == t]
        sample += rng.sample(of_type, min(args.gen_per_type, len(of_type)))
    generated, auto = generate(store, work_of, sample, args) if args.gen_per_type else ({}, {})
    rows = []
    for t in [*TYPES, "all"]:
        items = [q for q in held if t in ("all", q["question_type"])]
        sampled = [q for q in sample if t in ("all", q["question_type"]) and q["id"] in generated]
        ext = lambda q: runs[q["id"]].result  # noqa: E731
        rows.append({
            "type": SHORT.get(t, t), "n": len(items),
            "extractive": _mean([_f1(shown(ext(q)), q["answer"]) for q in items]),
            "answered %": _mean([float(shown(ext(q)) is not None) for q in items]),
            "supported %": _mean([float(shown_supported(ext(q))) for q in items]),
            "n sample": len(sampled),
            "extractive, sample": _mean([_f1(shown(ext(q)), q["answer"]) for q in sampled]),
            "generated": _mean([_f1(generated[q["id"]].answer, q["answer"]) for q in sampled]),
            "best of two": _mean([_f1(pick(ext(q), generated[q["id"]]), q["answer"]) for q in sampled]),
            "auto (page)": _mean([_f1(auto[q["id"]].answer, q["answer"]) for q in sampled]),
            "auto rephrased %": _mean([float(auto[q["id"]].answer_path == "rephrased") for q in sampled]),
            "auto, no span rule": _mean([_f1(without_span_rule(auto[q["id"]]), q["answer"]) for q in sampled]),
            "span dropped %": _mean([float(without_span_rule(auto[q["id"]]) != auto[q["id"]].answer)
                                     for q in sampled]),
            **{f"auto, added <= {k}": _mean([_f1(auto_with(auto[q["id"]], k), q["answer"]) for q in sampled])
               for k in ADDED_CANDIDATES},
            "auto, no added rule": _mean([_f1(auto_with(auto[q["id"]], None), q["answer"]) for q in sampled]),
            "rephrased, no added rule %": _mean([float(model_reply(auto[q["id"]])[2]) for q in sampled]),
            "generated supported %": _mean([float(bool(generated[q["id"]].supported)) for q in sampled])})
    examples = [{"question": q["question"], "gold": q["answer"], "extractive": shown(runs[q["id"]].result),
                 "generated": generated[q["id"]].answer if q["id"] in generated else None,
                 "auto": auto[q["id"]].answer if q["id"] in auto else None}
                for q in sample[:: max(1, len(sample) // 12)]]
    answers = [{"id": q["id"], "type": SHORT[q["question_type"]], "gold": q["answer"],
                "extractive": shown(runs[q["id"]].result),
                "extractive_supported": shown_supported(runs[q["id"]].result),
                "generated": generated[q["id"]].answer if q["id"] in generated else None,
                "generated_supported": generated[q["id"]].supported if q["id"] in generated else None,
                "auto": auto[q["id"]].answer if q["id"] in auto else None,
                "auto_path": auto[q["id"]].answer_path if q["id"] in auto else None,
                "auto_no_span_rule": without_span_rule(auto[q["id"]]) if q["id"] in auto else None,
                **_reply_fields(auto.get(q["id"]))} for q in held]
    return {"n": len(everything), "test_questions": len(held), "per_type_cap": args.per_type, "mode": args.mode,
            "rows": rows, "examples": examples, "answers": answers}


_REPLIES: dict[int, tuple[str | None, tuple[str, ...], bool]] = {}  # id(result) -> model_reply's verdicts


def model_reply(result: Any) -> tuple[str | None, tuple[str, ...], bool]:
    """(the embedded model's rephrasing of the chosen sentences, the content words it adds to them and the question
    (core.qa.words.added_words), whether every other rule of qa_service.rephrasing_shown passes on it) for an auto
    result; (None, (), False) where the model was not asked. Judged once per result (the check embeds with MiniLM);
    the results live for the whole run, so their ids stay theirs."""
    if id(result) not in _REPLIES:
        _REPLIES[id(result)] = _judge_reply(result)
    return _REPLIES[id(result)]


def _judge_reply(result: Any) -> tuple[str | None, tuple[str, ...], bool]:
    from core.qa.answer import clean_answer
    from core.qa.extract import embed_sentences
    from core.qa.words import added_words
    from core.services.qa_service import rephrasing_shown
    extraction = result.extraction
    if result.answer_path not in ("extractive", "rephrased") or not result.raw_answer or extraction is None \
            or not extraction.quotes:
        return None, (), False
    reply = clean_answer(result.raw_answer)
    added = added_words(reply, [*(q.text for q in extraction.quotes), result.plan.question])
    passes = rephrasing_shown(reply, extraction, result.plan.question, embed=embed_sentences, added_rule=False)
    return reply, added, passes


def auto_with(result: Any, max_added: int | None) -> str | None:
    """What the page shows for an auto result when a rephrasing may add at most `max_added` content words (None: the
    rule off, as before it was made): the model's reply where it passes, else the extractive answer."""
    reply, added, passes = model_reply(result)
    if reply is None or result.extraction is None:
        return result.answer
    if passes and (max_added is None or len(added) <= max_added):
        return reply
    return result.extraction.answer


def without_span_rule(result: Any) -> str | None:
    """What the page showed before a rephrasing had to keep the reader's span (qa_service.keeps_span): the model's
    reply (kept in `raw_answer` when the rule turned it down) wherever the support check alone passes on the quotes
    (here without the graph's names, which the service also gives the check: near enough for a share)."""
    from core.qa.answer import clean_answer
    from core.qa.extract import embed_sentences
    from core.services.qa_service import keeps_span, rephrasing_shown
    extraction = result.extraction
    if result.answer_path != "extractive" or not result.raw_answer or extraction is None or not extraction.quotes:
        return result.answer
    reply = clean_answer(result.raw_answer)
    if keeps_span(reply, extraction.span):
        return result.answer  # turned down (or empty) for another reason: the same then as now
    shown = rephrasing_shown(reply, extraction, result.plan.question, embed=embed_sentences, span_rule=False)
    return reply if shown else result.answer


def _reply_fields(result: Any) -> dict[str, Any]:
    if result is None:
        return {}
    reply, added, passes = model_reply(result)
    return {"model_reply": reply, "reply_added": list(added), "reply_passes_other_rules": passes,
            "quotes": [q.text for q in result.extraction.quotes] if result.extraction is not None else []}


def generate(store: Any, work_of: dict[str, int], sample: list[dict[str, Any]],
             args: argparse.Namespace) -> tuple[dict, dict]:
    """(id -> the embedded model's answer (path "generate"), id -> what the page shows (path "auto": the extractive
    answer, or the model's rephrasing of it where the check passes)) for each sampled question."""
    from core.qa import QAParams
    from core.services.qa_service import Asker
    asker = Asker(store, llm_override=args.llm)
    params = QAParams(mode=args.mode, budget_tokens=1000, verbalize="template", answer="generate")
    generated, auto, start = {}, {}, time.perf_counter()
    for n, q in enumerate(sample, 1):
        generated[q["id"]] = asker.ask(work_of[q["source"]], q["question"], params)
        auto[q["id"]] = asker.ask(work_of[q["source"]], q["question"], params.with_(answer="auto"))
        if n % 20 == 0:
            print(f"  generated {n}/{len(sample)} ({time.perf_counter() - start:.0f} s)", flush=True)
    return generated, auto


# ---- LF-SQuAD and LF-QUOREF -----------------------------------------------------------------------------------------

def long_documents(args: argparse.Namespace) -> list[dict[str, Any]]:
    import ast

    from _qa_runs import cached_store
    from graphrag_bench import _slug

    from core.qa import QAParams
    from core.services.qa_service import Asker
    rows = []
    for name, label, size in (("lf_squad", "LF-SQuAD", args.squad), ("lf_quoref", "LF-QUOREF", args.quoref)):
        docs = [json.loads(line) for line in (SHARED_DATA / name / "dev.jsonl").open(encoding="utf-8") if line.strip()]
        items = []
        for d, doc in enumerate(docs):
            qs = doc["questions"] if isinstance(doc["questions"], list) else ast.literal_eval(doc["questions"])
            items += [(d, q) for q in qs]
        if name == "lf_quoref" and args.quoref_held:  # questions outside the seeded `size` (the sample looked at)
            seen = {id(q) for _, q in random.Random(2022).sample(items, size)} if size else set()
            items = random.Random(7).sample([it for it in items if id(it[1]) not in seen], args.quoref_held)
        elif size and len(items) > size:  # LF-SQuAD: the first `size` of bench/qa.py's seeded 600-question sample
            items = random.Random(2022).sample(items, 600 if name == "lf_squad" else size)[:size]
        used = sorted({d for d, _ in items})
        store, ids = cached_store(name, [(f"{_slug(docs[d]['title'])}.txt", docs[d]["document"]) for d in used],
                                  args.reuse_store)
        work_of = dict(zip(used, ids))
        from core.config import get_settings
        from core.llm import get_llm
        extractive = Asker(store, get_llm(get_settings().llm), dry_run=True)
        params = QAParams(mode=args.mode, budget_tokens=1000, verbalize="template")
        sample = set(random.Random(args.seed).sample(range(len(items)), min(args.gen_long, len(items))))
        generator = Asker(store, llm_override=args.llm) if sample else None
        scores: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for k, (d, q) in enumerate(items):
            golds = [a for a in q["answers"] if a.strip()]
            ext = extractive.ask(work_of[d], q["question"], params.with_(answer="extractive"))
            scores["extractive"].append(_grade(shown(ext), golds))
            scores["extractive, headline"].append(_grade(headline(ext), golds))
            if k in sample and generator is not None:
                gen = generator.ask(work_of[d], q["question"], params.with_(answer="generate"))
                scores["extractive, sample"].append(scores["extractive"][-1])
                scores["generated"].append(_grade(gen.answer, golds))
                scores["best of two"].append(_grade(pick(ext, gen), golds))
        for key, values in scores.items():
            rows.append({"dataset": label, "answer": key, "n": len(values),
                         "found %": _mean([v[0] for v in values]), "F1": _mean([v[1] for v in values])})
        print(table([r for r in rows if r["dataset"] == label]), flush=True)
        store.engine.dispose()
    return rows


def shown(result: Any) -> str | None:
    """The extractive answer of a dry run (the service's dry run answers nothing and keeps the extraction), or the
    answer of a real one."""
    if result.answer is not None:
        return str(result.answer)
    extraction = getattr(result, "extraction", None)
    return None if extraction is None or not extraction.answer else str(extraction.answer)


def headline(result: Any) -> str | None:
    """What the Ask page shows in bold above the quote: the name, place or time asked for where the reader found
    one, else the extractive answer."""
    extraction = getattr(result, "extraction", None)
    span = getattr(extraction, "span", None) if extraction is not None else None
    return str(span) if span else shown(result)


def shown_supported(result: Any) -> bool:
    """Whether the page would show the extractive answer: the answer check (as the service runs it) passes."""
    if result.support is not None:
        return bool(result.supported)
    answer = shown(result)
    if answer is None:
        return False
    from core.qa.extract import embed_sentences
    from core.qa.support import check_support
    return check_support(answer, [c.text for c in result.plan.citations], question=result.plan.question,
                         embed=embed_sentences).supported is True


def _grade(answer: str | None, golds: list[str]) -> tuple[float, float]:
    """(gold answer found in the answer, best token F1), SQuAD normalisation."""
    text = f" {normalize_answer(answer or '')} "
    found = any(normalize_answer(g) and f" {normalize_answer(g)} " in text for g in golds)
    return float(found), max((token_f1(answer or "", g) for g in golds), default=0.0)


# ---- latency --------------------------------------------------------------------------------------------------------

def latency(args: argparse.Namespace) -> dict[str, Any]:
    from _qa_runs import cached_store
    from _graphrag_stores import LATENCY_QUESTIONS, PRIDE

    from core.config import get_settings
    from core.llm import get_llm
    from core.qa import QAParams, extract
    from core.services.qa_service import Asker
    store, (work_id,) = cached_store("pride", [(PRIDE.name, PRIDE.read_text(encoding="utf-8"))], args.reuse_store)
    asker = Asker(store, get_llm(get_settings().llm), dry_run=True)
    rows = []
    for mode in ("rag", "graph"):
        params = QAParams(mode=mode, budget_tokens=1000, verbalize="template", answer="extractive")
        asker.ask(work_id, LATENCY_QUESTIONS[0], params)  # models, corpus and per-view indexes loaded
        for cache in ("empty", "warm"):
            ms, alone = [], []  # retrieval + extraction; retrieval alone (the baseline, same asks)
            for _ in range(args.repeats):
                for q in LATENCY_QUESTIONS:
                    if cache == "empty":
                        extract._VECTORS.clear()
                    t = asker.ask(work_id, q, params).timings
                    ms.append(t["retrieval_ms"] + t["extract_ms"])
                    alone.append(t["retrieval_ms"])
            ms.sort()
            alone.sort()
            p95 = ms[int(0.95 * (len(ms) - 1))]
            base = alone[int(0.95 * (len(alone) - 1))]
            rows.append({"mode": mode, "sentence cache": cache, "n": len(ms), "p50_ms": round(statistics.median(ms), 1),
                         "p95_ms": round(p95, 1), "max_ms": round(ms[-1], 1), "retrieval_p95_ms": round(base, 1),
                         "p95 / retrieval p95": round(p95 / base, 2) if base else None,
                         "load": round(os.getloadavg()[0], 2)})
            print(table(rows[-1:]), flush=True)
    store.engine.dispose()
    return {"rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="*", default=["graphrag", "long", "latency"])
    parser.add_argument("--mode", default="rag", help="the retrieval mode the questions are asked in")
    parser.add_argument("--tune", action="store_true", help="graphrag: print the dev-half candidates only")
    parser.add_argument("--half", choices=("test", "dev"), default="test", help="graphrag: the half whose answers "
                        "are scored (dev: to choose a constant; the held-back test half is reported)")
    parser.add_argument("--limit", type=int, default=None, help="graphrag: only the first N questions")
    parser.add_argument("--per-type", type=int, default=0, help="graphrag: at most N questions of each type from the "
                        "half in use (a seeded sample; 0: the whole half)")
    parser.add_argument("--gen-per-type", type=int, default=30, help="graphrag: questions per type the embedded "
                        "model answers (a seeded sample of the held-back half)")
    parser.add_argument("--gen-long", type=int, default=60, help="long: questions per set the model answers")
    parser.add_argument("--squad", type=int, default=600, help="long: LF-SQuAD questions (of bench/qa.py's sample)")
    parser.add_argument("--quoref", type=int, default=0, help="long: LF-QUOREF questions, a seeded sample (0: all)")
    parser.add_argument("--quoref-held", type=int, default=0, help="long: instead, N LF-QUOREF questions from outside "
                        "the --quoref sample (a held-back set: the seeded 60 were looked at while the reader was made)")
    parser.add_argument("--llm", default=None, help="the generating model (default: the app's answering model)")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--out", default="answers", help="the results file's name under bench/results")
    parser.add_argument("--repeats", type=int, default=3, help="latency: rounds over the 10 questions")
    parser.add_argument("--cache", type=Path, default=None, help="an .npz of MiniLM vectors kept between runs")
    parser.add_argument("--reuse-store", action="store_true", help="open the newest cached stores even when the "
                        "importer or the offline extractor changed since they were built")
    add_reader_switches(parser)
    args = parser.parse_args()
    switch_reader_rules(args)
    started = time.perf_counter()
    memo = MemoEmbed(args.cache)
    out: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    if "graphrag" in args.parts:
        out["graphrag"] = graphrag(args, memo)
        key = "tuning" if args.tune else "rows"
        print("\nGraphRAG-Bench Novel dev: token F1 x 100\n" + table(out["graphrag"][key]), flush=True)
        memo.save()
    if "long" in args.parts and not args.tune:
        out["long"] = long_documents(args)
    if "latency" in args.parts and not args.tune:
        out["latency"] = latency(args)
    out["seconds"] = round(time.perf_counter() - started, 1)
    path = write_results("answers_tuning" if args.tune else args.out, out)
    print(f"\n{out['seconds']} s; wrote {path}")


if __name__ == "__main__":
    main()
