"""Fabula's own OpenVINO runtime (core/llm/openvino_export + openvino_rt: its PagedAttention export, block cache,
sampler and prefix reuse) against the maintained OpenVINO GenAI library (`openvino_genai.LLMPipeline`), in ONE
process, the variants' requests alternating round by round (as bench/openvino_ab.py does: the shared host's speed
swings by 20% from one minute to the next; ratios within a round are steady). Issue 35, item 1.

Caution (found when the move was built, bench/README.md "OpenVINO GenAI A/B"): on the CPU both GenAI variants run
PagedAttention, whose conversion of this export drops Gemma 3's 512-token sliding window, so their Gemma text past
512 prompt tokens is wrong and their Gemma prompt speed is not a right answer's; right answers need
`ATTENTION_BACKEND=SDPA`, which read prompts at 0.20x Fabula's. The decision was to keep Fabula's runtime.

Variants: "fabula" (openvino_rt on today's export), "genai" (LLMPipeline's stateful path, no scheduler) and
"genai_pa" (LLMPipeline with a SchedulerConfig: continuous batching, PagedAttention, prefix caching). Both GenAI
variants read one IR exported here from the same float32 weights Fabula dequantizes from the packaged GGUF, in the
standard stateful layout optimum-intel writes (input_ids, attention_mask, position_ids, beam_idx; keys and values
as states), 8-bit symmetric weights per channel as Fabula's (NNCF INT8_SYM), plus openvino_tokenizers' tokenizer
and detokenizer. optimum-intel 2.2.0 does not import with transformers 5.23, so the export is `ov.convert_model`
on the torch model made stateful with OpenVINO's own transformation (`export`, in a child process: its time and
memory apart). Same CPU properties on every side (threads, bf16, KV cache precision, activation groups).

Measured per variant: prompt tokens/s (a 1,024-token prompt to its first token), generation tokens/s (64 greedy
tokens after a 64-token prompt), a prompt three quarters cached (1,024 tokens of which the first 768 are those of
the request before), greedy agreement (64 tokens after each of 8 passages' openings), load time and the process's
resident memory growth. LLMPipeline cannot score a text (it gives log-probabilities of generated tokens only), so
there is no perplexity on the GenAI side: greedy agreement stands for quality.

The library is optional (not in requirements.txt): install it where only this bench sees it, e.g.
    .venv/bin/pip install --no-deps --target /tmp/ovgenai openvino-genai==2026.4.1.0 openvino-tokenizers==2026.4.1.0
    PYTHONPATH=/tmp/ovgenai .venv/bin/python bench/openvino_genai_ab.py smollm2 --rounds 5
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import ROOT, SHARED_DATA, table, write_results

QA_FILE = SHARED_DATA / "narrativeqa" / "summaries_qa_dev.jsonl"
CACHE = ROOT / "data" / "cache"
EXPORTS = Path("/tmp/fabula_genai_export")
VARIANTS = ("fabula", "genai", "genai_pa")


def require_genai() -> Any:
    """openvino_genai, or exit with what to install: the library is optional."""
    try:
        import openvino_genai
        import openvino_tokenizers  # noqa: F401 - registers the tokenizer operations
    except ImportError as exc:
        sys.exit(f"openvino-genai is not importable ({exc}). Install it outside the project's environment, e.g. "
                 "`.venv/bin/pip install --no-deps --target /tmp/ovgenai openvino-genai==2026.4.1.0 "
                 "openvino-tokenizers==2026.4.1.0`, and run with PYTHONPATH=/tmp/ovgenai.")
    return openvino_genai


def rss_mib() -> float:
    """The process's resident memory now (VmRSS), MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def export(name: str, out: Path) -> None:
    """The float32 model (dequantized from the packaged GGUF by local_models) as a stateful OpenVINO IR in
    optimum-intel's layout, weights 8-bit, with openvino_tokenizers' tokenizer and detokenizer, into `out`."""
    import nncf
    import numpy as np
    import openvino as ov
    import openvino.opset13 as ops
    import torch
    from openvino._offline_transformations import apply_make_stateful_transformation
    from openvino_tokenizers import convert_tokenizer
    from transformers import DynamicCache

    from core.llm.local_models import load_local_model
    loaded = load_local_model(name, CACHE)
    hf, config = loaded.model, loaded.model.config
    layers, kv_heads = config.num_hidden_layers, config.num_key_value_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    config._attn_implementation = "sdpa"

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.hf = hf

        def forward(self, input_ids: Any, attention_mask: Any, position_ids: Any, *past: Any) -> tuple[Any, ...]:
            cache = DynamicCache(ddp_cache_data=[(past[2 * i], past[2 * i + 1]) for i in range(layers)])
            layer: Any
            for i, layer in enumerate(cache.layers):
                layer.keys, layer.values = past[2 * i], past[2 * i + 1]
            result = self.hf(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                             past_key_values=cache, use_cache=True)
            present = []
            for layer in result.past_key_values.layers:
                present += [layer.keys, layer.values]
            return (result.logits, *present)

    past, new = 3, 5
    example = [torch.randint(100, 1000, (1, new)), torch.ones(1, past + new, dtype=torch.int64),
               torch.arange(past, past + new).unsqueeze(0)]
    example += [torch.zeros(1, kv_heads, past, head_dim) for _ in range(2 * layers)]
    kv_shape = ov.PartialShape([-1, kv_heads, -1, head_dim])
    inputs = [(ov.PartialShape([-1, -1]), ov.Type.i64)] * 3 + [(kv_shape, ov.Type.f32)] * (2 * layers)
    with torch.no_grad():
        model = ov.convert_model(Wrapper(), example_input=tuple(example), input=inputs)
    cache_in = [f"past_key_values.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
    cache_out = [f"present.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
    for port, label in zip(model.inputs, ["input_ids", "attention_mask", "position_ids", *cache_in]):
        port.get_tensor().set_names({label})
    for port, label in zip(model.outputs, ["logits", *cache_out]):
        port.get_tensor().set_names({label})
    apply_make_stateful_transformation(model, dict(zip(cache_in, cache_out)))
    # optimum's form: each state starts as zeros [batch, heads, 0, size] and is read through a gather by beam_idx
    beam = ops.parameter([-1], np.int32, name="beam_idx")
    beam.output(0).get_tensor().set_names({"beam_idx"})
    ids_param = next(p for p in model.get_parameters() if p.get_friendly_name() == "input_ids" or
                     "input_ids" in p.output(0).get_names())
    batch = ops.gather(ops.shape_of(ids_param), ops.constant(np.array([0], np.int64)), ops.constant(np.int64(0)))
    zeros_shape = ops.concat([batch, ops.constant(np.array([kv_heads, 0, head_dim], np.int64))], 0)
    variables = {v.get_info().variable_id: v for v in model.get_variables()}
    for node in model.get_ordered_ops():
        if node.get_type_name() != "ReadValue":
            continue
        read = ops.read_value(ops.broadcast(ops.constant(np.float32(0)), zeros_shape),
                              variables[node.get_variable_id()])
        gathered = ops.gather(read.output(0), beam, ops.constant(np.int64(0)))
        for target in list(node.output(0).get_target_inputs()):
            target.replace_source_output(gathered.output(0))
    model.add_parameters([beam])
    model.validate_nodes_and_infer_types()
    model = nncf.compress_weights(model, mode=nncf.CompressWeightsMode.INT8_SYM)
    out.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, out / "openvino_model.xml", compress_to_fp16=False)
    tokenizer, detokenizer = convert_tokenizer(loaded.tokenizer, with_detokenizer=True)
    ov.save_model(tokenizer, out / "openvino_tokenizer.xml")
    ov.save_model(detokenizer, out / "openvino_detokenizer.xml")
    config.save_pretrained(out)
    loaded.tokenizer.save_pretrained(out)
    if getattr(hf, "generation_config", None) is not None:
        hf.generation_config.save_pretrained(out)


def exported(name: str) -> dict[str, Any]:
    """Export `name` for GenAI in a child process (its time and peak memory apart from this process's)."""
    out = EXPORTS / name
    start = time.perf_counter()
    subprocess.run([sys.executable, __file__, name, "--export-only"], check=True, env=os.environ.copy())
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"dir": out, "export_s": round(time.perf_counter() - start, 1), "export_peak_rss_mib": round(peak)}


