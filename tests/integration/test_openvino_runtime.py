"""The OpenVINO generation path of the embedded models (`FABULA_LOCAL_RUNTIME=openvino`), on the real exports.

Its weights are 8-bit and its arithmetic bfloat16 where the CPU has it, so greedy text cannot match the float32
transformers path token for token. The documented tolerance is the llama.cpp path's (test_llm_runtimes.py): greedy
tokens agree until a place where the transformers model itself is nearly undecided, and there OpenVINO's choice is
within `UNDECIDED_LOGITS` of the transformers favourite (`assert_greedy_agrees` there runs both).
"""
from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import openvino  # noqa: F401 - installed by the set-up command; its absence must fail here, not skip
import pytest

from core.llm import llamacpp, openvino_export, openvino_rt, runtime_probe, runtimes
from core.llm.local import LocalLLM
from tests.integration.test_llm_runtimes import PROMPTS, assert_greedy_agrees, require_safe, story_text

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache() -> Path:
    from tests.conftest import MODEL_CACHE
    return MODEL_CACHE


@pytest.fixture
def openvino_path(monkeypatch: pytest.MonkeyPatch, cache: Path) -> Iterator[pytest.MonkeyPatch]:
    require_safe("openvino", cache)
    monkeypatch.setenv(runtimes.RUNTIME_ENV, "openvino")
    yield monkeypatch


def exact_here(name: str, cache: Path) -> bool:
    """Whether the probe found kept prefixes exact on this CPU (then `reuse` keeps them; else nothing is kept)."""
    return runtime_probe.verdict("openvino", name, cache).prefix_exact is not False


def stand_in_probe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, behaviour: str) -> None:
    """OpenVINO's probe replaced by a stand-in (tests/support/stand_in_runtime.py), its verdicts kept in a folder of
    the test's own, nothing known or loaded yet in this process."""
    monkeypatch.setenv("FABULA_PROBE_DIR", str(tmp_path))
    monkeypatch.setattr(runtime_probe, "_verdicts", {})
    monkeypatch.setattr(openvino_rt, "_models", {})
    monkeypatch.setitem(runtime_probe.PROBES, "openvino", f"tests.support.stand_in_runtime:{behaviour}")


@pytest.fixture(params=["smollm2", "gemma3-270m"])
def llm(request: pytest.FixtureRequest, cache: Path, openvino_path: pytest.MonkeyPatch) -> LocalLLM:
    return LocalLLM(request.param, cache_dir=cache)


def test_generation_runs_on_openvino_when_asked(llm: LocalLLM, cache: Path) -> None:
    assert llm.runtime == "openvino"
    info = llm.warm()
    assert info.source == "openvino" and openvino_rt.is_loaded(llm.model_name)
    assert openvino_export.is_exported(llm.model_name, cache)
    marker = json.loads((openvino_export.export_dir(llm.model_name, cache) / openvino_export.MARKER).read_text())
    assert marker["version"] == openvino_export.EXPORT_VERSION and marker["model"] == llm.model_name
    result = llm.generate_text(PROMPTS[0], max_tokens=8)
    assert result.output_tokens == 8 and result.text.strip()


def test_greedy_tokens_agree_until_the_model_itself_is_undecided(llm: LocalLLM) -> None:
    assert_greedy_agrees(llm, "openvino")


def test_greedy_text_never_depends_on_what_was_asked_before(llm: LocalLLM) -> None:
    story = story_text(500)  # the second and later prompts keep the cache of the story read before them
    prompt = story + " Then the ghost said"
    first = llm.generate_text(prompt, max_tokens=12).text
    llm.generate_text(story + " Meanwhile, in the kitchen,", max_tokens=12)
    assert llm.generate_text(prompt, max_tokens=12).text == first
    assert llm.generate_text(prompt, max_tokens=12).text == first


