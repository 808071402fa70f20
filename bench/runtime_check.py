"""Does each local runtime generate on this CPU, and how fast? One fresh process per model and runtime (as the app
starts one), greedy, a 96-token reply to one chat prompt, best of 3 after a warm-up; a figure is tokens/s of
output. The quick check behind issue 36 ("FABULA_LOCAL_RUNTIME=llama.cpp generates on this CPU kind"); bench/llm.py
is the full comparison. Writes bench/results/runtime_check.json.

    .venv/bin/python bench/runtime_check.py [--models smollm2 gemma3-270m]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIMES = ("transformers", "llama.cpp", "openvino")
PROMPT = "Tell the story of a lighthouse keeper who finds a message in a bottle."


def _one(model: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from core.llm.base import GenerationOptions
    from core.llm.local import LocalLLM
    t0 = time.perf_counter()
    llm = LocalLLM(model, cache_dir=str(ROOT / "data" / "cache"))
    messages = [{"role": "user", "content": PROMPT}]
    llm.complete(messages, GenerationOptions(max_tokens=8, temperature=0.0))   # the load and a warm-up
    load = time.perf_counter() - t0
    runs = [llm.complete(messages, GenerationOptions(max_tokens=96, temperature=0.0)) for _ in range(3)]
    return {"model": model, "runtime": llm.runtime, "load_and_warmup_s": round(load, 2),
            "tokens": runs[-1].output_tokens, "tok_per_s": round(max(c.output_tokens / c.seconds for c in runs), 1),
            "text": runs[-1].text[:80]}


def _cpu() -> str:
    info = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    name = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), "")
    model = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model\t")), "")
    amx = sorted({w for w in info.split() if w.startswith("amx")})
    return f"{name or platform.processor()} (model {model}; AMX flags: {', '.join(amx) or 'none'}), {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="*", default=["smollm2", "gemma3-270m"])
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(args.one)))
        return 0
    rows, load_start = [], os.getloadavg()[0]
    for model in args.models:
        for runtime in RUNTIMES:
            done = subprocess.run([sys.executable, __file__, "--one", model], capture_output=True, text=True,
                                  env={**os.environ, "FABULA_LOCAL_RUNTIME": runtime}, timeout=600)
            row = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {
                "model": model, "runtime": runtime, "error": done.stderr.strip()[-300:] or f"exit {done.returncode}"}
            row["asked"] = runtime
            rows.append(row)
    print(f"{'model':12} {'asked':12} {'served by':12} {'load s':>7} {'tok/s':>7} {'x transformers':>15}")
    for row in rows:
        base = next((r.get("tok_per_s") for r in rows if r["model"] == row["model"] and r["asked"] == "transformers"),
                    None)
        ratio = f"{row['tok_per_s'] / base:.2f}" if base and "tok_per_s" in row else "-"
        print(f"{row['model']:12} {row['asked']:12} {row.get('runtime', 'FAILED'):12} "
              f"{row.get('load_and_warmup_s', '-')!s:>7} {row.get('tok_per_s', '-')!s:>7} {ratio:>15}")
    out = {"machine": {"cpu": _cpu(), "load_avg_start": load_start, "load_avg_end": os.getloadavg()[0],
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
           "command": "bench/runtime_check.py " + " ".join(sys.argv[1:]), "rows": rows}
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "runtime_check.json").write_text(json.dumps(out, indent=1))
    return 0 if all("error" not in r for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
