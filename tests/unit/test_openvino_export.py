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
    def tiny(_hf_model: object) -> ov.Model:
        x = ops.parameter([1, 2], np.float32, name="x")
        return ov.Model([ops.result(ops.relu(x))], [x], "tiny")

    monkeypatch.setattr(openvino_export, "_convert", tiny)
    monkeypatch.setattr(local_models, "load_local_model", lambda name, cache_dir: _Loaded())


def test_an_export_is_written_whole_with_its_marker(tiny_export: None, tmp_path: Path) -> None:
    xml = openvino_export.model_xml("smollm2", tmp_path)
    folder = openvino_export.export_dir("smollm2", tmp_path)
    assert xml == folder / "model.xml" and xml.is_file() and (folder / "model.bin").is_file()
    assert openvino_export.is_exported("smollm2", tmp_path)
    assert [p.name for p in folder.parent.iterdir()] == ["smollm2"]  # no staging folder left behind


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
