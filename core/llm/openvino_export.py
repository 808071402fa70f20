"""The embedded models as OpenVINO models: exported once from the float32 transformers weights, cached on disk.

What the export makes (measured on the 2-core AMD EPYC, bench/README.md): weights compressed to 8 bits per output
channel (NNCF), products of one input stacked into one (query, key and value; gate and up, except in SEPARATE_MLP's
models), and attention as OpenVINO's PagedAttention, with the key/value caches as inputs laid out in blocks, which
openvino_rt holds. Its CPU kernel computes only the key blocks at or before each query block (the stateful model's
fused attention, exports 1-3, computed them all and masked half away) and reads a prompt onto a non-empty cache as
fast as afresh, so a prompt's shared prefix can be kept. Sliding-window layers (Gemma 3) get their window on the
operation. The model returns the logits of the last position only (the prompt's other positions need none).

The path there: the traced model is made stateful with a `beam_idx` gather after each cache read (the form
`paged_attention_transformation` reads), compressed, then converted (`_to_paged`).

Inputs: `input_ids` and `position_ids` ([n] int64, one sequence of n tokens), `max_context_len`, `past_lens`,
`subsequence_begins`, `block_indices_begins`, `block_indices` (int32) and `key_cache.<layer>`, `value_cache.<layer>`.
Output: `logits` [1, vocabulary]. openvino_rt feeds them.

The export needs torch and transformers (the float32 model, `local_models.load_local_model`, dequantized from the
GGUF in memory: no float32 copy is written) and takes about 20 s (SmolLM2) to 70 s (Gemma 3, mostly its
dequantization); `cli.py llm prepare` runs it at set-up.
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

from core.filelock import file_lock
from core.quiet import python_output

log = logging.getLogger(__name__)

EXPORT_VERSION = 5  # bump when the exported graph changes: older exports are made again
# Models whose MLP gate and up products stay apart. SmolLM2's, stacked, leave its SiLU to read half of the stacked
# output (47 ms of a 1,024-token prompt against 17 ms apart): apart, prompts ran 6-11% faster (same-process A/B, 2-core
# AMD EPYC), generation the same, and perplexity was closer to transformers' (+1.31% against +1.84%). Gemma's stay
# stacked: apart, the same speed and +1.74% against +1.46%.
SEPARATE_MLP = frozenset({"smollm2"})
MARKER = "fabula-openvino.json"
ATTENTION = "fabula_openvino"
KEY_CACHE_INPUT, WINDOW_INPUT = 3, 10  # PagedAttentionExtension's inputs: key_cache.<layer> and sliding_window
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
    # One export at a time, here and in other processes of this machine (the app's server, a CLI worker, a second
    # test worker): the second waits for the first's export (a minute or more of both cores) and then finds it.
    with _lock, file_lock(target.parent / f".{name}.lock"):
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
        with python_output(f"the OpenVINO export of {name}"):  # the tracer warns about every traced constant
            model = _convert(loaded.model, stack_mlp=name not in SEPARATE_MLP)
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


def _convert(hf_model: Any, *, stack_mlp: bool = True) -> Any:
    """The transformers model as a weight-compressed PagedAttention OpenVINO model (see the module docstring)."""
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
    # a dynamic batch: PagedAttention reads a prompt's tokens as a batch of one-token sequences
    kv_shape = ov.PartialShape([-1, kv_heads, -1, head_dim])
    inputs = [(ov.PartialShape([-1, -1]), ov.Type.i64)] * 2 + [(kv_shape, ov.Type.f32)] * (2 * layers)
    previous = config._attn_implementation
    _register_attention()
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
    windows = [config.sliding_window if kind == "sliding_attention" else 0
               for kind in getattr(config, "layer_types", None) or ["full_attention"] * layers]
    _to_paged(model, kv_heads, head_dim, windows)
    return model


def set_paged_heads(model: Any) -> None:
    """Each PagedAttentionExtension's head sizes in its runtime info, as the CPU plugin requires (from the model's
    own runtime info, where the export wrote them); nothing for a model without them."""
    if not model.has_rt_info("fabula_kv_heads"):
        return
    heads = int(model.get_rt_info("fabula_kv_heads").astype(str))
    size = int(model.get_rt_info("fabula_head_dim").astype(str))
    for node in paged_attention_by_layer(model).values():
        info = node.get_rt_info()
        info["num_k_heads"], info["k_head_size"] = heads, size
        info["num_v_heads"], info["v_head_size"] = heads, size


def paged_attention_by_layer(model: Any) -> dict[int, Any]:
    """The model's PagedAttentionExtension nodes by layer (from the name of their `key_cache.<layer>` input)."""
    return {int(node.input(KEY_CACHE_INPUT).get_source_output().get_node().get_friendly_name().rsplit(".", 1)[1]):
            node for node in model.get_ops() if node.get_type_name() == "PagedAttentionExtension"}


def _to_paged(model: Any, kv_heads: int, head_dim: int, windows: list[int]) -> None:
    """The stateful model as a PagedAttention model: its caches become inputs laid out in blocks, each layer's
    attention a PagedAttentionExtension (its head sizes kept for the CPU plugin, its sliding window from `windows`,
    by layer: 0 for full attention), and the output product reads the last token only (it would otherwise run for
    every token of the prompt)."""
    import numpy as np
    import openvino.opset13 as ops
    from openvino._offline_transformations import paged_attention_transformation
    paged_attention_transformation(model)
    model.set_rt_info(str(kv_heads), "fabula_kv_heads")  # a node's runtime info is not saved; the model's is, and
    model.set_rt_info(str(head_dim), "fabula_head_dim")  # openvino_rt.load copies it onto the nodes (set_paged_heads)
    for layer, node in paged_attention_by_layer(model).items():  # the transformation leaves every window at 0
        if windows[layer]:  # (its mask patterns are optimum's, not this trace's)
            kind = node.input(WINDOW_INPUT).get_element_type().to_dtype()
            node.input(WINDOW_INPUT).replace_source_output(ops.constant(np.array(windows[layer], kind)).output(0))
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


def _register_attention() -> None:
    """An attention function for the export: causal attention as `is_causal` (no mask: PagedAttention replaces it,
    and a sliding window is set on the operation afterwards); grouped key/value heads repeated as transformers does,
    with static head sizes (the conversion to PagedAttention needs them)."""
    import torch
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask

    def attention(module: Any, query: Any, key: Any, value: Any, mask: Any, scaling: float | None = None,
                  dropout: float = 0.0, **_: Any) -> tuple[Any, None]:
        groups = query.shape[1] // key.shape[1]
        if groups > 1:
            heads, size = module.config.num_key_value_heads, module.head_dim
            key = key[:, :, None].expand(-1, heads, groups, -1, size).flatten(1, 2)
            value = value[:, :, None].expand(-1, heads, groups, -1, size).flatten(1, 2)
        out = torch.nn.functional.scaled_dot_product_attention(query, key, value, is_causal=True, scale=scaling)
        return out.transpose(1, 2).contiguous(), None

    AttentionInterface.register(ATTENTION, attention)
    ALL_MASK_ATTENTION_FUNCTIONS.register(ATTENTION, sdpa_mask)


def _gather_cache_by_beam(model: Any) -> None:
    """Each cache read goes through a gather by `beam_idx` from an empty initial value: the stateful form of
    optimum's exports, which `paged_attention_transformation` converts (it removes the gathers and the states)."""
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
