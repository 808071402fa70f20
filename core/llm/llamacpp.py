"""The fast generation path for the embedded models: llama.cpp (through llama-cpp-python) on the packages' GGUF files.

Chosen by measurement on the 2-core CPU against transformers (bench/llm.py prints both side by side): llama.cpp runs
the 4-bit weights as they are, where transformers dequantizes them to float32 first. Nothing is converted: the GGUF
that transformers dequantizes is the file llama.cpp reads (memory-mapped), so the first load takes a second, not a
minute, and the process stays small.

It implements `decoding.FastModel`: generation, and next-token logits for a token-by-token loop (KID's logits
variant). Log-probabilities of given text and gradients (multiple-choice scoring, perplexity, KID's key/value
variant) stay on the transformers model, which `LocalLLM` loads only when one of those is asked for. Prompts are
tokenized by the same Hugging Face tokenizer on both paths and the ids handed to llama.cpp, so both paths see
identical prompts.

One llama.cpp context per model per process, shared by every session and page (the caller holds the model's
generation lock). The KV cache of the last prompt is kept: when the next prompt starts with the same tokens (a
writer's system prompt and the story so far), whole evaluation batches of that prefix are not evaluated again.

Since 2026-11-25 the default (`FABULA_LOCAL_RUNTIME=auto`) is the OpenVINO path (`openvino_rt`), which reads prompts
about 2.7x as fast as this one on the 2-core AMD EPYC; this path serves when OpenVINO is missing or when
`FABULA_LOCAL_RUNTIME=llama.cpp` asks for it (`runtimes` chooses). It is loaded only after a child process has run it
on this machine (`runtime_probe`): the wheel is built without ggml's AMX backend, which segfaults on Intel CPUs that
have AMX, and any other native fault is met there rather than in the server.
"""
from __future__ import annotations

import atexit
import logging
import random
import threading
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from core.llm.decoding import Decode, Detokenizer, FastRun, common_prefix, cpu_threads, goes_on, one_step
from core.quiet import close_llama_cpp_files_at_exit
from core.llm.loopguard import LoopGuard

log = logging.getLogger(__name__)

# Tokens of context allocated per model. The KV cache is small for these models (SmolLM2 ~23 KB/token; Gemma 3
# 270M keeps full-context caches on 3 of its 18 layers only), so each model gets the window its card declares.
N_BATCH = 512
_models: dict[str, LlamaModel] = {}
_lock = threading.Lock()
_missing_logged = False
_unsafe_logged: set[str] = set()


@dataclass
class LlamaModel:
    """A llama.cpp model: `decoding.FastModel` on llama-cpp-python."""

    runtime: ClassVar[str] = "llama.cpp"
    name: str
    llama: Any  # llama_cpp.Llama
    eog_ids: frozenset[int]  # end-of-generation tokens by the GGUF's own vocabulary (eos, eot, end_of_turn)
    seconds: float  # load time
    prompt: list[int] = field(default_factory=list)  # the tokens whose KV cache is held (the last prompt, or a
    # token-by-token loop's ids)

    @property
    def handle(self) -> Any:
        return self.llama

    def text_pieces(self, prompt_ids: Sequence[int], how: Decode) -> Generator[str, None, None]:
        """Generated text as it comes, held back and cut by the stop strings of `how.run.scanner`; ids are recorded
        in `how.run`.

        Greedy at temperature 0; otherwise plain temperature sampling with optional top-p and no top-k, min-p or
        llama.cpp repetition penalty, as on the transformers path. `guard` (the loop guard, None: off) bars repeated
        n-grams of the new tokens: a logits processor first in llama.cpp's sampler chain, asking the same `GuardState`
        as the other runtimes (llama.cpp's own penalties count the prompt too, so they are left off). Generation ends
        at an end token (not kept), a stop string or `max_new` tokens; closing the generator ends it too. An end token
        before `min_new` tokens, or before the new text has `min_words` words, is replaced by the `paragraph` ids and
        generation goes on from there (the KV cache keeps everything before, so it costs nothing).
        """
        run = how.run
        llama = self.llama
        sampling = how.temperature > 0
        if sampling:
            llama.set_seed(how.seed if how.seed is not None else random.getrandbits(31))
        ends = self.eog_ids | frozenset(how.stop_ids)
        detok = Detokenizer(how.decode)
        processors = _guard_processors(how.guard, run)
        while True:
            restart = False
            prompt = list(prompt_ids) + run.new_ids
            keep = reusable_prefix(self.prompt, prompt) if llama.n_tokens >= len(self.prompt) else 0
            if keep and not llama._ctx.kv_cache_seq_rm(-1, keep, -1):  # a cache that cannot drop its tail: start over
                keep = 0
            llama.n_tokens = keep  # evaluation starts after the kept batches
            self.prompt = prompt
            tokens = llama.generate(prompt[keep:], temp=how.temperature if sampling else 0.0, top_k=0,
                                    top_p=(how.top_p or 1.0) if sampling else 1.0, min_p=0.0, typical_p=1.0,
                                    repeat_penalty=1.0, reset=False, logits_processor=processors)
            try:
                for token in tokens:
                    if token in ends:
                        restart = goes_on(how)
                        run.ended = not restart
                        new = list(how.paragraph) if restart else []
                    else:
                        new = [int(token)]
                    for piece_id in new:
                        run.new_ids.append(piece_id)
                        out = run.scanner.feed(detok.push(piece_id))
                        if out:
                            yield out
                    if token in ends or run.scanner.stopped or len(run.new_ids) >= how.max_new:
                        break
            finally:
                tokens.close()
            if not restart or run.scanner.stopped:
                break
        if not run.scanner.stopped:
            out = run.scanner.feed(detok.flush())
            if out:
                yield out

    def next_logits(self, ids: Sequence[int]) -> Any:
        """`decoding.FastModel.next_logits` on llama.cpp: a step of one token after the held ones reads that token
        alone; otherwise whole batches of the shared prefix are kept, as `text_pieces` keeps them."""
        import numpy as np
        llama, ids = self.llama, [int(i) for i in ids]
        if not ids:
            raise ValueError("no tokens: there is nothing to read")
        if one_step(self.prompt, ids) and llama.n_tokens == len(self.prompt):
            keep = len(self.prompt)
        else:
            keep = reusable_prefix(self.prompt, ids) if llama.n_tokens >= len(self.prompt) else 0
            if keep and not llama._ctx.kv_cache_seq_rm(-1, keep, -1):
                keep = 0
            llama.n_tokens = keep
        self.prompt = []  # until the read below has gone through
        llama.eval(ids[keep:])
        self.prompt = ids
        return np.array(np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(llama.n_vocab(),)), dtype=np.float32)