def test_a_shared_prefix_is_kept_and_reads_on_to_the_same_logits(llm: LocalLLM) -> None:
    """A prompt sharing a prefix with the previous prompt reads only the rest, in one inference, and ends at the very
    logits of reading it afresh. Generated tokens (read one at a time, another kernel path) are not kept."""
    import numpy as np
    fast = llm._fast()
    assert isinstance(fast, openvino_rt.OVModel)
    story = story_text(900)
    first = llm.encode(story + " The end of the first part.")
    second = llm.encode(story + " A second part began, and")
    shared = next(i for i, (a, b) in enumerate(zip(first, second)) if a != b)
    assert fast.keep_prefix == exact_here(llm.model_name, llm.cache_dir)
    if not fast.keep_prefix:  # not exact on this CPU: nothing is kept, every prompt is read afresh
        with llm._lock:
            openvino_rt.forget(fast)
            openvino_rt.evaluate(fast, first)
            assert openvino_rt.reuse(fast, second) == 0 and fast.prompt == [] and fast.exact == 0
        return
    with llm._lock:
        openvino_rt.forget(fast)
        afresh = openvino_rt.evaluate(fast, second)
        openvino_rt.forget(fast)
        logits = openvino_rt.evaluate(fast, first)
        for _ in range(3):  # as generation goes on after a prompt
            logits = openvino_rt.evaluate(fast, [int(np.argmax(logits))])
        generated = fast.prompt[len(first):]
        again = first + generated + llm.encode(" And so on.")
        assert openvino_rt.reuse(fast, again) == len(first)  # the generated tokens are read again
        openvino_rt.evaluate(fast, again[len(first):])
        assert openvino_rt.reuse(fast, second) == shared and fast.prompt == second[:shared]
        assert np.array_equal(openvino_rt.evaluate(fast, second[shared:]), afresh)
        assert openvino_rt.reuse(fast, second) == len(second) - 2  # a prompt never keeps all of itself


def test_a_generation_reads_only_what_the_cache_lacks(openvino_path: pytest.MonkeyPatch, cache: Path) -> None:
    llm = LocalLLM("smollm2", cache_dir=cache)
    fast = llm._fast()
    assert isinstance(fast, openvino_rt.OVModel)
    evaluated: list[int] = []
    original = openvino_rt.evaluate

    def counting(model: openvino_rt.OVModel, ids: list[int]) -> object:
        evaluated.append(len(ids))
        return original(model, ids)

    openvino_path.setattr(openvino_rt, "evaluate", counting)
    story = story_text(900)
    llm.generate_text(story + " The end of the first part.", max_tokens=4)
    evaluated.clear()
    second = llm.generate_text(story + " A second part began, and", max_tokens=4)
    ids = llm.encode(story + " A second part began, and")
    if fast.keep_prefix:
        assert 2 <= evaluated[0] < 20
    else:  # kept prefixes are not exact on this CPU: the whole prompt is read again
        assert evaluated[0] == len(ids)
    assert evaluated[1:] == [1] * (second.output_tokens - 1)
    assert fast.prompt[:second.input_tokens] == ids and second.input_tokens == len(ids)


def test_stop_strings_streaming_and_seeded_sampling(llm: LocalLLM) -> None:
    whole = llm.generate_text(PROMPTS[1], max_tokens=16)
    stop = " " + whole.text.split()[3]
    cut = llm.generate_text(PROMPTS[1], max_tokens=16, stop=[stop])
    assert stop not in cut.text and whole.text.startswith(cut.text) and cut.finish_reason == "stop"
    messages = [{"role": "user", "content": "Describe a sunny day at the beach in one sentence."}]
    assert "".join(llm.stream(messages, max_tokens=16)) == llm.complete(messages, max_tokens=16).text
    sampled = [llm.complete(messages, max_tokens=24, temperature=0.8, top_p=0.95, seed=3).text for _ in range(2)]
    assert sampled[0] == sampled[1] and sampled[0].strip()


def test_an_early_end_goes_on_until_min_words(openvino_path: pytest.MonkeyPatch, cache: Path) -> None:
    llm = LocalLLM("smollm2", cache_dir=cache)
    messages = [{"role": "user", "content": "Say yes."}]
    short = llm.complete(messages, max_tokens=300)
    assert short.finish_reason == "stop" and short.output_tokens < 200  # the model ends by itself
    want = len(short.text.split()) + 40
    longer = llm.complete(messages, max_tokens=400, min_words=want)
    assert len(longer.text.split()) >= want and longer.output_tokens <= 400
    assert longer.text.startswith(short.text) and "\n\n" in longer.text[len(short.text):len(short.text) + 3]


