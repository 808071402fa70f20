"""The packaged local models for real: load (dequantized in memory, nothing written), short generations, streaming,
stop strings, max_tokens, and the scoring API (logprob, token_logprobs, next_token_logits)
that decoding and metrics build on.

The cache folder (tests/conftest.py's MODEL_CACHE) holds the assembled GGUF and the tokenizers; the float32 models
are dequantized from the GGUF on every load (issue 35: no float32 copy is kept on disk).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.llm import LLMContextOverflow
from core.llm.local import LocalLLM
from core.llm.local_models import CACHE_MARKER, old_copy_dir, remove_old_copies, unload

pytestmark = pytest.mark.slow

# The bare question is a near-tie for SmolLM2 (0.09 logits between "The" and "L"), which llama.cpp tips the other way.
QUESTION = "What is the capital of France? Answer in one word."


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import MODEL_CACHE
    return MODEL_CACHE


@pytest.fixture(scope="session")
def smollm2(model_cache: Path) -> Iterator[LocalLLM]:
    unload("smollm2")  # load into this cache even if another test loaded it from elsewhere
    llm = LocalLLM("smollm2", cache_dir=model_cache)
    llm.load()
    yield llm


@pytest.fixture(scope="session")
def gemma(model_cache: Path) -> Iterator[LocalLLM]:
    unload("gemma3-270m")
    llm = LocalLLM("gemma3-270m", cache_dir=model_cache)
    llm.load()
    yield llm


@pytest.fixture(params=["smollm2", "gemma"])
def local(request: pytest.FixtureRequest) -> LocalLLM:
    return request.getfixturevalue(request.param)


def test_a_load_keeps_no_float32_copy_on_disk(local: LocalLLM, model_cache: Path) -> None:
    info = local.load()
    assert info.source == "memory"  # loaded by the fixture, from the GGUF
    assert not old_copy_dir(local.model_name, model_cache).exists()
    assert (model_cache / "tokenizers" / local.model_name / CACHE_MARKER).is_file()  # small, and read by every load
    assert "quantization_config" not in local._loaded.model.config.to_dict()  # a float32 model, not a quantized one


def test_an_earlier_versions_copy_is_removed_and_nothing_else(tmp_path: Path) -> None:
    old = old_copy_dir("smollm2", tmp_path)
    (old).mkdir(parents=True)
    (old / "model.safetensors").write_bytes(b"x" * 1000)
    (old / CACHE_MARKER).write_text("{}")
    (tmp_path / "models" / ".gemma3-270m-abc").mkdir()  # a killed first run's scratch folder
    (tmp_path / "models" / "mine").mkdir()  # not ours: kept
    assert remove_old_copies(tmp_path) >= 1000
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["mine"]
    (tmp_path / "models" / "mine").rmdir()
    assert remove_old_copies(tmp_path) == 0 and not (tmp_path / "models").exists()


def test_the_model_saved_and_reloaded_gives_the_same_logits(smollm2: LocalLLM, tmp_path: Path) -> None:
    """The in-memory model is a plain float32 model: saved and read back (as a benchmark might) it scores alike."""
    import torch
    from transformers import AutoModelForCausalLM
    smollm2.load()
    smollm2._loaded.model.save_pretrained(tmp_path / "copy")
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "copy", dtype=torch.float32)
    ids = torch.tensor([smollm2.tokenizer("The lighthouse keeper")["input_ids"]])
    with torch.inference_mode():
        reloaded = model(input_ids=ids).logits[0, -1]
    assert torch.allclose(reloaded, smollm2.next_token_logits("The lighthouse keeper"), atol=1e-4)


def test_a_short_chat_generation_answers(local: LocalLLM) -> None:
    result = local.complete([{"role": "user", "content": QUESTION}], max_tokens=24)
    assert "Paris" in result.text
    assert result.input_tokens > 5 and 0 < result.output_tokens <= 24
    assert result.finish_reason in ("stop", "length") and result.seconds > 0


def test_prompt_format_follows_the_tokenizer(smollm2: LocalLLM, gemma: LocalLLM) -> None:
    assert smollm2.has_chat_template and "<|im_start|>user" in smollm2.format_prompt(QUESTION)
    assert not gemma.has_chat_template
    assert gemma.format_prompt([{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}]) \
        == f"Be brief.\n\nQuestion: {QUESTION}\nAnswer:"


def test_max_tokens_and_stop_strings_are_respected(local: LocalLLM) -> None:
    prompt = "Once upon a time, in a small village by the sea, there lived"
    cut = local.generate_text(prompt, max_tokens=6)
    assert cut.output_tokens == 6 and cut.finish_reason == "length"
    longer = local.generate_text(prompt, max_tokens=12).text
    words = longer.split()
    stop = " " + words[2]  # greedy decoding is deterministic: stop at the third word of the same continuation
    stopped = local.generate_text(prompt, max_tokens=12, stop=[stop])
    assert stop not in stopped.text and longer.startswith(stopped.text) and stopped.finish_reason == "stop"


def test_streaming_yields_the_same_text_as_complete(local: LocalLLM) -> None:
    messages = [{"role": "user", "content": "Describe a sunny day at the beach in one sentence."}]
    whole = local.complete(messages, max_tokens=12)
    stream = local.stream(messages, max_tokens=12)
    pieces = list(stream)
    assert len(whole.text.split()) >= 3, whole.text  # a multi-word reply, so it must arrive in several pieces
    assert len(pieces) >= 2 and "".join(pieces) == whole.text
    assert stream.completion is not None and stream.completion.output_tokens == whole.output_tokens


def test_closing_a_stream_early_stops_generation(smollm2: LocalLLM) -> None:
    stream = smollm2.stream("Tell me a long story about a dragon.", max_tokens=200)
    first = next(iter(stream))
    stream.close()
    assert first
    assert smollm2.complete(QUESTION, max_tokens=8).text  # the model lock was released


def test_logprob_prefers_the_likely_continuation(local: LocalLLM) -> None:
    prompt = "The capital of France is"
    likely, unlikely = local.logprob(prompt, " Paris"), local.logprob(prompt, " a banana")
    assert likely < 0 and unlikely < likely - 3


def test_token_logprobs_sum_to_logprob_and_cover_the_continuation(local: LocalLLM) -> None:
    prompt, continuation = "Phoebe and her sister open a school ", "to pay the rent."
    per_token = local.token_logprobs(prompt, continuation)
    # trailing whitespace moves into the continuation, so its tokens are those of " to pay the rent."
    assert [t.token_id for t in per_token] == local.encode(" to pay the rent.", add_special_tokens=False)
    assert "".join(t.token for t in per_token) == " to pay the rent."
    assert sum(t.logprob for t in per_token) == pytest.approx(local.logprob(prompt, continuation), abs=1e-5)
    assert all(t.logprob <= 0 for t in per_token)


def test_next_token_logits_agree_with_token_logprobs(local: LocalLLM) -> None:
    import torch
    prompt = "The capital of France is"
    logits = local.next_token_logits(prompt)
    assert logits.shape == (local.model.config.vocab_size,)
    first = local.token_logprobs(prompt, " Paris")[0]
    assert torch.log_softmax(logits, -1)[first.token_id].item() == pytest.approx(first.logprob, abs=1e-4)
    assert local.next_token_logits(local.encode(prompt)).allclose(logits)


def test_a_prompt_longer_than_the_context_is_a_clear_error(smollm2: LocalLLM) -> None:
    with pytest.raises(LLMContextOverflow, match="shorten the prompt"):
        smollm2.generate_text("word " * 9000, max_tokens=4)


def test_count_tokens_uses_the_real_tokenizer(smollm2: LocalLLM) -> None:
    assert smollm2.count_tokens("The capital of France is Paris.") == len(
        smollm2.encode("The capital of France is Paris.", add_special_tokens=False))
