"""The local LLMs: first (dequantizing) and cached load time, generation speed, and a quality probe that decides
the default local model: token F1 (SQuAD normalisation, best of the two references) on the NarrativeQA summary
questions in ../shared/data/narrativeqa/summaries_qa_dev.jsonl, with each model's best prompt format.

    .venv/bin/python bench/llm.py                  # both models; prints tables, writes bench/results/llm.json
    .venv/bin/python bench/llm.py --budget-s 900   # up to all 50 questions per model and format

Load times are measured in fresh subprocesses against an empty temporary cache (first load) and then the cache it
left (cached load), so nothing already in memory or in data/cache flatters them.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, table, write_results

from core.llm.local import LocalLLM
from core.llm.local_models import LOCAL_MODELS
from core.metrics.token_f1 import token_f1

QA_FILE = SHARED_DATA / "narrativeqa" / "summaries_qa_dev.jsonl"
SPEED_PROMPT = "Once upon a time, in a small village by the sea, there lived an old fisherman who"
# Prompt formats tried for every model (named constants, per ARCHITECTURE principle 3).
CHAT_SYSTEM = "Read this story summary, then answer the question in a few words.\n\n{passage}"
RAW_QA = "{passage}\n\nQuestion: {question}\nAnswer:"
ANSWER_TOKENS = 32


# -- measurements ------------------------------------------------------------------------------------------------

def load_in_subprocess(name: str, cache_dir: Path) -> dict[str, Any]:
    code = ("import json,sys; sys.path.insert(0, sys.argv[3]); from core.llm.local import LocalLLM; "
            "info = LocalLLM(sys.argv[1], cache_dir=sys.argv[2]).load(); "
            "print(json.dumps({'source': info.source, 'seconds': info.seconds}))")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, name, str(cache_dir), str(Path(__file__).parents[1])],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process_seconds"] = round(time.perf_counter() - start, 2)  # including imports of torch/transformers
    return result


def speed(llm: LocalLLM, repeats: int = 3) -> dict[str, float]:
    import torch
    gen_rates = []
    for _ in range(repeats):
        result = llm.generate_text(SPEED_PROMPT, max_tokens=64)
        gen_rates.append(result.output_tokens / result.seconds)
    long_ids = llm.encode(" ".join(json.loads(line)["passage"] for line in QA_FILE.open())[:6000])[:1024]
    start = time.perf_counter()
    with torch.inference_mode():
        llm.model(input_ids=torch.tensor([long_ids]))
    prefill = len(long_ids) / (time.perf_counter() - start)
    return {"gen_tok_s": round(statistics.median(gen_rates), 1), "prompt_tok_s": round(prefill, 1)}


def answer(llm: LocalLLM, fmt: str, item: dict[str, Any]) -> str:
    if fmt == "chat":  # the registry's complete(): chat template, or the plain transcript for base models
        messages = [{"role": "system", "content": CHAT_SYSTEM.format(passage=item["passage"])},
                    {"role": "user", "content": item["question"]}]
        return llm.complete(messages, max_tokens=ANSWER_TOKENS, stop=["\n"]).text
    prompt = RAW_QA.format(passage=item["passage"], question=item["question"])
    return llm.generate_text(prompt, max_tokens=ANSWER_TOKENS, stop=["\n"]).text.strip()


def quality(llm: LocalLLM, fmt: str, items: list[dict[str, Any]], budget_s: float) -> dict[str, Any]:
    """F1 per item, in file order, until the items or the time budget run out (at least 5 items)."""
    scores, lengths, start = [], [], time.perf_counter()
    examples = []
    for item in items:
        if len(scores) >= 5 and time.perf_counter() - start > budget_s:
            break
        prediction = answer(llm, fmt, item)
        scores.append(max(token_f1(prediction, ref) for ref in item["answer"]))
        lengths.append(len(prediction.split()))
        if len(examples) < 3:
            examples.append({"question": item["question"], "prediction": prediction, "references": item["answer"]})
    seconds = time.perf_counter() - start
    return {"format": fmt, "n": len(items), "f1": round(statistics.mean(scores), 4),
            "f1_sem": round(statistics.stdev(scores) / len(scores) ** 0.5, 4) if len(scores) > 1 else None,
            "answer_words": round(statistics.mean(lengths), 1), "s_per_item": round(seconds / len(items), 2),
            "scores": [round(s, 4) for s in scores], "examples": examples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="questions per model and format (max 50)")
    parser.add_argument("--models", nargs="*", default=list(LOCAL_MODELS))
    parser.add_argument("--budget-s", type=float, default=300,
                        help="seconds per model and prompt format; models are compared on the items all finished")
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    items = [json.loads(line) for line in QA_FILE.open(encoding="utf-8")][: args.n]

    load_rows, speed_rows, quality_rows = [], [], []
    with tempfile.TemporaryDirectory(prefix="fabula-bench-llm-") as tmp:
        for name in args.models:
            cache = Path(tmp) / name
            first, cached = load_in_subprocess(name, cache), load_in_subprocess(name, cache)
            assert (first["source"], cached["source"]) == ("gguf", "disk cache"), (first, cached)
            load_rows.append({"model": name, "first_load_s": first["seconds"], "cached_load_s": cached["seconds"],
                              "first_process_s": first["process_seconds"],
                              "cached_process_s": cached["process_seconds"]})
            print(f"{name}: loaded", load_rows[-1], flush=True)
            llm = LocalLLM(name, cache_dir=cache)
            llm.load()
            speed_rows.append({"model": name, **speed(llm)})
            print(f"{name}: speed", speed_rows[-1], flush=True)
            for fmt in ("chat", "qa"):
                quality_rows.append({"model": name, **quality(llm, fmt, items, args.budget_s)})
                q = quality_rows[-1]
                print(f"{name} [{fmt}]: F1 {q['f1']:.3f} ± {q['f1_sem']} on n={q['n']}, {q['s_per_item']} s/item",
                      flush=True)

    # compare on the questions every model and format finished (same items for all)
    n_common = min(r["n"] for r in quality_rows)
    for row in quality_rows:
        common = row["scores"][:n_common]
        row["f1_common"] = round(statistics.mean(common), 4)
        row["f1_common_sem"] = round(statistics.stdev(common) / n_common ** 0.5, 4) if n_common > 1 else None
    best: dict[str, dict[str, Any]] = {}
    for row in quality_rows:
        if row["model"] not in best or row["f1_common"] > best[row["model"]]["f1_common"]:
            best[row["model"]] = row
    winner = max(best.values(), key=lambda r: r["f1_common"])["model"]
    print("\n" + table(load_rows))
    print("\n" + table(speed_rows))
    print("\n" + table([{k: r[k] for k in ("model", "format", "n", "f1", "f1_common", "f1_common_sem",
                                             "answer_words", "s_per_item")} for r in quality_rows]))
    print(f"\ndefault local model by F1 on the {n_common} common questions (best format each): local:{winner}")
    import torch
    import transformers
    path = write_results("llm", {"torch": torch.__version__, "transformers": transformers.__version__,
                                 "torch_threads": torch.get_num_threads(),
                                 "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
                                 "load_avg_at_bench_start": load_at_start, "load_avg_at_end": os.getloadavg()[0], "qa_file": str(QA_FILE.name),
                                 "n_common": n_common, "budget_s_per_format": args.budget_s,
                                 "load": load_rows, "speed": speed_rows, "quality": quality_rows,
                                 "best_format": {m: r["format"] for m, r in best.items()},
                                 "winner": f"local:{winner}"})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
