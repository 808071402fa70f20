"""OpenVINO's arithmetic on this CPU, bfloat16 against float32 (the choice `openvino_rt.faster_precision` makes in
the runtime probe): greedy agreement with transformers' float32 model, 16 tokens after 12 openings (three short
prompts and a passage from a third of the way into each of nine novels), and the probe's own timing (a 676-token
prompt and 16 greedy tokens, best of 3, alternating); then each part of that timing alone, as bench/llm.py measures
it (a 1,024-token prompt's tokens/s, best of 3; 64 greedy tokens' tokens/s after a 64-token prompt, median of 3;
alternating), and whether a kept prompt prefix gives the very logits of a fresh read (`openvino_rt.prefix_exact`,
without which the runtime reads every prompt afresh). Both compiled in one process from the same 8-bit export.

    .venv/bin/python bench/openvino_precision.py            # both models; writes bench/results/openvino_precision.json
"""
from __future__ import annotations

import argparse
import statistics
from typing import Any

from _common import SHARED_DATA, table, write_results

from core.llm import openvino_export, openvino_rt, runtime_probe
from core.llm.local import LocalLLM
from core.llm.local_models import LOCAL_MODELS

PROMPTS = ["Once upon a time, in a small village by the sea, there lived an old fisherman who",
           "Marley was dead: to begin with. There is no doubt whatever about that. The register of his burial",
           "Buck did not read the newspapers, or he would have known that trouble was brewing, not alone for"]
TOKENS = 16


def openings() -> list[str]:
    out = list(PROMPTS)
    for path in sorted((SHARED_DATA / "novels" / "txt").glob("*.txt"))[:9]:
        text = " ".join(path.read_text(encoding="utf-8").split())
        out.append(text[len(text) // 3:len(text) // 3 + 400])
    return out


def agreement(name: str) -> list[dict[str, Any]]:
    import numpy as np
    import openvino as ov
    import torch
    llm = LocalLLM(name)
    xml = openvino_export.model_xml(name, llm.cache_dir)
    core = ov.Core()
    models = {p: openvino_rt.wrap(name, openvino_rt._compile(core, name, xml, p), frozenset(), 0.0, p)
              for p in ("bf16", "f32")}
    agreed: dict[str, list[int]] = {p: [] for p in models}
    for text in openings():
        ids = llm.encode(text)
        slow: list[int] = []
        for _ in range(TOKENS):
            slow.append(int(torch.argmax(llm.next_token_logits(ids + slow))))
        for p, model in models.items():
            openvino_rt.forget(model)
            logits, fast = openvino_rt.evaluate(model, ids), []
            for _ in range(TOKENS):
                fast.append(int(np.argmax(logits)))
                logits = openvino_rt.evaluate(model, [fast[-1]])
            agreed[p].append(next((i for i, (a, b) in enumerate(zip(fast, slow)) if a != b), TOKENS))
    probe_ids = list(llm.tokenizer(runtime_probe.PROBE_TEXT)["input_ids"])
    speed = parts_speed(models)
    exact: dict[str, bool] = {p: openvino_rt.prefix_exact(model, probe_ids) for p, model in models.items()}
    chosen, seconds = openvino_rt.faster_precision(name, xml, probe_ids)
    other = None if exact.get(chosen, True) else runtime_probe.tied_alternative(chosen, seconds)
    chosen = other if other and exact[other] else chosen   # the probe's rule (runtime_probe.probe_openvino)
    return [{"model": name, "precision": p, "identical": f"{sum(k == TOKENS for k in v)} of {len(v)}",
             "agreed_mean": round(statistics.mean(v), 2), **speed[p], "prefix_exact": exact[p],
             "probe_s": seconds.get(p), "chosen": p == chosen} for p, v in agreed.items()]


def parts_speed(models: dict[str, Any], rounds: int = 3) -> dict[str, dict[str, float]]:
    """Prompt tokens/s (1,024 tokens, best of `rounds`) and generation tokens/s (64 greedy tokens after 64, median),
    the precisions alternating round by round."""
    import time

    import numpy as np
    ids = [int(x) for x in np.random.default_rng(0).integers(1000, 20000, 1024)]
    prompt: dict[str, list[float]] = {p: [] for p in models}
    gen: dict[str, list[float]] = {p: [] for p in models}
    for _ in range(rounds):
        for p, model in models.items():
            openvino_rt.forget(model)
            start = time.perf_counter()
            openvino_rt.evaluate(model, ids)
            prompt[p].append(len(ids) / (time.perf_counter() - start))
            openvino_rt.forget(model)
            logits = openvino_rt.evaluate(model, ids[:64])
            start = time.perf_counter()
            for _ in range(64):
                logits = openvino_rt.evaluate(model, [int(np.argmax(logits))])
            gen[p].append(64 / (time.perf_counter() - start))
            openvino_rt.forget(model)
    return {p: {"prompt_tok_s": round(max(prompt[p])), "gen_tok_s": round(statistics.median(gen[p]), 1)}
            for p in models}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=list(LOCAL_MODELS))
    args = parser.parse_args()
    rows = [row for name in args.models for row in agreement(name)]
    print(table(rows))
    write_results("openvino_precision", {"tokens": TOKENS, "rows": rows})


if __name__ == "__main__":
    main()
