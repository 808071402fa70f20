"""The default generation path for the embedded models, OpenVINO (`FABULA_LOCAL_RUNTIME=auto` or `openvino`): the
PagedAttention model of `openvino_export` with its key/value cache in block tensors this module holds, 8-bit
weights, bfloat16 or float32 arithmetic (whichever the runtime probe found faster on this CPU). It reads prompts
over three times as fast as transformers on the 2-core AMD EPYC, where llama.cpp reads them about as fast and
generates faster (on an Intel Xeon, where transformers runs 1.5-2x as fast: 2.5-2.6x transformers, and faster than
llama.cpp at both; bench/README.md). Under `auto`,
a model whose export or compilation fails here is served by llama.cpp for the rest of the process, with one log line.

The loop is this module's own: one inference for the part of the prompt not already cached, then one per new token,
greedy or sampled in numpy. Its contract is `decoding.FastModel`'s, as llama.cpp's: the same end tokens, stop strings
and minimum lengths met with a paragraph break, and a prompt's prefix shared with the previous prompt is kept
(`reuse`) without changing a single logit.
"""
from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from core.llm.decoding import Decode, Detokenizer, common_prefix, cpu_threads, end_ids, goes_on, one_step

log = logging.getLogger(__name__)

INITIAL_BLOCKS = 64  # a PagedAttention model's cache at first (blocks of 32 tokens on the CPU: 2,048 tokens); doubled
# when a prompt needs more
# Activations quantized to 8 bits in groups for the 8-bit weights' products: SmolLM2 read prompts at 1,661 tokens/s
# in groups of 64 against 1,210 without (1,024 tokens); generation 79 against 87 tokens/s. The group size moves
# speed and perplexity (bench/llm.py's references; transformers 28.96 and 77.45) unevenly, so it is per model.
# A group should divide the products' inner sizes (SmolLM2 576 and 1,536; Gemma 640 and 2,048): 128 does not for
# SmolLM2. SmolLM2 on export 3 (its MLP products apart), speed against groups of 64 by bench/openvino_ab.py (one
# process, alternating: the host's slow spells swing absolute speeds by 20%) and perplexity:
#   SmolLM2  64: 1.00x, +1.31%;  96: 1.03-1.07x, +1.37%;  192: 1.10x, +2.69%;  32: +1.15%  (none, export 2: +1.07%)
# Gemma on export 2 (= 3), prompt tokens/s, medians of five in separate processes, and perplexity:
#   Gemma    32: 1,523, +0.55%;  64: 1,692, +1.98%;  128: 1,812, +1.46%;  256: 1,670, +2.00%
# On export 4 (SmolLM2 with PagedAttention) groups of 96 read prompts 1.04x as fast as 64 but perplexity rose to
# +2.23% (64: +1.25%, 32: +1.07% at 0.88x), so SmolLM2 is back at 64. Gemma on export 5 (PagedAttention): 128 read
# prompts 1.08x as fast as 64 (one process, alternating), perplexity +1.57% against +1.83%; it stays at 128.
# 2-core AMD EPYC, 2026-11-25 and 26 (bench/README.md).
DYNAMIC_QUANTIZATION = {"gemma3-270m": "128"}
DEFAULT_GROUP = "64"
_models: dict[str, OVModel] = {}
_failed: set[str] = set()  # models whose export or compilation failed in this process
_lock = threading.Lock()
_missing_logged = False


