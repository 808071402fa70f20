"""The transformers generation path of the embedded models: float32 weights dequantized from the GGUF, used where
llama.cpp is missing or turned off (`FABULA_LOCAL_RUNTIME=transformers`). `LocalLLM` dispatches here; nothing else
calls these functions."""
from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Sequence
from typing import Any, Protocol

from core.llm.base import Completion, FinishReason, GenerationOptions, StopScanner, Stopwatch, truncate_at_stop
from core.llm.errors import LLMError
from core.llm.loopguard import LoopGuard


class TorchHost(Protocol):
    """What this path needs of core.llm.local.LocalLLM (declared here, so this module does not import that one,
    which imports this)."""

    name: str
    model_name: str
    _lock: threading.Lock

    @property
    def model(self) -> Any: ...

    @property
    def tokenizer(self) -> Any: ...

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str: ...

    def _prompt_ids(self, prompt: str, opts: GenerationOptions, add_special_tokens: bool) -> tuple[list[int], int]: ...


def model_inputs(llm: TorchHost, prompt: str, opts: GenerationOptions, add_special_tokens: bool) -> tuple[Any, int]:
    """The prompt as transformers inputs (ids and attention mask), and the room left for new tokens."""
    import torch
    ids, room = llm._prompt_ids(prompt, opts, add_special_tokens)
    return {"input_ids": torch.tensor([ids]), "attention_mask": torch.ones(1, len(ids), dtype=torch.long)}, room

def generation_kwargs(llm: TorchHost, opts: GenerationOptions, max_new: int) -> dict[str, Any]:
    import torch
    from transformers import GenerationConfig
    tok, base = llm.tokenizer, llm.model.generation_config
    sampling = opts.temperature > 0
    # A fresh config, so defaults shipped with the model (top_k, repetition penalties) never apply unasked.
    config = GenerationConfig(max_new_tokens=max_new, do_sample=sampling, eos_token_id=base.eos_token_id,
                              min_new_tokens=min(opts.min_tokens, max_new) or None,
                              bos_token_id=base.bos_token_id,
                              pad_token_id=base.pad_token_id if base.pad_token_id is not None else tok.eos_token_id)
    if sampling:
        config.temperature = opts.temperature
        config.top_p = opts.top_p or 1.0
        config.top_k = 0
        if opts.seed is not None:
            torch.manual_seed(opts.seed)
    kwargs: dict[str, Any] = {"generation_config": config}
    processors: list[Any] = []
    if opts.min_words:
        eos = base.eos_token_id
        processors.append(MinWords(llm.decode, opts.min_words, eos if isinstance(eos, list) else [eos]))
    if opts.loop_guard is not None and opts.loop_guard.active:
        processors.append(Guarded(opts.loop_guard))
    if processors:
        from transformers import LogitsProcessorList
        kwargs["logits_processor"] = LogitsProcessorList(processors)
    if opts.stop:
        config.stop_strings = list(opts.stop)
        kwargs["tokenizer"] = tok  # the stop-string criterion needs it to map strings onto tokens
    return kwargs

class MinWords:
    """A logits processor: no end-of-text token until the new text has `min_words` words (the llama.cpp path starts
    a paragraph instead of ending early; here the end token is simply not allowed yet). The text is decoded every
    `EVERY` tokens, not at each one; in between the end stays barred, so the count may run a few tokens over."""

    EVERY = 8

    def __init__(self, decode: Callable[[list[int]], str], min_words: int, eos_ids: Sequence[int]) -> None:
        self.decode, self.min_words, self.eos_ids = decode, min_words, [i for i in eos_ids if i is not None]
        self.prompt_len: int | None = None
        self.reached = False

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self.prompt_len is None:
            self.prompt_len = int(input_ids.shape[1])
        new = int(input_ids.shape[1]) - self.prompt_len
        if not self.reached and new % self.EVERY == 0 and new:
            self.reached = len(self.decode(input_ids[0, self.prompt_len:].tolist()).split()) >= self.min_words
        if not self.reached and self.eos_ids:
            scores[:, self.eos_ids] = float("-inf")
        return scores


