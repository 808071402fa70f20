"""GraphRAG-Bench with a model: Fabula's modes answer Novel questions with `--llm`, and `--judge` scores the answers
with the benchmark's answer accuracy (`graphrag_bench.py --parts answers`).

Answer accuracy, as GraphRAG-Bench defines it (Evaluation/metrics/answer_accuracy.py; prompts here are our own):
    accuracy   = 0.75 * factuality + 0.25 * similarity
    factuality = F1 over statements: the judge splits the answer and the ground truth each into standalone
                 statements (no pronouns; a JSON list), then sorts them into TP (answer statements the ground truth
                 supports), FP (answer statements it does not) and FN (ground-truth statements the answer lacks);
                 F1 = TP / (TP + 0.5 (FP + FN)); both lists empty = 1. Malformed judge output scores 0 (as theirs
                 does) and is counted per mode.
    similarity = (cos(e(answer), e(ground truth)) + 1) / 2, with Fabula's MiniLM (core.nlp.embed) where the
                 benchmark uses bge-large, so this quarter of the score is not identical to theirs.
Means are taken per question type, then the plain mean over the four types ("all"), the way the paper's table does.
Token F1 (SQuAD normalisation, x100) against the gold answer needs no judge and is always reported.

Each mode is asked through the app's own door (core.services.qa_service.Asker, real answers, the app's answer
length); kg modes verbalize facts with the answering model (QAParams' default). Where the store has no NARCO edges,
narco ranks exactly as rag-dense (eq. 2 adds nothing), which is checked on the prompts and reported instead of
re-running the model.

    .venv/bin/python bench/graphrag_bench.py --parts answers --n 20 --out graphrag_bench_answers
    OPENAI_API_KEY=... .venv/bin/python bench/graphrag_bench.py --parts answers --llm openai:gpt-4o-mini \\
        --judge openai:gpt-4o-mini --n 200 --out graphrag_bench_answers
"""
from __future__ import annotations

import json
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _common import table  # noqa: E402

TYPES = ("Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation")
SHORT = {"Fact Retrieval": "fact", "Complex Reasoning": "reason", "Contextual Summarize": "summ",
         "Creative Generation": "creative"}
WEIGHTS = (0.75, 0.25)  # factuality, semantic similarity (the benchmark's answer_correctness weights)
JUDGE_MAX_TOKENS = 2048

SPLIT_PROMPT = """Rewrite the answer below as a list of short statements, one fact each, so that every statement \
can be understood on its own: replace each pronoun with the name or thing it stands for, keep the answer's \
meaning, add nothing it does not say.

Reply with a JSON list of strings and nothing else, for example:
["Jacob Marley was Scrooge's business partner.", "Jacob Marley died seven years before the story begins."]

Question: {question}
Answer: {text}
Statements:"""

CLASSIFY_PROMPT = """You compare an answer with the ground truth, both given as lists of statements.
Put each answer statement in exactly one of these lists:
  "TP": the ground truth directly supports it (one or more ground-truth statements say it);
  "FP": the ground truth does not directly support it (it is wrong, or the ground truth does not say it).
Put each ground-truth statement that the answer does not contain in:
  "FN": the answer misses it.
Give a short reason for each.

Example
Question: Who paid for Pip's education?
Answer statements: ["Magwitch paid for Pip's education.", "Miss Havisham raised Estella."]
Ground-truth statements: ["Magwitch paid for Pip's education.", "Magwitch was a transported convict."]
Output: {{"TP": [{{"statement": "Magwitch paid for Pip's education.", "reason": "stated in the ground truth"}}], \
"FP": [{{"statement": "Miss Havisham raised Estella.", "reason": "the ground truth does not say this"}}], \
"FN": [{{"statement": "Magwitch was a transported convict.", "reason": "the answer does not mention it"}}]}}

Now this one. Reply with one JSON object with the keys "TP", "FP" and "FN" and nothing else.
Question: {question}
Answer statements: {answer}
Ground-truth statements: {truth}
Output:"""

# The paper's Table 3 (Novel, gpt-4o-mini reading and judging; accuracy x100, plain mean over the four types), as
# quoted in ../shared/data/graphrag_bench_novel/README.md; measured on all 20 Novel books, not on this sample.
PUBLISHED = {"RAG (w/ rerank)": 48.4, "MS-GraphRAG (local)": 50.9, "LightRAG": 45.1, "RAPTOR": 43.2,
             "HippoRAG 2": 56.5, "fast-graphrag": 52.0}