@dataclass
class OVModel:
    runtime: ClassVar[str] = "openvino"
    name: str
    compiled: Any  # openvino.CompiledModel
    request: Any  # its one infer request
    eog_ids: frozenset[int]
    seconds: float  # load time
    precision: str
    block: int  # the cache's block size in tokens (32 on the CPU)
    prompt: list[int] = field(default_factory=list)  # the tokens whose keys and values the cache holds, in order
    exact: int = 0  # how many of them were read in inferences of two or more tokens (see `reuse`)
    keep_prefix: bool = True  # whether `reuse` may keep a prefix: only where `prefix_exact` found it exact here
    caches: dict[str, Any] = field(default_factory=dict)  # the cache tensors, by input name

    @property
    def handle(self) -> Any:
        return self.compiled

    def text_pieces(self, prompt_ids: Sequence[int], how: Decode) -> Generator[str, None, None]:
        """Generated text as it comes, as `decoding.FastModel.text_pieces` says; `guard`
        bars repeated n-grams of the new tokens before each pick (None: plain decoding)."""
        import numpy as np
        run = how.run
        rng = np.random.default_rng(how.seed if how.seed is not None else random.getrandbits(31))
        ends = self.eog_ids | frozenset(how.stop_ids)
        detok = Detokenizer(how.decode)
        state = how.guard.state() if how.guard is not None and how.guard.active else None
        kept = reuse(self, prompt_ids)
        logits = evaluate(self, list(prompt_ids[kept:]))
        while len(run.new_ids) < how.max_new and not run.scanner.stopped:
            if state is not None:  # the loop guard: a token completing an n-gram already generated is barred
                logits = state.apply(logits, run.new_ids)
            token = pick(logits, how.temperature, how.top_p, rng)
            if token in ends:
                if not goes_on(how):
                    run.ended = True
                    break
                new = list(how.paragraph)
            else:
                new = [token]
            for piece_id in new:
                run.new_ids.append(piece_id)
                out = run.scanner.feed(detok.push(piece_id))
                if out:
                    yield out
            if run.scanner.stopped or len(run.new_ids) >= how.max_new:
                break
            logits = evaluate(self, new)
        if not run.scanner.stopped:
            out = run.scanner.feed(detok.flush())
            if out:
                yield out

    def next_logits(self, ids: Sequence[int]) -> Any:
        """`decoding.FastModel.next_logits` here: a step of one token after the cached ones reads that token alone (as
        generation does, one inference per token); otherwise the prefix `reuse` allows is kept."""
        if not ids:
            raise ValueError("no tokens: there is nothing to read")
        if one_step(self.prompt, ids):
            return evaluate(self, list(ids[len(self.prompt):]))
        kept = reuse(self, ids)
        return evaluate(self, list(ids[kept:]))


def available() -> bool:
    global _missing_logged
    try:
        import openvino  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - a broken install counts as missing; another path still works
        if not _missing_logged:
            log.warning("OpenVINO is not usable here (%s): the embedded models use llama.cpp or transformers. "
                        "`bash scripts/dev.sh setup` installs it.", exc)
            _missing_logged = True
        return False
    return True


def load(name: str, xml: Callable[[], Path], tokenizer: Callable[[], Any], *, keep_prefix: bool,
         precision: str | None = None) -> OVModel:
    """The compiled model for `name`, loaded at most once per process; `xml` and `tokenizer` are asked for only
    then.
    `keep_prefix`: whether prompts may keep a shared prefix cached (the probe's `prefix_exact` verdict).
    `precision`: the arithmetic, "bf16" or "f32" (the probe's `faster_precision` verdict); None: `default_precision`."""
    if name in _models:
        return _models[name]
    with _lock:
        if name in _models:
            return _models[name]
        import openvino as ov
        start = time.perf_counter()
        core = ov.Core()
        precision = precision or default_precision(core)
        compiled = _compile(core, name, xml(), precision)
        model = wrap(name, compiled, end_ids(tokenizer()), round(time.perf_counter() - start, 3), precision)
        model.keep_prefix = keep_prefix
        log.info("OpenVINO: %s compiled in %.2f s (%s, %d threads, %s)", name, model.seconds, precision,
                 cpu_threads(), "shared prompt prefixes kept" if keep_prefix else "every prompt read afresh")
        _models[name] = model
        return model


def default_precision(core: Any) -> str:
    """bfloat16 where the CPU has bfloat16 instructions, else float32 (where no probe chose)."""
    return "bf16" if "BF16" in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES") else "f32"


def _compile(core: Any, name: str, xml: Path, precision: str) -> Any:
    from core.llm.openvino_export import set_paged_heads
    core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")  # loads the CPU plugin, which defines PagedAttention:
    graph = core.read_model(str(xml))                       # the export cannot be read before
    set_paged_heads(graph)
    return core.compile_model(graph, "CPU", {
        "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1", "INFERENCE_NUM_THREADS": str(cpu_threads()),
        "INFERENCE_PRECISION_HINT": precision, "DYNAMIC_QUANTIZATION_GROUP_SIZE": group(name),
        "KV_CACHE_PRECISION": precision})  # not the plugin's default 8 bits: one rounding fewer, same speed here