def ov_properties(name: str) -> dict[str, str]:
    """openvino_rt.load's CPU properties for `name` (bench/openvino_ab.properties), used on every side."""
    from openvino_ab import properties
    return properties(name, {})


class Fabula:
    """openvino_rt on Fabula's export: fresh reads, greedy steps, and `reuse` for a kept prefix."""

    def __init__(self, name: str) -> None:
        import openvino as ov

        from core.llm import openvino_export, openvino_rt
        self.rt = openvino_rt
        xml = openvino_export.model_xml(name, CACHE)
        marker = json.loads((xml.parent / openvino_export.MARKER).read_text())
        self.export_s = marker.get("seconds")
        start = time.perf_counter()
        core = ov.Core()
        core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")  # loads the CPU plugin: it defines PagedAttention
        graph = core.read_model(str(xml))
        openvino_export.set_paged_heads(graph)
        compiled = core.compile_model(graph, "CPU", ov_properties(name))
        self.model = openvino_rt.wrap(name, compiled, frozenset(), 0.0, "bf16")
        self.load_s = time.perf_counter() - start

    def generate(self, ids: list[int], new: int, *, keep: bool = False) -> list[int]:
        import numpy as np
        kept = self.rt.reuse(self.model, ids) if keep else 0
        if not keep:
            self.rt.forget(self.model)
        logits = self.rt.evaluate(self.model, ids[kept:])
        out = [int(np.argmax(logits))]
        while len(out) < new:
            out.append(int(np.argmax(self.rt.evaluate(self.model, out[-1:]))))
        return out

    def timed(self, ids: list[int], new: int, *, keep: bool = False) -> tuple[list[int], float, float]:
        """Tokens, seconds to the first token, seconds per later token."""
        import numpy as np
        start = time.perf_counter()
        kept = self.rt.reuse(self.model, ids) if keep else 0
        if not keep:
            self.rt.forget(self.model)
        out = [int(np.argmax(self.rt.evaluate(self.model, ids[kept:])))]
        first = time.perf_counter()
        while len(out) < new:
            out.append(int(np.argmax(self.rt.evaluate(self.model, out[-1:]))))
        end = time.perf_counter()
        return out, first - start, (end - first) / max(1, new - 1)