def reusable_prefix(cached: Sequence[int], prompt: Sequence[int], batch: int = N_BATCH) -> int:
    """How many leading tokens of `prompt` can keep the KV cache of `cached` (the previous prompt): their common
    prefix, rounded down to whole evaluation batches and short of the last token (which must be evaluated to give
    the next token's logits). Whole batches keep the result identical to evaluating the prompt afresh: the same
    tokens go through the same batches, so the same kernels give the same numbers, and greedy text never depends on
    what was asked before."""
    return min(common_prefix(cached, prompt), len(prompt) - 1) // batch * batch


def available(*, warn: bool = True) -> bool:
    """Whether llama-cpp-python imports here (`runtimes` decides whether it serves). Missing, it is logged once as a
    warning when it would have served; `warn=False` (the set-up asking whether to make its files, where OpenVINO
    serves and llama.cpp is built only when needed) says nothing."""
    global _missing_logged
    try:
        import llama_cpp  # noqa: F401
        close_llama_cpp_files_at_exit()
        logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)  # llama.cpp's own chatter (loads, quantizer)
    except Exception as exc:  # noqa: BLE001 - a broken build counts as missing, the slow path still works
        if warn and not _missing_logged:
            log.warning("llama-cpp-python is not usable here (%s): where OpenVINO cannot run, the embedded models "
                        "generate with transformers, several times slower. `FABULA_WITH_LLAMA_CPP=1 bash "
                        "scripts/dev.sh setup` builds it.", exc)
            _missing_logged = True
        return False
    return True


def load_fast(name: str, gguf: Path, n_ctx: int) -> LlamaModel:
    """The llama.cpp model for `name`, loaded at most once per process."""
    with _lock:
        if name in _models:
            return _models[name]
        import llama_cpp
        start = time.perf_counter()
        threads = cpu_threads()
        # swa_full: sliding-window layers (Gemma 3) keep every position, so a kept prefix stays whole.
        # flash_attn: measured on the 2-core AMD EPYC (bench/README.md), prompts +13-16% and generation +3-10% for
        # both models, perplexity within 0.3% of the path without it.
        llama = llama_cpp.Llama(model_path=str(gguf), n_ctx=n_ctx, n_batch=N_BATCH, n_ubatch=N_BATCH,
                                n_threads=threads, n_threads_batch=threads, swa_full=True, flash_attn=True,
                                verbose=False)
        vocab = llama_cpp.llama_model_get_vocab(llama.model)
        eog = frozenset(t for t in range(llama.n_vocab()) if llama_cpp.llama_vocab_is_eog(vocab, t))
        model = LlamaModel(name, llama, eog, round(time.perf_counter() - start, 3))
        if not _models:
            atexit.register(unload)  # freed before interpreter teardown, which breaks llama-cpp-python's __del__
        log.info("llama.cpp: %s loaded from %s in %.2f s (%d threads, %d context)", name, gguf, model.seconds,
                 threads, n_ctx)
        _models[name] = model
        return model


def is_loaded(name: str) -> bool:
    return name in _models


def mark_unsafe(name: str, note: str) -> None:
    """Log once per process that llama.cpp is passed over for `name` (its probe failed on this machine)."""
    if name not in _unsafe_logged:
        log.warning("%s; the embedded model generates with transformers, several times slower.", note)
        _unsafe_logged.add(name)


def unload(name: str | None = None) -> None:
    with _lock:
        for key in list(_models) if name is None else [name]:
            model = _models.pop(key, None)
            if model is not None:
                model.llama.close()


def _guard_processors(guard: LoopGuard | None, run: FastRun) -> Any:
    """llama-cpp-python logits processors applying `guard` after the new ids in `run` (None when it is off). The
    processor runs before the token is sampled and sees the whole vocabulary's logits in id order."""
    if guard is None or not guard.active:
        return None
    import llama_cpp
    state = guard.state()

    def barred(_input_ids: Any, scores: Any) -> Any:
        return state.apply(scores, run.new_ids)
    return llama_cpp.LogitsProcessorList([barred])