def faster_precision(name: str, xml: Path, ids: Sequence[int], rounds: int = 3) -> tuple[str, dict[str, float]]:
    """Which arithmetic serves `name` faster on this CPU, bfloat16 or float32, and the seconds each took: the
    model compiled both ways, each reading `ids` as a prompt and generating 16 tokens greedily, alternately, best
    of `rounds`. The weights are 8-bit either way (their products run on 8-bit activations); the precision is that
    of the rest. On the 2-core AMD EPYC bfloat16 was chosen from a float32 export's prompts (1,146 against 612
    tokens/s); on an Intel Xeon without AMX the 8-bit export read prompts 1.15-1.24x as fast in float32. Where the
    CPU has no bfloat16 instructions, float32 without a trial."""
    import numpy as np
    import openvino as ov
    core = ov.Core()
    if default_precision(core) == "f32":
        return "f32", {}
    models = {p: wrap(name, _compile(core, name, xml, p), frozenset(), 0.0, p) for p in ("bf16", "f32")}
    best = {p: float("inf") for p in models}
    for _ in range(rounds):
        for p, model in models.items():
            forget(model)
            started = time.perf_counter()
            logits = evaluate(model, list(ids))
            for _ in range(16):
                logits = evaluate(model, [int(np.argmax(logits))])
            best[p] = min(best[p], time.perf_counter() - started)
    return min(best, key=lambda p: best[p]), {p: round(s, 4) for p, s in best.items()}


def wrap(name: str, compiled: Any, eog_ids: frozenset[int], seconds: float, precision: str) -> OVModel:
    """A compiled PagedAttention model with an infer request and a first cache of INITIAL_BLOCKS blocks."""
    ports = _cache_ports(compiled)
    if not ports:
        raise RuntimeError(f"{name}: the OpenVINO model has no PagedAttention caches (an export from before "
                           "version 5? `cli.py llm prepare` exports it again)")
    model = OVModel(name, compiled, compiled.create_infer_request(), eog_ids, seconds, precision,
                    block=ports[0].get_partial_shape()[2].get_length())
    _grow(model, INITIAL_BLOCKS)
    return model


def failed(name: str) -> bool:
    """Whether exporting or compiling `name` failed in this process (the default runtime then falls back)."""
    return name in _failed


def mark_failed(name: str, exc: BaseException) -> None:
    if name not in _failed:
        log.warning("OpenVINO could not load %s (%s: %s): it generates with llama.cpp or transformers in this "
                    "process. Set FABULA_LOCAL_RUNTIME=openvino to see the error where it happens.",
                    name, type(exc).__name__, exc)
    _failed.add(name)


def group(name: str) -> str:
    """The activation quantization group size the model is compiled with."""
    return DYNAMIC_QUANTIZATION.get(name, DEFAULT_GROUP)


def is_loaded(name: str) -> bool:
    return name in _models


def loaded(name: str) -> OVModel | None:
    """The model if this process compiled it already."""
    return _models.get(name)


def unload(name: str | None = None) -> None:
    with _lock:
        for key in list(_models) if name is None else [name]:
            _models.pop(key, None)


