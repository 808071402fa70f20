"""OpenVINO's arithmetic on this CPU, bfloat16 against float32 (the choice `openvino_rt.faster_precision` makes in
the runtime probe): greedy agreement with transformers' float32 model, 16 tokens after 12 openings (three short
prompts and a passage from a third of the way into each of nine novels), and the probe's own timing (a 676-token
prompt and 16 greedy tokens, best of 3, alternating). Both compiled in one process from the same 8-bit export.

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
    chosen, seconds = openvino_rt.faster_precision(name, xml, probe_ids)
    return [{"model": name, "precision": p, "identical": f"{sum(k == TOKENS for k in v)} of {len(v)}",
             "agreed_mean": round(statistics.mean(v), 2), "probe_s": seconds.get(p), "chosen": p == chosen}
            for p, v in agreed.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=list(LOCAL_MODELS))
    args = parser.parse_args()
    rows = [row for name in args.models for row in agreement(name)]
    print(table(rows))
    write_results("openvino_precision", {"tokens": TOKENS, "rows": rows})


if __name__ == "__main__":
    main()