class GenAI:
    """LLMPipeline on the exported IR; `paged` adds a SchedulerConfig with prefix caching."""

    def __init__(self, name: str, folder: Path, *, paged: bool) -> None:
        genai = require_genai()
        self.genai = genai
        props: dict[str, Any] = dict(ov_properties(name))
        start = time.perf_counter()
        if paged:
            scheduler = genai.SchedulerConfig()
            scheduler.enable_prefix_caching = True
            scheduler.cache_size = 1  # GB of key/value blocks
            scheduler.max_num_batched_tokens = 2048  # a 1,024-token prompt in one step, as Fabula reads it
            scheduler.dynamic_split_fuse = False
            props["scheduler_config"] = scheduler
        self.pipe = genai.LLMPipeline(str(folder), "CPU", **props)
        self.load_s = time.perf_counter() - start

    def timed(self, ids: list[int], new: int, *, keep: bool = False) -> tuple[list[int], float, float]:
        import numpy as np
        import openvino as ov
        config = self.genai.GenerationConfig()
        config.max_new_tokens = config.min_new_tokens = new
        config.ignore_eos = True
        config.do_sample = False
        inputs = self.genai.TokenizedInputs(ov.Tensor(np.array([ids], np.int64)),
                                            ov.Tensor(np.ones((1, len(ids)), np.int64)))
        start = time.perf_counter()
        result = self.pipe.generate(inputs, config)
        total = time.perf_counter() - start
        tokens = [int(t) for t in result.tokens[0]]
        metrics = result.perf_metrics
        ttft = metrics.get_ttft().mean / 1000
        per_token = (total - ttft) / max(1, new - 1) if new > 1 else 0.0
        return tokens, ttft if new > 1 else total, per_token

    def generate(self, ids: list[int], new: int, *, keep: bool = False) -> list[int]:
        return self.timed(ids, new, keep=keep)[0]