def test_the_default_setting_generates_with_openvino(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    monkeypatch.delenv(runtimes.RUNTIME_ENV, raising=False)
    llm = LocalLLM("smollm2", cache_dir=cache)
    assert llm.runtime == "openvino" and llm.warm().source == "openvino"
    monkeypatch.setenv(runtimes.RUNTIME_ENV, "llama.cpp")   # asked for by name, llama.cpp serves
    assert LocalLLM("smollm2", cache_dir=cache).runtime == "llama.cpp"


@pytest.mark.parametrize("setting", ["auto", "openvino"])
def test_a_missing_openvino_falls_back_to_llama_cpp_with_a_log_line(
        openvino_path: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, cache: Path, setting: str) -> None:
    openvino_path.setenv(runtimes.RUNTIME_ENV, setting)
    openvino_path.setitem(sys.modules, "openvino", None)  # `import openvino` now raises ImportError
    openvino_path.setattr(openvino_rt, "_missing_logged", False)
    llm = LocalLLM("smollm2", cache_dir=cache)
    with caplog.at_level(logging.WARNING, logger="core.llm.openvino_rt"):
        assert llm.runtime == "llama.cpp"
        assert llm.generate_text(PROMPTS[0], max_tokens=6).output_tokens == 6
    assert any("OpenVINO is not usable here" in r.getMessage() for r in caplog.records)


def test_a_failed_export_falls_back_by_default_and_fails_when_openvino_is_asked_for(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, cache: Path) -> None:
    def no_export(name: str, cache_dir: Path) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(openvino_rt, "_models", {})   # nothing compiled yet in this process
    monkeypatch.setattr(openvino_rt, "_failed", set())
    monkeypatch.setattr(openvino_export, "model_xml", no_export)
    monkeypatch.setenv(runtimes.RUNTIME_ENV, "openvino")
    with pytest.raises(OSError, match="No space left"):
        LocalLLM("smollm2", cache_dir=cache).generate_text(PROMPTS[0], max_tokens=4)
    monkeypatch.delenv(runtimes.RUNTIME_ENV)
    llm = LocalLLM("smollm2", cache_dir=cache)
    with caplog.at_level(logging.WARNING, logger="core.llm.openvino_rt"):
        assert llm.generate_text(PROMPTS[0], max_tokens=4).output_tokens == 4
    assert llm.runtime == "llama.cpp" and llamacpp.is_loaded("smollm2")
    assert any("OpenVINO could not load smollm2" in r.getMessage() for r in caplog.records)


def test_a_prompt_read_in_pieces_gives_the_same_logits_and_grows_the_cache(llm: LocalLLM) -> None:
    """A prompt read in two calls ends at the logits of one call (where the probe found this exact on this CPU; else
    the same greedy token), and a prompt longer than the first cache's blocks grows it, keeping the past."""
    import numpy as np
    fast = llm._fast()
    assert isinstance(fast, openvino_rt.OVModel)
    ids = llm.encode(story_text(900))
    same = np.array_equal if fast.keep_prefix else (lambda a, b: int(np.argmax(a)) == int(np.argmax(b)))
    with llm._lock:
        openvino_rt.forget(fast)
        whole = openvino_rt.evaluate(fast, ids)
        openvino_rt.forget(fast)
        openvino_rt.evaluate(fast, ids[:500])
        pieces = openvino_rt.evaluate(fast, ids[500:])
        assert fast.prompt == ids and fast.exact == len(ids)
        assert same(whole, pieces)
        small = openvino_rt.OVModel(fast.name, fast.compiled, fast.compiled.create_infer_request(), fast.eog_ids,
                                    0.0, fast.precision, fast.block)
        openvino_rt._grow(small, 4)  # 128 tokens
        openvino_rt.evaluate(small, ids[:100])
        grown = openvino_rt.evaluate(small, ids[100:])  # needs more blocks: the cache doubles, the first 100 kept
        assert next(iter(small.caches.values())).shape[0] >= -(-len(ids) // fast.block)
        assert same(grown, whole)


def test_kept_prefixes_follow_the_probe_and_greedy_text_holds_either_way(
        openvino_path: pytest.MonkeyPatch, cache: Path, tmp_path: Path) -> None:
    """Where the probe finds kept prefixes inexact (a stand-in says so here; an Intel CPU with AMX did), OpenVINO
    still serves but reads every prompt afresh; the probe's own measurement agrees with this CPU's real verdict, in
    the arithmetic that verdict chose (on a CPU with AMX bfloat16's prefixes are inexact and float32's exact)."""
    real = exact_here("smollm2", cache)
    chosen = runtime_probe.verdict("openvino", "smollm2", cache).precision
    stand_in_probe(openvino_path, tmp_path, "inexact")
    llm = LocalLLM("smollm2", cache_dir=cache)
    fast = llm._fast()
    assert isinstance(fast, openvino_rt.OVModel) and not fast.keep_prefix and llm.runtime == "openvino"
    story = story_text(300)
    first = llm.generate_text(story + " Then the ghost said", max_tokens=8)
    assert len(fast.prompt) >= first.input_tokens
    second = llm.generate_text(story + " Meanwhile, in the kitchen,", max_tokens=8)
    assert openvino_rt.reuse(fast, llm.encode(story + " Then")) == 0
    assert llm.generate_text(story + " Then the ghost said", max_tokens=8).text == first.text
    assert second.text
    ids = llm.encode(story)
    with llm._lock:
        if chosen and chosen != fast.precision:   # the stand-in chose none: the default arithmetic was compiled
            import openvino as ov
            fast = openvino_rt.wrap("smollm2", openvino_rt._compile(
                ov.Core(), "smollm2", openvino_export.model_xml("smollm2", cache), chosen), frozenset(), 0.0, chosen)
        assert openvino_rt.prefix_exact(fast, ids) == real
        assert fast.prompt == []  # the measurement leaves the cache empty


def test_the_probe_chooses_the_arithmetic_and_the_app_compiles_with_it(
        openvino_path: pytest.MonkeyPatch, cache: Path, tmp_path: Path) -> None:
    """The probe's precision verdict (a stand-in's float32 here) is what the app compiles with, and the probe's
    note (`cli.py llm prepare` prints it) says it; the real measurement on this CPU names one of the two and the time
    each took."""
    stand_in_probe(openvino_path, tmp_path, "float32")
    llm = LocalLLM("smollm2", cache_dir=cache)
    fast = llm._fast()
    assert isinstance(fast, openvino_rt.OVModel) and fast.precision == "f32"
    assert "float32 arithmetic" in runtime_probe.known("openvino", "smollm2").note()
    assert llm.generate_text("The old man opened the door and", max_tokens=4, temperature=0).text.strip()
    ids = list(llm.tokenizer(runtime_probe.PROBE_TEXT)["input_ids"])[:200]
    chosen, seconds = openvino_rt.faster_precision("smollm2", openvino_export.model_xml("smollm2", cache), ids,
                                                   rounds=1)
    assert chosen in ("bf16", "f32")
    assert not seconds or (set(seconds) == {"bf16", "f32"} and seconds[chosen] == min(seconds.values()))


@pytest.mark.parametrize("setting", ["auto", "openvino"])
def test_an_openvino_probe_that_segfaults_falls_back_or_fails_clearly(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, cache: Path, tmp_path: Path,
        setting: str) -> None:
    from core.llm.errors import LLMError
    stand_in_probe(monkeypatch, tmp_path, "segfault")
    monkeypatch.setattr(openvino_rt, "_failed", set())
    monkeypatch.setitem(runtime_probe.PROBES, "llama.cpp", "tests.support.stand_in_runtime:passes")
    monkeypatch.setenv(runtimes.RUNTIME_ENV, setting)
    llm = LocalLLM("smollm2", cache_dir=cache)
    if setting == "openvino":  # asked for by name: the error is the answer, and nothing was loaded
        with pytest.raises(LLMError, match="SIGSEGV"):
            llm.generate_text(PROMPTS[0], max_tokens=4)
        assert not openvino_rt.is_loaded("smollm2")
        return
    with caplog.at_level(logging.WARNING, logger="core.llm.openvino_rt"):
        assert llm.generate_text(PROMPTS[0], max_tokens=4).output_tokens == 4
    assert llm.runtime == "llama.cpp" and not openvino_rt.is_loaded("smollm2")
    assert [r.getMessage() for r in caplog.records if "SIGSEGV" in r.getMessage()]


def test_gemma_keeps_its_sliding_windows_on_paged_attention(openvino_path: pytest.MonkeyPatch, cache: Path) -> None:
    """Gemma 3's local layers see the last `sliding_window` tokens (512), its global layers all of them: the window
    is set on each layer's PagedAttention operation (the conversion leaves it at 0, all tokens, for every layer)."""
    import openvino as ov
    from transformers import AutoConfig

    from core.llm.local_models import gguf_file
    gguf = gguf_file("gemma3-270m", cache)
    config = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name).to_dict()  # the GGUF's metadata only
    xml = openvino_export.model_xml("gemma3-270m", cache)
    core = ov.Core()
    core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")  # the CPU plugin defines PagedAttentionExtension
    windows = {layer: int(node.input(openvino_export.WINDOW_INPUT).get_source_output().get_node().get_data())
               for layer, node in openvino_export.paged_attention_by_layer(core.read_model(str(xml))).items()}
    assert windows == {i: config["sliding_window"] if kind == "sliding_attention" else 0
                       for i, kind in enumerate(config["layer_types"])}
    assert sorted(set(windows.values())) == [0, 512]
    # ... and the window holds where it matters: a prompt longer than it reads as transformers' float32 model does
    # (OpenVINO GenAI's PagedAttention conversion of a stateful export dropped the window: its greedy text after
    # 1,000 tokens was "., the ., ..." and the KL here above 2; bench/README.md "OpenVINO GenAI A/B")
    import numpy as np
    import torch
    llm = LocalLLM("gemma3-270m", cache_dir=cache)
    ids = llm.encode(story_text(900))[:1000]
    assert len(ids) == 1000
    ours = torch.log_softmax(torch.tensor(np.asarray(llm.fast_next_logits(ids), dtype=np.float32)), -1)
    with torch.inference_mode():
        reference = torch.log_softmax(llm.model(input_ids=torch.tensor([ids])).logits[0, -1].float(), -1)
    assert float((reference.exp() * (reference - ours)).sum()) < 0.1