class Guarded:
    """A logits processor applying the loop guard (`core.llm.loopguard`) after the new tokens, as the OpenVINO and
    llama.cpp loops do: the same `GuardState`, so the three runtimes bar the same tokens."""

    def __init__(self, guard: LoopGuard) -> None:
        self.state = guard.state()
        self.prompt_len: int | None = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self.prompt_len is None:
            self.prompt_len = int(input_ids.shape[1])
        row = scores[0]
        guarded = self.state.apply(row, input_ids[0, self.prompt_len:].tolist())
        if guarded is not row:
            scores = scores.clone()
            scores[0] = guarded
        return scores


def finish(llm: TorchHost, new_ids: Sequence[int], max_new: int, stopped: bool) -> FinishReason:
    eos = llm.model.generation_config.eos_token_id
    eos_ids = set(eos if isinstance(eos, list) else [eos])
    if stopped or (new_ids and new_ids[-1] in eos_ids) or len(new_ids) < max_new:
        return "stop"
    return "length"


def generate(llm: TorchHost, prompt: str, opts: GenerationOptions, add_special_tokens: bool) -> Completion:
    import torch
    watch = Stopwatch()
    inputs, max_new = model_inputs(llm, prompt, opts, add_special_tokens)
    n_in = int(inputs["input_ids"].shape[1])
    kwargs = generation_kwargs(llm, opts, max_new)
    with llm._lock, torch.inference_mode():
        try:
            out = llm.model.generate(**inputs, **kwargs)
        except Exception as exc:  # noqa: BLE001 - surface as the one error family
            raise LLMError(f"local: generation with {llm.name} failed: {exc}", provider="local") from exc
    new_ids = out[0, n_in:].tolist()
    text, stopped = truncate_at_stop(llm.decode(new_ids), opts.stop)
    return Completion(text, n_in, len(new_ids), watch.elapsed(), finish(llm, new_ids, max_new, stopped),
                      llm.model_name)

def stream(llm: TorchHost, prompt: str, opts: GenerationOptions, add_special_tokens: bool,
            strip_leading: bool) -> Generator[str, None, Completion]:
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

    watch = Stopwatch()
    inputs, max_new = model_inputs(llm, prompt, opts, add_special_tokens)
    n_in = int(inputs["input_ids"].shape[1])
    kwargs = generation_kwargs(llm, opts, max_new)
    streamer = TextIteratorStreamer(llm.tokenizer, skip_prompt=True, skip_special_tokens=True)
    cancel = threading.Event()

    class _Cancelled(StoppingCriteria):  # lets the consumer stop generation by closing the stream
        def __call__(self, input_ids: Any, scores: Any, **kw: Any) -> Any:
            return torch.full((input_ids.shape[0],), cancel.is_set(), dtype=torch.bool)

    result: dict[str, Any] = {}

    def run() -> None:
        try:
            with llm._lock, torch.inference_mode():
                result["ids"] = llm.model.generate(**inputs, **kwargs, streamer=streamer,
                                                    stopping_criteria=StoppingCriteriaList([_Cancelled()]))
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer thread below
            result["error"] = exc
            streamer.end()  # unblock the consumer

    worker = threading.Thread(target=run, name=f"generate-{llm.model_name}", daemon=True)
    worker.start()
    scanner = StopScanner(opts.stop)
    started = not strip_leading
    try:
        for piece in streamer:
            out = scanner.feed(piece)
            if not started:
                out = out.lstrip()
                started = bool(out)
            if out:
                yield out
            if scanner.stopped:
                break
        tail = scanner.flush()
        if tail and strip_leading:
            tail = tail.rstrip() if started else tail.strip()
        if tail:
            yield tail
    finally:
        cancel.set()
        worker.join()
    if "error" in result:
        raise LLMError(f"local: generation with {llm.name} failed: {result['error']}",
                       provider="local") from result["error"]
    new_ids = result["ids"][0, n_in:].tolist()
    text = scanner.emitted.strip() if strip_leading else scanner.emitted
    return Completion(text, n_in, len(new_ids), watch.elapsed(), finish(llm, new_ids, max_new, scanner.stopped),
                      llm.model_name)
