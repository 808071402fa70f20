"""The embedded models on the three generation runtimes, side by side in one run: transformers (float32, dequantized
from the GGUF), llama.cpp (Gemma's Q4_K_M GGUF as shipped, a Q8_0 copy of SmolLM2's Q4_1; flash attention on) and
OpenVINO (the float32 model exported with 8-bit weights, bfloat16 arithmetic; core/llm/openvino_export.py).

For each model and runtime: first and cached load time (fresh subprocesses, an empty temporary cache, then the cache
it left), generated tokens/s (greedy, 64 tokens) and prompt tokens/s (one 1,024-token prompt, evaluated as generation's
prefill does: logits of the last position only), each runtime alone in a fresh process, the median of 5 turns taken
alternately on the runtimes (each turn: generation median of 3, prompt best of 2; `--turns`), prompt tokens/s of a
whole call whose prompt shares its first three quarters with the call before (`prefix_rate`; best of 2), the
perplexity of the same reference continuations (novel passages: 192 tokens of context, 64 scored), how often greedy
text is identical, and the token-F1 probe (SQuAD normalisation, best of the two references) on the NarrativeQA
summary questions in ../shared/data/narrativeqa/summaries_qa_dev.jsonl, in the chat format.

    .venv/bin/python bench/llm.py                  # both models; prints tables, writes bench/results/llm.json
    .venv/bin/python bench/llm.py --n 20 --budget-s 120 --models smollm2
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, table, write_results

from core.llm import openvino_rt, runtimes
from core.llm.decoding import cpu_threads
from core.llm.local import LocalLLM
from core.llm.local_models import LOCAL_MODELS, fast_gguf_file
from core.metrics.token_f1 import token_f1

QA_FILE = SHARED_DATA / "narrativeqa" / "summaries_qa_dev.jsonl"
NOVELS = SHARED_DATA / "novels" / "txt"
SPEED_PROMPT = "Once upon a time, in a small village by the sea, there lived an old fisherman who"
CHAT_SYSTEM = "Read this story summary, then answer the question in a few words."
ANSWER_TOKENS = 32
CONTEXT_TOKENS, SCORED_TOKENS, N_REFERENCES = 192, 64, 24
GREEDY_TOKENS = 32
RUNTIMES = ("transformers", "llama.cpp", "openvino")


def use(runtime: str) -> None:
    os.environ[runtimes.RUNTIME_ENV] = runtime


def load_in_subprocess(name: str, runtime: str, cache_dir: Path) -> dict[str, Any]:
    code = ("import json,sys; sys.path.insert(0, sys.argv[3]); from core.llm.local import LocalLLM; "
            "info = LocalLLM(sys.argv[1], cache_dir=sys.argv[2]).warm(); "
            "print(json.dumps({'source': info.source, 'seconds': info.seconds}))")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, name, str(cache_dir), str(Path(__file__).parents[1])],
                         capture_output=True, text=True, check=True, env={**os.environ, runtimes.RUNTIME_ENV: runtime})
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process_seconds"] = round(time.perf_counter() - start, 2)  # with the imports (torch, llama.cpp)
    return result


def forget_prefix(llm: LocalLLM) -> None:
    """Make the fast path evaluate the next prompt in full (it would reuse the KV cache of an identical prefix)."""
    fast = llm._fast()
    if isinstance(fast, openvino_rt.OVModel):
        openvino_rt.forget(fast)
    elif fast is not None:
        fast.llama.reset()


def gen_rate(llm: LocalLLM) -> float:
    forget_prefix(llm)
    result = llm.generate_text(SPEED_PROMPT, max_tokens=64)
    return result.output_tokens / result.seconds


def prompt_rate(llm: LocalLLM, runtime: str, long_ids: list[int]) -> float:
    start = time.perf_counter()
    fast = llm._fast()
    if runtime == "llama.cpp":
        fast.llama.reset()
        fast.llama.eval(long_ids)
    elif runtime == "openvino":
        openvino_rt.forget(fast)
        openvino_rt.evaluate(fast, long_ids)
    else:
        import torch
        with torch.inference_mode():  # as generate()'s prefill does it: logits for the last position only
            llm.model(input_ids=torch.tensor([long_ids]), logits_to_keep=1)
    return len(long_ids) / (time.perf_counter() - start)


def prefix_rate(llm: LocalLLM, text: str) -> float:
    """Prompt tokens/s of a whole call whose prompt shares its first three quarters with the previous prompt (another
    question on the same passages; the writer's next chapter after the story so far): the runtimes that keep a
    prefix read only the rest. One token is generated."""
    forget_prefix(llm)
    llm.generate_text(text[: 3 * len(text) // 4] + " Meanwhile, elsewhere,", max_tokens=1)
    result = llm.generate_text(text, max_tokens=1)
    return result.input_tokens / result.seconds


def speed_worker(name: str, runtime: str, cache_dir: str, ids_file: str) -> None:
    """One runtime alone in a fresh process (`--speed-worker`): the other runtime's threads are not there to compete,
    as they would be in one process (each OpenMP runtime keeps its threads spinning for a while after its work)."""
    use(runtime)
    llm = LocalLLM(name, cache_dir=cache_dir)
    llm.load() if runtime == "transformers" else llm.warm()
    long_ids = json.loads(Path(ids_file).read_text())
    gen_rate(llm)  # warm-up: first-call allocations
    gens = [gen_rate(llm) for _ in range(3)]
    prompts = [prompt_rate(llm, runtime, long_ids) for _ in range(2)]
    text = llm.decode(long_ids)
    prefixes = [prefix_rate(llm, text) for _ in range(2)]
    print(json.dumps({"gen": statistics.median(gens), "prompt": max(prompts), "prefix": max(prefixes)}))


def speeds(name: str, cache_dir: Path, long_ids: list[int], turns: int = 5) -> dict[str, dict[str, Any]]:
    """Generation and prompt tokens/s of both runtimes, each in its own fresh process, in turns (transformers,
    llama.cpp, transformers, …) so that a busy spell on a shared machine falls on both; the median of the turns, and
    each turn's ratio."""
    ids_file = cache_dir / f"{name}-speed-ids.json"
    ids_file.write_text(json.dumps(long_ids))
    gen: dict[str, list[float]] = {r: [] for r in RUNTIMES}
    prompt: dict[str, list[float]] = {r: [] for r in RUNTIMES}
    prefix: dict[str, list[float]] = {r: [] for r in RUNTIMES}
    for _ in range(turns):
        for runtime in RUNTIMES:
            out = subprocess.run([sys.executable, __file__, "--speed-worker", name, runtime, str(cache_dir),
                                  str(ids_file)], capture_output=True, text=True, check=True)
            result = json.loads(out.stdout.strip().splitlines()[-1])
            gen[runtime].append(result["gen"])
            prompt[runtime].append(result["prompt"])
            prefix[runtime].append(result["prefix"])
    out_rows: dict[str, dict[str, Any]] = {}
    for runtime in RUNTIMES:
        out_rows[runtime] = {
            "gen_tok_s": round(statistics.median(gen[runtime]), 1),
            "prompt_tok_s": round(statistics.median(prompt[runtime]), 1),
            "prefix_tok_s": round(statistics.median(prefix[runtime]), 1),
            "gen_runs": [round(x, 1) for x in gen[runtime]], "prompt_runs": [round(x, 1) for x in prompt[runtime]],
            "gen_x_per_turn": [round(a / b, 2) for a, b in zip(gen[runtime], gen["transformers"])],
            "prompt_x_per_turn": [round(a / b, 2) for a, b in zip(prompt[runtime], prompt["transformers"])]}
    return out_rows


def references(llm: LocalLLM) -> list[tuple[list[int], list[int]]]:
    """(context ids, continuation ids) from the novels: one window from the middle of each, then a second."""
    out = []
    books = sorted(NOVELS.glob("*.txt"))
    for round_ in range(2):
        for book in books:
            text = book.read_text(encoding="utf-8", errors="replace")
            start = len(text) // 3 + round_ * len(text) // 4
            ids = llm.encode(text[start:start + 4000], add_special_tokens=False)[5:5 + CONTEXT_TOKENS + SCORED_TOKENS]
            out.append((ids[:CONTEXT_TOKENS], ids[CONTEXT_TOKENS:]))
            if len(out) == N_REFERENCES:
                return out
    return out


def continuation_nll(llm: LocalLLM, runtime: str, refs: list[tuple[list[int], list[int]]], scorer: Any) -> float:
    """Mean negative log-likelihood per scored token over all references."""
    import numpy as np
    import torch
    total, count = 0.0, 0
    for ctx, cont in refs:
        ids = ctx + cont
        if runtime == "llama.cpp":
            scorer.reset()
            scorer.eval(ids)
            logits = np.array(scorer.scores[len(ctx) - 1:len(ids) - 1], dtype=np.float64)
        elif runtime == "openvino":  # one token at a time after the context: the model gives last logits only
            use(runtime)
            fast = llm._fast()
            openvino_rt.forget(fast)
            steps = [openvino_rt.evaluate(fast, ctx)] + [openvino_rt.evaluate(fast, [t]) for t in cont[:-1]]
            logits = np.array(steps, dtype=np.float64)
        else:
            with torch.inference_mode():
                logits = llm.model(input_ids=torch.tensor([ids])).logits[0, len(ctx) - 1:len(ids) - 1].double().numpy()
        top = logits.max(axis=1, keepdims=True)
        logz = (top + np.log(np.exp(logits - top).sum(axis=1, keepdims=True)))[:, 0]
        picked = logits[np.arange(len(cont)), cont]
        total += float((logz - picked).sum())
        count += len(cont)
    return total / count


def greedy_texts(llm: LocalLLM, runtime: str, refs: list[tuple[list[int], list[int]]]) -> list[str]:
    use(runtime)
    texts = []
    for ctx, _ in refs:
        forget_prefix(llm)
        texts.append(llm.generate_text(llm.decode(ctx), max_tokens=GREEDY_TOKENS).text)
    return texts


def quality(llm: LocalLLM, runtime: str, items: list[dict[str, Any]], budget_s: float) -> dict[str, Any]:
    """F1 per item in file order until the items or the time budget run out (at least 5 items)."""
    use(runtime)
    scores, start, examples = [], time.perf_counter(), []
    for item in items:
        if len(scores) >= 5 and time.perf_counter() - start > budget_s:
            break
        messages = [{"role": "system", "content": f"{CHAT_SYSTEM}\n\n{item['passage']}"},
                    {"role": "user", "content": item["question"]}]
        prediction = llm.complete(messages, max_tokens=ANSWER_TOKENS, stop=["\n"]).text
        scores.append(max(token_f1(prediction, ref) for ref in item["answer"]))
        if len(examples) < 2:
            examples.append({"question": item["question"], "prediction": prediction, "references": item["answer"]})
    return {"n": len(scores), "scores": [round(s, 4) for s in scores], "examples": examples,
            "s_per_item": round((time.perf_counter() - start) / len(scores), 2)}


def mean_sem(values: list[float]) -> tuple[float, float | None]:
    sem = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else None
    return round(statistics.mean(values), 4), (round(sem, 4) if sem is not None else None)


def bench_model(name: str, items: list[dict[str, Any]], budget_s: float, tmp: Path,
                turns: int = 5) -> list[dict[str, Any]]:
    import llama_cpp
    rows: dict[str, dict[str, Any]] = {}
    for runtime in RUNTIMES:
        cache = tmp / f"{name}-{runtime}"
        first, cached = load_in_subprocess(name, runtime, cache), load_in_subprocess(name, runtime, cache)
        rows[runtime] = {"model": name, "runtime": runtime, "first_load_s": first["seconds"],
                         "cached_load_s": cached["seconds"], "first_process_s": first["process_seconds"],
                         "cached_process_s": cached["process_seconds"], "load_sources": [first["source"],
                                                                                         cached["source"]]}
        print(f"{name} [{runtime}]: loaded", rows[runtime], flush=True)
    llm = LocalLLM(name, cache_dir=tmp / f"{name}-transformers")
    llm.load()
    use("llama.cpp")
    llm.warm()
    long_text = " ".join(json.loads(line)["passage"] for line in QA_FILE.open(encoding="utf-8"))[:8000]
    long_ids = llm.encode(long_text)[:1024]
    refs = references(llm)
    gguf = fast_gguf_file(name, tmp / f"{name}-transformers")  # the file the llama.cpp path generates from
    scorer = llama_cpp.Llama(model_path=str(gguf), n_ctx=512, n_batch=512, logits_all=True, flash_attn=True,
                             n_threads=cpu_threads(), verbose=False)  # as core/llm/llamacpp.py loads it
    texts = {}
    for runtime, measured in speeds(name, tmp / f"{name}-transformers", long_ids, turns).items():
        rows[runtime].update(measured)
    for runtime in RUNTIMES:
        nll = continuation_nll(llm, runtime, refs, scorer)
        rows[runtime].update({"nll": round(nll, 4), "perplexity": round(math.exp(nll), 3)})
        texts[runtime] = greedy_texts(llm, runtime, refs[:12])
        print(f"{name} [{runtime}]: speed and perplexity", {k: rows[runtime][k] for k in
                                                           ("gen_tok_s", "prompt_tok_s", "perplexity")}, flush=True)
    scorer.close()
    for runtime in RUNTIMES:
        q = quality(llm, runtime, items, budget_s)
        rows[runtime].update({"qa_n": q["n"], "qa_scores": q["scores"], "qa_examples": q["examples"],
                              "qa_s_per_item": q["s_per_item"]})
        print(f"{name} [{runtime}]: QA n={q['n']}, {q['s_per_item']} s/item", flush=True)
    n = min(rows[r]["qa_n"] for r in RUNTIMES)  # compare on the questions both finished
    base = rows["transformers"]
    for runtime in RUNTIMES:
        row = rows[runtime]
        row["f1"], row["f1_sem"] = mean_sem(row["qa_scores"][:n])
        row["qa_n_common"] = n
        row["gen_x"] = round(row["gen_tok_s"] / base["gen_tok_s"], 2)
        row["prompt_x"] = round(row["prompt_tok_s"] / base["prompt_tok_s"], 2)
        row["prefix_x"] = round(row["prefix_tok_s"] / base["prefix_tok_s"], 2)
        row["perplexity_change_pct"] = round(100 * (row["perplexity"] / base["perplexity"] - 1), 2)
        same = sum(a == b for a, b in zip(texts["transformers"], texts[runtime]))
        row["greedy_identical"] = f"{same}/{len(texts[runtime])}"
        if runtime != "transformers":
            row["greedy_examples"] = [{"transformers": a, runtime: b} for a, b in
                                      zip(texts["transformers"][:3], texts[runtime][:3])]
    return [rows[r] for r in RUNTIMES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="QA questions per model and runtime (max 50)")
    parser.add_argument("--models", nargs="*", default=list(LOCAL_MODELS))
    parser.add_argument("--budget-s", type=float, default=300, help="QA seconds per model and runtime")
    parser.add_argument("--turns", type=int, default=5, help="speed turns per runtime (medians are reported)")
    parser.add_argument("--speed-worker", nargs=4, metavar=("NAME", "RUNTIME", "CACHE", "IDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.speed_worker:
        speed_worker(*args.speed_worker)
        return
    load_at_start = os.getloadavg()[0]
    items = [json.loads(line) for line in QA_FILE.open(encoding="utf-8")][: args.n]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="fabula-bench-llm-") as tmp:
        for name in args.models:
            rows += bench_model(name, items, args.budget_s, Path(tmp), args.turns)
    print("\n" + table(rows, ["model", "runtime", "first_load_s", "cached_load_s", "cached_process_s", "gen_tok_s",
                              "gen_x", "prompt_tok_s", "prompt_x", "prefix_tok_s", "prefix_x"]))
    print("\n" + table(rows, ["model", "runtime", "perplexity", "perplexity_change_pct", "greedy_identical",
                              "qa_n_common", "f1", "f1_sem", "qa_s_per_item"]))
    import llama_cpp
    import torch
    import transformers
    path = write_results("llm", {"torch": torch.__version__, "transformers": transformers.__version__,
                                 "llama_cpp_python": llama_cpp.__version__,
                                 "llama_cpp_system": llama_cpp.llama_print_system_info().decode().strip(),
                                 "torch_threads": torch.get_num_threads(), "llama_threads": cpu_threads(),
                                 "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
                                 "load_avg_at_bench_start": load_at_start, "load_avg_at_end": os.getloadavg()[0],
                                 "qa_file": QA_FILE.name, "budget_s": args.budget_s, "turns": args.turns,
                                 "rows": rows})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