def agreement(a: list[int], b: list[int]) -> int:
    """How many leading tokens two greedy runs share."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def perplexities(name: str, runners: dict[str, Any], folder: Path, stream: list[int]) -> dict[str, float]:
    """Perplexity of 8 x 64 scored tokens (each after 192 of context, from the passages) under Fabula's runtime (the
    context in one inference, then a token at a time, as bench/llm.py scores it) and under the GenAI export read by
    plain OpenVINO with the same properties (LLMPipeline itself returns log-probabilities of generated tokens only:
    it cannot score a given text; this checks the IR it runs)."""
    import math

    import numpy as np
    import openvino as ov
    refs = [stream[2000 + 256 * k:2000 + 256 * (k + 1)] for k in range(8)]
    out: dict[str, float] = {}

    def nll(rows: Any, cont: list[int]) -> float:
        rows = np.asarray(rows, dtype=np.float64)
        top = rows.max(axis=1, keepdims=True)
        logz = (top + np.log(np.exp(rows - top).sum(axis=1, keepdims=True)))[:, 0]
        return float((logz - rows[np.arange(len(cont)), cont]).sum())

    if "fabula" in runners:
        rt, model, total = runners["fabula"].rt, runners["fabula"].model, 0.0
        for ids in refs:
            rt.forget(model)
            steps = [rt.evaluate(model, ids[:192])] + [rt.evaluate(model, [t]) for t in ids[192:-1]]
            total += nll(steps, ids[192:])
        out["fabula"] = round(math.exp(total / (64 * len(refs))), 3)
    compiled = ov.Core().compile_model(str(folder / "openvino_model.xml"), "CPU", ov_properties(name))
    request, total = compiled.create_infer_request(), 0.0
    for ids in refs:
        request.reset_state()
        request.infer({"input_ids": np.array([ids], np.int64), "attention_mask": np.ones((1, 256), np.int64),
                       "position_ids": np.arange(256, dtype=np.int64)[None], "beam_idx": np.array([0], np.int32)})
        total += nll(request.get_tensor("logits").data[0, 191:255], ids[192:])
    out["genai_ir"] = round(math.exp(total / (64 * len(refs))), 3)
    return out


def run(name: str, rounds: int, skip: set[str]) -> dict[str, Any]:
    from core.llm.local_models import load_local_tokenizer
    export_info = exported(name)
    tokenizer = load_local_tokenizer(name, CACHE)
    passages = [json.loads(line)["passage"] for line in QA_FILE.open(encoding="utf-8")]
    stream = tokenizer.encode(" ".join(passages)[:24000])
    if len(stream) < max(4048, 1024 + 64 * rounds + 256):
        raise SystemExit("the passages are too short for the prompts")
    openings = [tokenizer.encode(p)[:64] for p in passages[:8]]
    load: dict[str, dict[str, Any]] = {}
    runners: dict[str, Any] = {}
    for variant in VARIANTS:
        if variant in skip:
            continue
        before = rss_mib()
        runners[variant] = Fabula(name) if variant == "fabula" else GenAI(
            name, export_info["dir"], paged=variant == "genai_pa")
        runners[variant].timed(stream[:1024], 2)  # first inferences compile kernels for the shapes
        load[variant] = {"load_s": round(runners[variant].load_s, 2), "rss_growth_mib": round(rss_mib() - before)}
    load["fabula"]["export_s"] = runners["fabula"].export_s if "fabula" in runners else None
    for variant in runners:
        if variant != "fabula":
            load[variant]["export_s"] = export_info["export_s"]
    times: dict[str, dict[str, list[float]]] = {v: {"prompt": [], "cached": [], "gen": []} for v in runners}
    for r in range(rounds):
        shift = 64 * r + 1  # a different 1,024 tokens each round: no variant finds an earlier round's prefix
        first = stream[shift:shift + 1024]
        second = first[:768] + stream[shift + 1024:shift + 1280]
        for variant, runner in runners.items():
            times[variant]["prompt"].append(runner.timed(first, 1)[1])
            times[variant]["cached"].append(runner.timed(second, 1, keep=True)[1])
            times[variant]["gen"].append(runner.timed(stream[shift:shift + 64], 64)[2])
    greedy = {v: [runner.generate(o, 64) for o in openings] for v, runner in runners.items()}
    rows = []
    for variant in runners:
        t = times[variant]
        row = {"variant": variant, "prompt_tok_s": round(1024 / statistics.median(t["prompt"])),
               "cached_s": round(statistics.median(t["cached"]), 3),
               "gen_tok_s": round(1 / statistics.median(t["gen"]), 1), **load[variant]}
        if "fabula" in runners and variant != "fabula":
            ratios = [b / a for a, b in zip(t["prompt"], times["fabula"]["prompt"])]
            row["prompt_ratio"] = round(statistics.median(ratios), 3)
            row["cached_ratio"] = round(statistics.median(
                [b / a for a, b in zip(t["cached"], times["fabula"]["cached"])]), 3)
            row["gen_ratio"] = round(statistics.median([b / a for a, b in zip(t["gen"], times["fabula"]["gen"])]), 3)
            shared = [agreement(a, b) for a, b in zip(greedy["fabula"], greedy[variant])]
            row["greedy_same_prefix_mean"] = round(statistics.mean(shared), 1)
            row["greedy_identical"] = f"{sum(s == 64 for s in shared)}/{len(shared)}"
        rows.append(row)
    ppl = perplexities(name, runners, export_info["dir"], stream)
    for row in rows:
        row["perplexity"] = ppl["fabula" if row["variant"] == "fabula" else "genai_ir"] if (
            row["variant"] != "fabula" or "fabula" in ppl) else None
    return {"model": name, "rounds": rounds, "perplexity": ppl, "export": {k: str(v) for k, v in export_info.items()},
            "rows": rows, "times_s": times, "greedy": greedy}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="smollm2, gemma3-270m")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip", default="", help="variants to leave out, comma-separated")
    parser.add_argument("--export-only", action="store_true", help="(the child process) write the GenAI export")
    args = parser.parse_args()
    require_genai()
    if args.export_only:
        for name in args.models:
            export(name, EXPORTS / name)
        return
    load_avg = [os.getloadavg()]
    results = []
    for name in args.models:
        result = run(name, args.rounds, set(filter(None, args.skip.split(","))))
        load_avg.append(os.getloadavg())
        print(f"\n{name} (load average {load_avg[-1][0]:.2f})")
        print(table(result["rows"], list(dict.fromkeys(k for row in result["rows"] for k in row))))
        results.append(result)
    path = write_results("openvino_genai_ab", {"models": results, "load_avg": load_avg})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
