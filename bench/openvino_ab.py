"""OpenVINO compile options and exports side by side in ONE process, their inferences alternating: on a shared host
whose speed swings by 20% from one minute to the next, a variant's speed relative to another is steady this way
where separate runs are not. Each variant is a JSON object of CPU properties (over openvino_rt's defaults for the
model), optionally with "path": another exported model.xml. Prints each variant's prompt tokens/s (a 1,024-token
prompt, logits of the last position, as bench/llm.py measures it) and its speed relative to the first variant, the
median of the per-round ratios; with --gen also generation tokens/s (64 tokens after a 64-token prompt).

    .venv/bin/python bench/openvino_ab.py smollm2 '[{}, {"DYNAMIC_QUANTIZATION_GROUP_SIZE": "96"}]' --rounds 10
    .venv/bin/python bench/openvino_ab.py smollm2 '[{}, {"path": "/tmp/other/model.xml"}]' --gen
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from _common import ROOT, SHARED_DATA, write_results

from core.llm import openvino_export, openvino_rt
from core.llm.decoding import cpu_threads
from core.llm.local import LocalLLM

QA_FILE = SHARED_DATA / "narrativeqa" / "summaries_qa_dev.jsonl"


def properties(name: str, variant: dict[str, Any]) -> dict[str, str]:
    """openvino_rt.load's properties for `name`, with the variant's over them."""
    precision = "bf16"
    base = {"PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1", "INFERENCE_NUM_THREADS": str(cpu_threads()),
            "INFERENCE_PRECISION_HINT": precision, "DYNAMIC_QUANTIZATION_GROUP_SIZE": openvino_rt.group(name),
            "KV_CACHE_PRECISION": precision}
    return base | {k: str(v) for k, v in variant.items() if k != "path"}


def main() -> None:
    import openvino as ov
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("variants", help="a JSON list of objects")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--gen", action="store_true")
    args = parser.parse_args()
    variants = json.loads(args.variants)
    cache = ROOT / "data" / "cache"
    llm = LocalLLM(args.model, cache_dir=cache)
    text = " ".join(json.loads(line)["passage"] for line in QA_FILE.open(encoding="utf-8"))[:8000]
    ids = llm.encode(text)[:1024]
    core = ov.Core()
    core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")  # the CPU plugin first: it defines PagedAttention
    default_xml = openvino_export.model_xml(args.model, cache)
    models = []
    for variant in variants:
        graph = core.read_model(str(variant.get("path", default_xml)))
        openvino_export.set_paged_heads(graph)
        compiled = core.compile_model(graph, "CPU", properties(args.model, variant))
        models.append(openvino_rt.wrap(args.model, compiled, frozenset(), 0.0, "bf16"))

    def prompt(model: openvino_rt.OVModel) -> float:
        openvino_rt.forget(model)
        start = time.perf_counter()
        openvino_rt.evaluate(model, ids)
        return time.perf_counter() - start

    def generation(model: openvino_rt.OVModel) -> float:
        openvino_rt.forget(model)
        openvino_rt.evaluate(model, ids[:64])
        start = time.perf_counter()
        for k in range(64, 128):
            openvino_rt.evaluate(model, ids[k:k + 1])
        return 64 / (time.perf_counter() - start)

    for model in models:  # first inferences compile kernels for the shapes
        prompt(model)
    seconds: list[list[float]] = [[] for _ in models]
    for _ in range(args.rounds):
        for i, model in enumerate(models):
            seconds[i].append(prompt(model))
    gen: list[list[float]] = [[] for _ in models]
    for _ in range(4 if args.gen else 0):
        for i, model in enumerate(models):
            gen[i].append(generation(model))
    rows = []
    for variant, times, rates in zip(variants, seconds, gen):
        ratios = [b / t for b, t in zip(seconds[0], times)]
        row = {"variant": variant, "prompt_tok_s": round(len(ids) / statistics.median(times)),
               "relative": round(statistics.median(ratios), 3), "relative_range": [round(min(ratios), 3),
                                                                                    round(max(ratios), 3)]}
        if rates:
            row["gen_tok_s"] = round(statistics.median(rates), 1)
        rows.append(row)
        print(json.dumps(row))
    path = write_results(f"openvino_ab_{args.model}", {"model": args.model, "rounds": args.rounds,
                                                        "default_xml": str(Path(default_xml)), "rows": rows})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
