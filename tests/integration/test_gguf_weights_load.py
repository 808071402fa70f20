"""The weights-only copy of a packaged model's GGUF (core/llm/gguf_weights.py) holds the same tensors at the same
offsets and the vocabulary's size; a copy the loader cannot use falls back to the whole file, with a warning. (The
float32 weights loaded through the copy equalled a load of the whole file tensor for tensor, for both packaged models,
when the copy was introduced; every float32 test since reads through it.)"""
from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace

import pytest

from core.llm import gguf_weights, local_models

pytestmark = pytest.mark.slow

MODEL = "smollm2"


def _cache() -> Path:
    from tests.conftest import MODEL_CACHE
    return MODEL_CACHE


def test_the_packaged_models_copy_holds_the_same_tensors(tmp_path: Path) -> None:
    from gguf import GGUFReader
    source = local_models.gguf_file(MODEL, _cache())
    target = tmp_path / source.name
    assert gguf_weights.write_weights_only(source, target) >= 2  # at least the tokens and their types
    whole, light = GGUFReader(str(source)), GGUFReader(str(target))
    assert [(t.name, t.tensor_type, t.data_offset - whole.data_offset) for t in whole.tensors] == \
        [(t.name, t.tensor_type, t.data_offset - light.data_offset) for t in light.tensors]
    assert all(bytes(a.data.tobytes()) == bytes(b.data.tobytes()) for a, b in zip(whole.tensors, light.tensors))
    vocabulary = len(whole.fields["tokenizer.ggml.tokens"].data)
    assert light.fields["llama.vocab_size"].contents() == vocabulary and "tokenizer.ggml.tokens" not in light.fields


class _Loader:
    """Stands in for AutoModelForCausalLM: refuses the weights-only copy (as a loader that wanted the vocabulary
    would) and returns a model object for the whole file; records which files it was asked for."""

    def __init__(self, whole: Path) -> None:
        self.whole, self.asked = whole, []

    def from_pretrained(self, folder, gguf_file, dtype):  # noqa: ANN001, ANN201
        path = Path(folder) / gguf_file
        self.asked.append(path)
        assert path.is_file()
        if path != self.whole:
            raise ValueError("no tokenizer.ggml.tokens in this file")
        return SimpleNamespace(config=SimpleNamespace(), hf_quantizer="gguf")


def test_a_copy_the_loader_cannot_use_falls_back_to_the_whole_file(monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    import transformers
    whole = local_models.gguf_file(MODEL, _cache())
    loader = _Loader(whole)
    monkeypatch.setattr(transformers, "AutoModelForCausalLM", loader)
    with caplog.at_level(logging.WARNING, logger="core.llm.local_models"):
        model = local_models._from_gguf(local_models.spec_for(MODEL), _cache())
    assert [p.name for p in loader.asked] == [whole.name, whole.name] and loader.asked[0] != whole  # copy, then whole
    assert model.hf_quantizer is None and model.config._name_or_path == str(whole.parent)
    assert any("did not load" in r.getMessage() for r in caplog.records), caplog.text
    # This load's own copy is gone (another worker's load may hold a copy of its own in the cache meanwhile).
    copy_folder = loader.asked[0].parent
    assert copy_folder.name.startswith(f".{MODEL}-weights-") and not copy_folder.exists(), "no copy kept"
