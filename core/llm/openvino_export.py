"""The embedded models as OpenVINO models: exported once from the float32 transformers weights, cached on disk.

What the export makes (measured on the 2-core AMD EPYC, bench/README.md): a stateful model whose key/value cache
lives inside OpenVINO between calls (the CPU plugin's fused attention with its cache, which it recognises by a
`beam_idx` gather after each cache read), weights compressed to 8 bits per output channel (NNCF), products of one
input stacked into one (query, key and value; gate and up, except in SEPARATE_MLP's models), and causal attention
stated as such rather than as a mask, so the fused kernel skips the masked half. Layers with a sliding window
(Gemma 3) keep an explicit mask, as an additive float mask: the fused kernel was 12 times slower with a boolean one.
The model returns the logits of the last position only (the prompt's other positions need none). PAGED's models go
one step further: their attention becomes OpenVINO's PagedAttention, with the caches as inputs held by openvino_rt
(`_to_paged`); the others keep the stateful model and its inputs below.

Inputs: `input_ids` and `position_ids` ([1, n] int64) and `beam_idx` ([1] int32, always 0). Output: `logits`
[1, 1, vocabulary]. The cache is the request's state: `reset_state()` forgets it.

The export needs torch and transformers (the float32 model, `local_models.load_local_model`) and takes about 30 s
(SmolLM2) to 70 s (Gemma 3, mostly its dequantization when not cached); `cli.py llm prepare` runs it at set-up.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

EXPORT_VERSION = 4  # bump when the exported graph changes: older exports are made again
# Models whose MLP gate and up products stay apart. SmolLM2's, stacked, leave its SiLU to read half of the stacked
# output (47 ms of a 1,024-token prompt against 17 ms apart): apart, prompts ran 6-11% faster (same-process A/B, 2-core
# AMD EPYC), generation the same, and perplexity was closer to transformers' (+1.31% against +1.84%). Gemma's stay
# stacked: apart, the same speed and +1.74% against +1.46%.
SEPARATE_MLP = frozenset({"smollm2"})
# Models exported with OpenVINO's PagedAttention instead of the stateful fused attention: its CPU kernel computes only
# the key blocks at or before each query block (the stateful kernel computes them all and masks half away), and reads
# a prompt onto a non-empty cache as fast as afresh. Gemma 3's sliding-window layers are not converted yet.
PAGED = frozenset({"smollm2"})
MARKER = "fabula-openvino.json"
ATTENTION = "fabula_openvino"
_lock = threading.Lock()


def export_dir(name: str, cache_dir: Path) -> Path:
    return Path(cache_dir) / "openvino" / name


def is_exported(name: str, cache_dir: Path) -> bool:
    marker = export_dir(name, cache_dir) / MARKER
    try:
        return json.loads(marker.read_text()).get("version") == EXPORT_VERSION
    except (OSError, ValueError):
        return False


def model_xml(name: str, cache_dir: Path) -> Path:
    """The exported model of `name`, exported now when there is none (or an older version)."""
    target = export_dir(name, cache_dir)
    if is_exported(name, cache_dir):
        return target / "model.xml"
    with _lock:
        if not is_exported(name, cache_dir):
            _export(name, Path(cache_dir), target)
    return target / "model.xml"


def _export(name: str, cache_dir: Path, target: Path) -> None:
    """Write the model into a staging folder beside `target`, the marker last, then rename it into place."""
    from core.llm.local_models import load_local_model
    start = time.perf_counter()
    loaded = load_local_model(name, cache_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=target.parent))
    try:
        model = _convert(loaded.model, stack_mlp=name not in SEPARATE_MLP, paged=name in PAGED)
        import openvino as ov
        ov.save_model(model, staging / "model.xml", compress_to_fp16=False)
        seconds = round(time.perf_counter() - start, 1)
        (staging / MARKER).write_text(json.dumps({"version": EXPORT_VERSION, "model": name, "seconds": seconds}))
        if not is_exported(name, cache_dir):
            shutil.rmtree(target, ignore_errors=True)  # an older export, or leftovers without the marker
        try:
            os.replace(staging, target)
        except OSError:  # another process finished first (target exists and is non-empty)
            if not is_exported(name, cache_dir):
                raise
            log.info("OpenVINO: %s appeared meanwhile in %s; keeping it", name, target)
            return
        log.info("OpenVINO: %s exported in %.1f s (%s)", name, seconds, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _convert(hf_model: Any, *, stack_mlp: bool = True, paged: bool = False) -> Any:
    """The transformers model as a stateful, weight-compressed OpenVINO model (see the module docstring)."""
    import nncf
    import openvino as ov
    import torch
    from openvino._offline_transformations import apply_make_stateful_transformation
    config = hf_model.config
    layers, kv_heads = config.num_hidden_layers, config.num_key_value_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    wrapper = _wrapper(hf_model, layers)
    past, new = 3, 5  # any small sizes: every length is left dynamic
    example = [torch.randint(100, 1000, (1, new)), torch.arange(past, past + new).unsqueeze(0)]
    example += [torch.zeros(1, kv_heads, past, head_dim) for _ in range(2 * layers)]
    batch = -1 if paged else 1  # PagedAttention reads a prompt's tokens as a batch of one-token sequences
    kv_shape = ov.PartialShape([batch, kv_heads, -1, head_dim])
    inputs = [(ov.PartialShape([batch, -1]), ov.Type.i64)] * 2 + [(kv_shape, ov.Type.f32)] * (2 * layers)
    previous = config._attn_implementation
    _register_attention(static_heads=paged)
    hf_model.config._attn_implementation = ATTENTION
    try:
        with torch.no_grad():
            model = ov.convert_model(wrapper, example_input=tuple(example), input=inputs)
    finally:
        hf_model.config._attn_implementation = previous
    cache_in = [f"past.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
    cache_out = [f"present.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
    for port, name in zip(model.inputs, ["input_ids", "position_ids", *cache_in]):
        port.get_tensor().set_names({name})
    for port, name in zip(model.outputs, ["logits", *cache_out]):
        port.get_tensor().set_names({name})
    apply_make_stateful_transformation(model, dict(zip(cache_in, cache_out)))
    _gather_cache_by_beam(model)
    _fuse_parallel_products(model, stack_mlp=stack_mlp)
    model = nncf.compress_weights(model, mode=nncf.CompressWeightsMode.INT8_SYM)
    if paged:
        _to_paged(model, kv_heads, head_dim)
    return model


def set_paged_heads(model: Any) -> None:
    """Each PagedAttentionExtension's head sizes in its runtime info, as the CPU plugin requires (from the model's
    own runtime info, where the export wrote them); nothing for a model without them."""
    if not model.has_rt_info("fabula_kv_heads"):
        return
    heads = int(model.get_rt_info("fabula_kv_heads").astype(str))
    size = int(model.get_rt_info("fabula_head_dim").astype(str))
    for node in model.get_ops():
        if node.get_type_name() == "PagedAttentionExtension":
            info = node.get_rt_info()
            info["num_k_heads"], info["k_head_size"] = heads, size
            info["num_v_heads"], info["v_head_size"] = heads, size


def _to_paged(model: Any, kv_heads: int, head_dim: int) -> None:
    """The stateful model as a PagedAttention model: its caches become inputs laid out in blocks, each layer's
    attention a PagedAttentionExtension (its head sizes kept for the CPU plugin), and the output product reads
    the last token only (it would otherwise run for every token of the prompt)."""
    import numpy as np
    import openvino.opset13 as ops
    from openvino._offline_transformations import paged_attention_transformation
    paged_attention_transformation(model)
    model.set_rt_info(str(kv_heads), "fabula_kv_heads")  # a node's runtime info is not saved; the model's is, and
    model.set_rt_info(str(head_dim), "fabula_head_dim")  # openvino_rt.load copies it onto the nodes (set_paged_heads)
    head = [n for n in model.get_ordered_ops() if n.get_type_name() == "MatMul"][-1]  # the output product
    hidden = head.input(0).get_source_output()
    count = ops.gather(ops.shape_of(hidden), ops.constant(np.array([0], np.int64)), ops.constant(np.int64(0)))
    last = ops.gather(hidden, ops.subtract(count, ops.constant(np.array([1], np.int64))), ops.constant(np.int64(0)))
    head.input(0).replace_source_output(last.output(0))
    model.validate_nodes_and_infer_types()


def _fuse_parallel_products(model: Any, *, stack_mlp: bool = True) -> int:
    """Matrix products of one input by constant weights (query, key and value; gate and up) become one product
    with the weights stacked, split afterwards: fewer, larger products, and the input is read once. Without
    `stack_mlp`, the products of an MLP (traced names with ".mlp.") stay apart. Returns the stacked groups."""
    import numpy as np
    import openvino.opset13 as ops
    groups: dict[tuple[str, int], list[Any]] = {}
    for node in model.get_ordered_ops():
        if node.get_type_name() != "MatMul" or not node.get_attributes().get("transpose_b"):
            continue
        if node.input(1).get_source_output().get_node().get_type_name() != "Constant":
            continue
        source = node.input(0).get_source_output()
        groups.setdefault((source.get_node().get_friendly_name(), source.get_index()), []).append(node)
    fused = 0
    for nodes in groups.values():
        if len(nodes) < 2 or (not stack_mlp and any(".mlp." in n.get_friendly_name() for n in nodes)):
            continue
        weights = [n.input(1).get_source_output().get_node().get_data() for n in nodes]
        product = ops.matmul(nodes[0].input(0).get_source_output(), ops.constant(np.concatenate(weights, 0)),
                             False, True)
        parts = ops.variadic_split(product, ops.constant(np.int64(-1)),
                                   ops.constant(np.array([w.shape[0] for w in weights], np.int64)))
        for i, node in enumerate(nodes):
            node.output(0).replace(parts.output(i))
        fused += 1
    model.validate_nodes_and_infer_types()
    return fused


def _wrapper(hf_model: Any, layers: int) -> Any:
    """A torch module taking (input_ids, position_ids, *past keys and values), returning (last logits, *present):
    the signature the export traces (defined here so torch is imported only for an export)."""
    import torch
    from transformers import DynamicCache

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.hf = hf_model

        def forward(self, input_ids: Any, position_ids: Any, *past: Any) -> tuple[Any, ...]:
            cache = DynamicCache(ddp_cache_data=[(past[2 * i], past[2 * i + 1]) for i in range(layers)])
            layer: Any
            for i, layer in enumerate(cache.layers):  # the past as given (not concatenated onto an empty tensor)
                layer.keys, layer.values = past[2 * i], past[2 * i + 1]
            out = self.hf.model(input_ids=input_ids, position_ids=position_ids, past_key_values=cache,
                                use_cache=True)
            logits = self.hf.lm_head(out.last_hidden_state[:, -1:, :])
            if getattr(self.hf.config, "final_logit_softcapping", None):
                cap = self.hf.config.final_logit_softcapping
                logits = torch.tanh(logits / cap) * cap
            present = []
            for layer in out.past_key_values.layers:
                present += [layer.keys, layer.values]
            return (logits, *present)

    return Wrapper()


def _register_attention(static_heads: bool = False) -> None:
    """An attention function for the export: causal attention as `is_causal` (no mask) in full-attention layers,
    an additive float mask in sliding-window layers; grouped key/value heads repeated as transformers does."""
    import torch
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask

    def attention(module: Any, query: Any, key: Any, value: Any, mask: Any, scaling: float | None = None,
                  dropout: float = 0.0, **_: Any) -> tuple[Any, None]:
        groups = query.shape[1] // key.shape[1]
        if groups > 1 and static_heads:  # PagedAttention's conversion needs the head sizes static
            heads, size = module.config.num_key_value_heads, module.head_dim
            key = key[:, :, None].expand(-1, heads, groups, -1, size).flatten(1, 2)
            value = value[:, :, None].expand(-1, heads, groups, -1, size).flatten(1, 2)
        elif groups > 1:
            b, h, n, d = key.shape
            key = key[:, :, None].expand(b, h, groups, n, d).reshape(b, h * groups, n, d)
            value = value[:, :, None].expand(b, h, groups, n, value.shape[-1]).reshape(b, h * groups, n, -1)
        if getattr(module, "sliding_window", None) and mask is not None:
            if mask.dtype == torch.bool:
                mask = torch.where(mask, 0.0, float("-inf")).to(query.dtype)
            out = torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=mask, scale=scaling)
        else:
            out = torch.nn.functional.scaled_dot_product_attention(query, key, value, is_causal=True, scale=scaling)
        return out.transpose(1, 2).contiguous(), None

    AttentionInterface.register(ATTENTION, attention)
    ALL_MASK_ATTENTION_FUNCTIONS.register(ATTENTION, sdpa_mask)


def _gather_cache_by_beam(model: Any) -> None:
    """Each cache read goes through a gather by `beam_idx` from an empty initial value: the pattern the CPU plugin
    fuses into its attention with an in-place cache (without it attention runs as separate matrix products)."""
    import numpy as np
    import openvino.opset13 as ops
    beam = ops.parameter([-1], np.int32, name="beam_idx")
    beam.output(0).get_tensor().set_names({"beam_idx"})
    variables = {v.get_info().variable_id: v for v in model.get_variables()}
    for node in model.get_ordered_ops():
        if node.get_type_name() != "ReadValue":
            continue
        shape = [d.get_length() if d.is_static else 0 for d in node.output(0).get_partial_shape()]
        read = ops.read_value(ops.constant(np.zeros(shape, np.float32)), variables[node.get_variable_id()])
        gathered = ops.gather(read.output(0), beam, ops.constant(np.int64(0)))
        for target in list(node.output(0).get_target_inputs()):
            target.replace_source_output(gathered.output(0))
    model.add_parameters([beam])
    model.validate_nodes_and_infer_types()