_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)
_LIST_KEYS = ("statements", "answers", "items", "list", "output", "result")


# ---- the judge -------------------------------------------------------------------------------------------------------

def parse_json(text: str) -> Any | None:
    """The first JSON value in a model's reply: inside a code fence if there is one, else the whole reply, else the
    first '[' or '{' that starts a valid value. None when there is none."""
    candidates = [m.group(1) for m in _FENCE.finditer(text or "")] + [text or ""]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        candidate = candidate.strip()
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            pass
        for start, ch in enumerate(candidate):
            if ch in "[{":
                try:
                    return decoder.raw_decode(candidate, start)[0]
                except json.JSONDecodeError:
                    continue
    return None


def as_statements(value: Any) -> list[str] | None:
    """A list of statements from parsed judge output (a list, or a dict holding one); None when malformed."""
    if isinstance(value, dict):
        value = next((value[k] for k in (*_LIST_KEYS, *value) if isinstance(value.get(k), list)), None)
    if not isinstance(value, list):
        return None
    out = [str(s.get("statement", "")) if isinstance(s, dict) else str(s) for s in value]
    return [s.strip() for s in out if s.strip()]


def as_counts(value: Any) -> tuple[int, int, int] | None:
    """(TP, FP, FN) from parsed classification output; None when malformed (not an object, no key, a non-list)."""
    if not isinstance(value, dict):
        return None
    lists = {k.upper(): v for k, v in value.items() if isinstance(k, str) and k.upper() in ("TP", "FP", "FN")}
    if not lists or any(not isinstance(v, list) for v in lists.values()):
        return None
    tp, fp, fn = (len(lists.get(k, [])) for k in ("TP", "FP", "FN"))
    return tp, fp, fn


def f1_of(tp: int, fp: int, fn: int) -> float:
    """TP / (TP + 0.5 (FP + FN)): the benchmark's F-beta with beta 1 (0 when nothing was classified)."""
    denominator = tp + 0.5 * (fp + fn)
    return tp / denominator if denominator else 0.0


@dataclass
class Judged:
    accuracy: float
    factuality: float
    similarity: float
    tp: int = 0
    fp: int = 0
    fn: int = 0
    malformed: str | None = None  # which judge step returned unusable output ("answer split", ...); None: all fine


class Judge:
    """The benchmark's answer accuracy with one judging LLM (temperature 0) and an embedder (MiniLM by default)."""

    def __init__(self, llm: Any, embed: Callable[[Sequence[str]], Any] | None = None,
                 weights: tuple[float, float] = WEIGHTS) -> None:
        from core.nlp import embed as minilm
        self.llm, self.embed, self.weights = llm, embed or minilm, weights

    def _ask(self, prompt: str) -> Any | None:
        reply = self.llm.complete([{"role": "user", "content": prompt}], temperature=0.0, max_tokens=JUDGE_MAX_TOKENS)
        return parse_json(reply.text)

    def statements(self, question: str, text: str) -> list[str] | None:
        if not text.strip():
            return []
        return as_statements(self._ask(SPLIT_PROMPT.format(question=question, text=text)))

    def classify(self, question: str, answer: list[str], truth: list[str]) -> tuple[int, int, int] | None:
        return as_counts(self._ask(CLASSIFY_PROMPT.format(
            question=question, answer=json.dumps(answer, ensure_ascii=False),
            truth=json.dumps(truth, ensure_ascii=False))))

    def similarity(self, answer: str, truth: str) -> float:
        import numpy as np
        a, b = np.asarray(self.embed([answer or " ", truth or " "]), dtype=np.float64)
        cosine = float(a @ b / ((np.linalg.norm(a) * np.linalg.norm(b)) or 1.0))
        return (cosine + 1) / 2

    def factuality(self, question: str, answer: str, truth: str) -> tuple[float, tuple[int, int, int], str | None]:
        answer_statements = self.statements(question, answer)
        if answer_statements is None:
            return 0.0, (0, 0, 0), "answer split"
        truth_statements = self.statements(question, truth)
        if truth_statements is None:
            return 0.0, (0, 0, 0), "ground-truth split"
        if not answer_statements or not truth_statements:  # nothing to compare: agree only when both are empty
            return float(not answer_statements and not truth_statements), (0, len(answer_statements),
                                                                          len(truth_statements)), None
        counts = self.classify(question, answer_statements, truth_statements)
        if counts is None:
            return 0.0, (0, 0, 0), "classification"
        return f1_of(*counts), counts, None

    def score(self, question: str, answer: str, truth: str) -> Judged:
        fact, (tp, fp, fn), malformed = self.factuality(question, answer or "", truth)
        sim = self.similarity(answer or "", truth)
        accuracy = self.weights[0] * fact + self.weights[1] * sim
        return Judged(round(accuracy, 4), round(fact, 4), round(sim, 4), tp, fp, fn, malformed)


