"""core.llm.gguf_weights: a GGUF without its vocabulary arrays holds the same tensors, the same other metadata and the
vocabulary's size, and anything that is not a GGUF it can read is refused with a message."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from core.llm.gguf_weights import GGUFFormatError, write_weights_only  # noqa: E402


def _fields(reader) -> dict[str, object]:  # noqa: ANN001
    return {key: field.contents() for key, field in reader.fields.items() if not key.startswith("GGUF.")}


def _tensors(reader) -> dict[str, tuple[object, tuple[int, ...], bytes]]:  # noqa: ANN001
    return {t.name: (t.tensor_type, tuple(int(n) for n in t.shape), bytes(t.data.tobytes())) for t in reader.tensors}


def _write(path: Path, *, vocab_size: bool = False, alignment: int | None = None) -> None:
    writer = gguf.GGUFWriter(str(path), "llama")
    if alignment:
        writer.add_custom_alignment(alignment)
    writer.add_block_count(2)
    writer.add_context_length(128)
    writer.add_string("general.name", "tiny – test")
    writer.add_float32("llama.attention.layer_norm_rms_epsilon", 1e-5)
    writer.add_int32("llama.some_signed", -7)
    writer.add_array("llama.some_numbers", [1, 2, 3])
    if vocab_size:
        writer.add_vocab_size(5)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(["<s>", "</s>", "a", "b", "ab"])
    writer.add_token_scores([0.0, 0.0, -1.0, -2.0, -3.0])
    writer.add_token_types([3, 3, 1, 1, 1])
    writer.add_token_merges(["a b"])
    writer.add_bos_token_id(0)
    rng = np.random.default_rng(0)
    writer.add_tensor("token_embd.weight", rng.standard_normal((5, 8)).astype(np.float32))
    writer.add_tensor("blk.0.attn_norm.weight", rng.standard_normal(8).astype(np.float16))
    writer.add_tensor("output_norm.weight", np.arange(3, dtype=np.float32))  # 12 bytes: the next one is padded
    writer.add_tensor("blk.1.ffn_up.weight", rng.standard_normal((4, 8)).astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


@pytest.mark.parametrize("alignment", [None, 64])
def test_the_copy_keeps_tensors_and_metadata_and_drops_only_the_vocabulary_arrays(tmp_path: Path,
                                                                                  alignment: int | None) -> None:
    source, target = tmp_path / "full.gguf", tmp_path / "light.gguf"
    _write(source, alignment=alignment)
    assert write_weights_only(source, target) == 4  # tokens, scores, token types, merges
    full, light = gguf.GGUFReader(str(source)), gguf.GGUFReader(str(target))
    assert _tensors(light) == _tensors(full)
    kept = {k: v for k, v in _fields(full).items() if not k.startswith("tokenizer.ggml.") or not isinstance(v, list)}
    assert _fields(light) == {**kept, "llama.vocab_size": 5}
    assert _fields(light)["tokenizer.ggml.bos_token_id"] == 0 and "tokenizer.ggml.tokens" not in _fields(light)
    assert target.stat().st_size < source.stat().st_size


def test_a_vocab_size_the_file_states_is_kept_not_repeated(tmp_path: Path) -> None:
    source, target = tmp_path / "full.gguf", tmp_path / "light.gguf"
    _write(source, vocab_size=True)
    write_weights_only(source, target)
    light = gguf.GGUFReader(str(target))
    assert list(light.fields).count("llama.vocab_size") == 1 and _fields(light)["llama.vocab_size"] == 5


@pytest.mark.parametrize("content", [b"", b"GGUF", b"PK\x03\x04 not a model at all" * 4,
                                     b"GGUF" + (3).to_bytes(4, "little") + (1).to_bytes(8, "little")
                                     + (2).to_bytes(8, "little") + b"\xff" * 8])
def test_what_is_not_a_readable_gguf_is_refused(tmp_path: Path, content: bytes) -> None:
    source = tmp_path / "bad.gguf"
    source.write_bytes(content)
    with pytest.raises(GGUFFormatError):
        write_weights_only(source, tmp_path / "out.gguf")


def _table_end(data: bytes) -> int:
    return data.index(b"blk.1.ffn_up.weight") + len("blk.1.ffn_up.weight")  # the last tensor's name, before its dims


@pytest.mark.parametrize("cut_at", [lambda d: 200,                        # inside the vocabulary
                                    lambda d: _table_end(d) - 9,          # inside the tensor table's last name
                                    *(lambda d, k=k: int(_table_end(d) * k) for k in (0.3, 0.5, 0.7, 0.9))],
                         ids=["vocabulary", "tensor-table", "0.3", "0.5", "0.7", "0.9"])
def test_a_gguf_cut_anywhere_is_refused_with_the_format_error(tmp_path: Path, cut_at) -> None:  # noqa: ANN001
    source = tmp_path / "full.gguf"
    _write(source)
    data = source.read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[:cut_at(data)])
    with pytest.raises(GGUFFormatError):
        write_weights_only(cut, tmp_path / "out.gguf")