def evaluate(model: OVModel, ids: Sequence[int]) -> Any:
    """Feed `ids` after the cached tokens in one inference (growing the cache when they would not fit); the logits
    after the last one."""
    import numpy as np
    past, n = len(model.prompt), len(ids)
    blocks = -(-(past + n) // model.block)
    capacity = next(iter(model.caches.values())).shape[0]
    if blocks > capacity:
        _grow(model, max(blocks, 2 * capacity))
    try:
        model.request.infer({
            "input_ids": np.asarray(ids, dtype=np.int64), "position_ids": np.arange(past, past + n, dtype=np.int64),
            "max_context_len": np.array(past + n, np.int32), "past_lens": np.array([past], np.int32),
            "subsequence_begins": np.array([0, n], np.int32),
            "block_indices_begins": np.array([0, blocks], np.int32),
            "block_indices": np.arange(blocks, dtype=np.int32), **model.caches})
    except BaseException:
        forget(model)  # the cache may hold part of the inference's keys: the next call starts afresh
        raise
    if n > 1 and model.exact == past:
        model.exact = past + n
    model.prompt.extend(int(i) for i in ids)
    return np.array(model.request.get_tensor("logits").data.reshape(-1), dtype=np.float32)


def forget(model: OVModel) -> None:
    """Empty the key/value cache: the next prompt is read afresh."""
    model.prompt, model.exact = [], 0


def reuse(model: OVModel, ids: Sequence[int]) -> int:
    """Keep the cache of the longest prefix of `ids` that it holds from an inference of two or more tokens, and
    leave at least two tokens to read; returns how many tokens it kept. Reading the rest onto them then gives the
    very logits of reading `ids` afresh (PagedAttention computes each token's keys, values and attention the same
    whether the tokens before it came in this inference or an earlier one; a one-token inference, as generation
    runs, takes another kernel path whose numbers differ in the last bits, hence `exact` and the two tokens), so
    greedy text never depends on what was asked before. Where the probe found that not to hold on this CPU
    (`keep_prefix` False), nothing is kept."""
    limit = min(model.exact, len(ids) - 2) if model.keep_prefix else 0
    keep = common_prefix(model.prompt[:max(0, limit)], ids)
    del model.prompt[keep:]
    model.exact = keep
    return keep


def prefix_exact(model: OVModel, ids: Sequence[int], generate: int = 4) -> bool:
    """Whether, on this CPU, reading `ids` onto a kept prefix gives the very logits of reading them afresh, and the
    greedy tokens after them the very same logits too, for splits like those `reuse` makes (the rest two tokens or
    more: short rests, rests across the CPU kernels' 16- and 32-row tiles, long ones). Measured on the AMD EPYC: yes
    for every split tried. Reported on an Intel Xeon with AMX: greedy text changed after a kept prefix. Also checks
    that a fresh read gives the same logits twice. Leaves the cache empty."""
    import numpy as np
    n = len(ids)
    rests = sorted({r for r in (2, 3, 5, 16, 17, 33, 100, n - 37, n // 2) if 2 <= r < n})

    def tail(split: int) -> list[Any]:
        forget(model)
        if split:
            evaluate(model, ids[:split])
        steps = [evaluate(model, ids[split:])]
        for _ in range(generate):
            steps.append(evaluate(model, [int(np.argmax(steps[-1]))]))
        return steps

    try:
        whole = tail(0)
        return all(all(np.array_equal(a, b) for a, b in zip(whole, tail(split)))
                   for split in [0] + [n - r for r in rests])
    finally:
        forget(model)


def _cache_ports(compiled: Any) -> list[Any]:
    """A PagedAttention model's cache inputs."""
    return [p for p in compiled.inputs if p.get_any_name().startswith(("key_cache.", "value_cache."))]


def _grow(model: OVModel, blocks: int) -> None:
    """Cache tensors of `blocks` blocks each, keeping what the old ones held."""
    import openvino as ov
    for port in _cache_ports(model.compiled):
        name = port.get_any_name()
        shape = [blocks] + [d.get_length() for d in list(port.get_partial_shape())[1:]]
        tensor = ov.Tensor(port.get_element_type(), shape)
        old = model.caches.get(name)
        if old is not None:
            tensor.data[:old.shape[0]] = old.data
        model.caches[name] = tensor


def pick(logits: Any, temperature: float, top_p: float | None, rng: Any) -> int:
    """Greedy at temperature 0; else temperature sampling, optionally within the smallest top-p set."""
    import numpy as np
    if temperature <= 0:
        return int(np.argmax(logits))
    scaled = logits.astype(np.float64) / temperature
    probs = np.exp(scaled - scaled.max())
    probs /= probs.sum()
    if top_p is not None and top_p < 1.0:
        k = 64
        while True:  # the top-p set without sorting the whole vocabulary (262k for Gemma)
            k = min(k, probs.size)
            top = np.argpartition(probs, -k)[-k:]
            top = top[np.argsort(probs[top])[::-1]]
            cum = np.cumsum(probs[top])
            if cum[-1] >= top_p or k == probs.size:
                top = top[:int(np.searchsorted(cum, top_p) + 1)]
                break
            k *= 4
        kept = probs[top] / probs[top].sum()
        return int(top[rng.choice(top.size, p=kept)])
    return int(rng.choice(probs.size, p=probs))