def build_judge(store: Any, name: str) -> Judge:
    """A Judge on the model `name`, through the app's one door for models (metered into `store`)."""
    from core.services import llm_service
    return Judge(llm_service.build_llm(store, "answering", name))


# ---- means per type ------------------------------------------------------------------------------------------------

def type_means(values: Iterable[tuple[str, float]]) -> dict[str, float]:
    """{type: mean of its values} for the types that have values, plus "all": the plain mean over those types
    (each type weighs the same however many questions it has, as in the benchmark's table)."""
    by_type: dict[str, list[float]] = defaultdict(list)
    for question_type, value in values:
        by_type[question_type].append(value)
    means = {t: statistics.mean(by_type[t]) for t in TYPES if by_type.get(t)}
    means |= {t: statistics.mean(v) for t, v in by_type.items() if t not in means}  # a type outside the four
    if means:
        means["all"] = statistics.mean(means.values())
    return means


def mode_row(mode: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    """One table row: token F1 and (when judged) accuracy, x100, "all" then per type; seconds per question."""
    row: dict[str, Any] = {"mode": mode, "n": len(records)}
    for key, label in (("f1", "f1"), ("accuracy", "acc")):
        pairs = [(r["type"], r[key]) for r in records if r.get(key) is not None]
        if not pairs:
            continue
        means = type_means(pairs)
        row[f"{label}_all"] = round(100 * means["all"], 1)
        for t in TYPES:
            if t in means:
                row[f"{label}_{SHORT[t]}"] = round(100 * means[t], 1)
    if any(r.get("judge") for r in records):
        row["malformed"] = sum(1 for r in records if (r.get("judge") or {}).get("malformed"))
    row["s_per_q"] = round(statistics.mean(r["seconds"] for r in records), 1) if records else None
    row["note"] = ""
    return row


# ---- answering -----------------------------------------------------------------------------------------------------

def sample_questions(questions: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """A seeded sample of n questions spread evenly over the question types (a type with too few gives its share to
    the others), in a seeded order."""
    rng = random.Random(seed)
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_type[q["question_type"]].append(q)
    pools = {t: rng.sample(qs, len(qs)) for t, qs in sorted(by_type.items())}
    chosen: list[dict[str, Any]] = []
    while len(chosen) < min(n, len(questions)):
        for pool in pools.values():  # round robin: equal shares, then whatever is left
            if pool and len(chosen) < n:
                chosen.append(pool.pop())
    rng.shuffle(chosen)
    return chosen


def run_answers(store: Any, work_of: dict[str, int], questions: list[dict[str, Any]],
                modes: dict[str, dict[str, Any]], llm_name: str | None, judge_name: str | None = None,
                budget: int = 1000, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Every question answered in every mode (QAParams kwargs per mode name) with `llm_name` (None: the app's
    answering model), token F1 against the gold answer, and the judged accuracy when `judge_name` is given."""
    from core.metrics.token_f1 import token_f1
    from core.qa import QAParams
    from core.qa.answer import generate_answer
    from core.services.qa_corpus import load_corpus
    from core.services.qa_service import Asker

    asker = Asker(store, llm_override=llm_name)
    planner = Asker(store, asker.llm, dry_run=True)
    judge = build_judge(store, judge_name) if judge_name else None
    params = {m: QAParams(budget_tokens=budget, **kw) for m, kw in modes.items()}
    edges = sum(len(load_corpus(store, w).edges) for w in {work_of[q["source"]] for q in questions})
    # narco without edges ranks as rag-dense: copied from it when the prompts are identical (checked, cheap)
    copies = {m: "rag-dense" for m, p in params.items()
              if p.mode == "narco" and not edges and "rag-dense" in params and _same_prompts(
                  planner, work_of, questions, p, params["rag-dense"])}
    t0 = time.perf_counter()
    generate_answer(asker.llm, "Say OK.", 2)  # load the model outside the timings
    for q in questions:  # warm each work's corpus and indexes outside the timings
        for p in params.values():
            planner.ask(work_of[q["source"]], q["question"], p)
    log(f"  model and {len(work_of)} works loaded in {time.perf_counter() - t0:.0f} s")
    records: dict[str, list[dict[str, Any]]] = {m: [] for m in params if m not in copies}
    for n, q in enumerate(questions, 1):
        for mode in records:
            start = time.perf_counter()
            result = asker.ask(work_of[q["source"]], q["question"], params[mode])
            seconds = time.perf_counter() - start
            answer = result.answer or ""
            record = {"id": q.get("id"), "type": q["question_type"], "source": q["source"], "question": q["question"],
                      "gold": q["answer"], "answer": answer, "seconds": round(seconds, 2),
                      "f1": round(token_f1(answer, q["answer"]), 4), "verbalized_by": result.verbalized_by,
                      "timings_ms": result.timings}
            if judge is not None:
                judged = judge.score(q["question"], answer, q["answer"])
                record |= {"accuracy": judged.accuracy, "judge": asdict(judged)}
            records[mode].append(record)
        log(f"  {n}/{len(questions)} questions ({time.perf_counter() - t0:.0f} s) {q['question_type']}: "
            + ", ".join(f"{m} F1 {100 * r[-1]['f1']:.0f} in {r[-1]['seconds']:.0f} s" for m, r in records.items()))
    measured = {m: mode_row(m, r) for m, r in records.items()}
    rows = [measured[m] if m in measured else {**measured[copies[m]], "mode": m,
                                                "note": f"no NARCO edges: same prompts as {copies[m]}"}
            for m in params]
    counts = {t: sum(1 for q in questions if q["question_type"] == t) for t in TYPES}
    return {"llm": asker.llm.name, "judge": judge.llm.name if judge else None, "n": len(questions),
            "per_type_n": counts, "budget": budget, "narco_edges": edges, "copied": copies,
            "similarity_embedder": "all-MiniLM-L6-v2 (the benchmark uses bge-large)" if judge else None,
            "rows": rows, "published_acc_all": PUBLISHED, "answers": records}


def _same_prompts(planner: Any, work_of: dict[str, int], questions: list[dict[str, Any]], a: Any, b: Any) -> bool:
    return all(planner.ask(work_of[q["source"]], q["question"], a).plan.prompt
               == planner.ask(work_of[q["source"]], q["question"], b).plan.prompt for q in questions)


def answer_phase(args: Any) -> dict[str, Any]:
    """The bench's part "answers": a stratified seeded sample of `args.n` Novel questions, every mode of
    graphrag_bench.MODES (kg modes with the default LLM verbalizer), on the cached store of the 10 books."""
    import _graphrag_stores as gb
    questions = [json.loads(line) for line in (gb.BENCH_DIR / "questions.jsonl").open(encoding="utf-8")
                 if line.strip()]
    books = sorted({q["source"] for q in questions})  # all 10 books: the same cached store as the model-free part
    docs = [(f"{b}.txt", (gb.BENCH_DIR / "books" / f"{b}.txt").read_text(encoding="utf-8")) for b in books]
    store, ids = gb.open_store("novel", docs, args.rebuild)
    modes = {m: {k: v for k, v in gb.MODES[m].items() if k != "verbalize"} for m in gb.selected(args)}
    sample = sample_questions(questions, args.n, gb.SEED)
    try:
        return run_answers(store, dict(zip(books, ids)), sample, modes, args.llm, args.judge, args.budget)
    finally:
        store.engine.dispose()


def report(result: dict[str, Any]) -> str:
    judge = f", judged by {result['judge']}" if result["judge"] else " (no --judge: token F1 only)"
    text = (f"GraphRAG-Bench Novel, {result['n']} questions {result['per_type_n']}, answers by {result['llm']}{judge}; "
            f"x100, 'all' = plain mean over the types\n" + table(result["rows"]))
    if result["judge"]:
        text += ("\n\nPublished (paper Table 3, gpt-4o-mini reads and judges, all 20 Novel books): accuracy, mean over "
                 "the types\n" + table([{"system": k, "acc_all": v} for k, v in PUBLISHED.items()]))
    return text
