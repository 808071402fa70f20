"""The OpenVINO export's cache folder: written whole or not at all, and a second process that finishes the same
export later keeps the first one's instead of failing (the conversion itself is stood in for by a tiny model)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest

from core.llm import local_models, openvino_export


class _Loaded:
    model = None


@pytest.fixture
def tiny_export(monkeypatch: pytest.MonkeyPatch) -> None:
    def tiny(_hf_model: object, **_options: object) -> ov.Model:
        x = ops.parameter([1, 2], np.float32, name="x")
        return ov.Model([ops.result(ops.relu(x))], [x], "tiny")

    monkeypatch.setattr(openvino_export, "_convert", tiny)
    monkeypatch.setattr(local_models, "load_local_model", lambda name, cache_dir: _Loaded())


def test_an_export_is_written_whole_with_its_marker(tiny_export: None, tmp_path: Path) -> None:
    xml = openvino_export.model_xml("smollm2", tmp_path)
    folder = openvino_export.export_dir("smollm2", tmp_path)
    assert xml == folder / "model.xml" and xml.is_file() and (folder / "model.bin").is_file()
    assert openvino_export.is_exported("smollm2", tmp_path)
    assert sorted(p.name for p in folder.parent.iterdir()) == [".smollm2.lock", "smollm2"]  # no staging folder left


def test_an_export_finished_first_by_another_process_is_kept(tiny_export: None, tmp_path: Path) -> None:
    folder = openvino_export.export_dir("smollm2", tmp_path)
    folder.mkdir(parents=True)
    (folder / "model.xml").write_text("theirs")
    (folder / openvino_export.MARKER).write_text(json.dumps({"version": openvino_export.EXPORT_VERSION}))
    openvino_export._export("smollm2", tmp_path, folder)  # this process's export, finishing second
    assert (folder / "model.xml").read_text() == "theirs"
    assert [p.name for p in folder.parent.iterdir()] == ["smollm2"]


def test_an_older_or_unreadable_marker_is_exported_again(tiny_export: None, tmp_path: Path) -> None:
    folder = openvino_export.export_dir("smollm2", tmp_path)
    folder.mkdir(parents=True)
    (folder / openvino_export.MARKER).write_text(json.dumps({"version": openvino_export.EXPORT_VERSION - 1}))
    assert not openvino_export.is_exported("smollm2", tmp_path)
    (folder / openvino_export.MARKER).write_text("not json")
    assert not openvino_export.is_exported("smollm2", tmp_path)
    openvino_export.model_xml("smollm2", tmp_path)
    assert openvino_export.is_exported("smollm2", tmp_path) and (folder / "model.bin").is_file()


def _layer() -> ov.Model:
    """Three attention products of one input and an MLP's gate and up products of another, named as the export's
    trace names them; the output sums them all (so every product is used)."""
    rng = np.random.default_rng(0)
    x = ops.parameter([1, 3, 8], np.float32, name="x")
    normed = ops.relu(x)  # the MLP's input (a layer norm's output in the model)
    outputs = []
    for name, rows in (("self_attn.q_proj", 8), ("self_attn.k_proj", 4), ("self_attn.v_proj", 4),
                       ("mlp.gate_proj", 16), ("mlp.up_proj", 16)):
        weights = ops.constant(rng.standard_normal((rows, 8)).astype(np.float32))
        product = ops.matmul(normed if name.startswith("mlp") else x, weights, False, True)
        product.set_friendly_name(f"__module.hf.model.layers.0.{name}/aten::linear/MatMul")
        outputs.append(ops.reduce_sum(product, ops.constant(np.int64(-1)), True))
    total = outputs[0]
    for part in outputs[1:]:
        total = ops.add(total, part)
    return ov.Model([ops.result(total)], [x], "layer")


@pytest.mark.parametrize("stack_mlp, stacked", [(True, 2), (False, 1)])
def test_parallel_products_are_stacked_the_mlp_only_when_asked(stack_mlp: bool, stacked: int) -> None:
    model, x = _layer(), np.random.default_rng(1).standard_normal((1, 3, 8)).astype(np.float32)
    before = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(x)[0]
    assert openvino_export._fuse_parallel_products(model, stack_mlp=stack_mlp) == stacked
    products = [op for op in model.get_ordered_ops() if op.get_type_name() == "MatMul"]
    assert len(products) == (2 if stack_mlp else 3)  # q, k, v as one; gate and up as one, or apart
    after = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(x)[0]
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)
