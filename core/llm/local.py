"""The embedded local provider: a small transformers causal LM from a package, on the CPU.

Besides the common interface it gives scoring access that decoding and metrics code builds on:
`next_token_logits(prompt)`, `logprob(prompt, continuation)`, `token_logprobs(prompt, continuation)`, and the
underlying `model` and `tokenizer`. Prompts from messages use the tokenizer's chat template when it has one (SmolLM2);
a base model (Gemma 3 270M) gets a plain "Question: ... Answer:" transcript. `generate_text(prompt)` continues raw
text with no formatting at all.

Token counting and prompt formatting (`count_tokens`, `format_prompt`, `has_chat_template`: all a dry run needs) read
only the tokenizer and never load the weights; generation and scoring load the model (`load()`) first.
"""
from __future__ import annotations

import threading
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.config import Settings, get_settings
from core.llm.base import (Completion, GenerationOptions, Message, MessagesIn, StopScanner, Stopwatch, TextStream,
                           normalize_messages, truncate_at_stop)
from core.llm.errors import LLMContextOverflow, LLMError
from core.llm.local_models import LoadedModel, load_local_model, load_local_tokenizer, spec_for

# Plain transcript for models without a chat template. The stop keeps a base model from writing the next question.
PLAIN_USER, PLAIN_ASSISTANT = "Question: ", "Answer:"
PLAIN_STOP = ("\nQuestion:",)

# One generation at a time per model, across every LocalLLM sharing it: two cores do not share well.
_generation_locks: dict[str, threading.Lock] = {}


@dataclass(frozen=True)
class TokenLogprob:
    token_id: int
    token: str
    logprob: float


class LocalLLM:
    provider = "local"

    def __init__(self, model: str, *, cache_dir: Path | None = None, settings: Settings | None = None) -> None:
        self.spec = spec_for(model)  # unknown names fail here, before any loading
        self.model_name = model
        self.name = f"local:{model}"
        self.context_window = self.spec.context_window
        self.cache_dir = Path(cache_dir) if cache_dir else (settings or get_settings()).cache_dir
        self._loaded: LoadedModel | None = None  # the model (and its tokenizer), once something needs the weights
        self._tokenizer: Any = None  # the tokenizer alone, while only tokens are counted
        self._lock = _generation_locks.setdefault(model, threading.Lock())

    def __repr__(self) -> str:
        return f"LocalLLM(name={self.name!r}, loaded={self._loaded is not None})"

    # -- loading ---------------------------------------------------------------------------------------------------
    def load(self) -> LoadedModel:
        """Load now (from memory, the disk cache or the GGUF) and report where from and how long it took."""
        if self._loaded is None:
            loaded = load_local_model(self.model_name, self.cache_dir)
            self._loaded, self._tokenizer = loaded, None  # from now on the model's own tokenizer is used
            return loaded
        return LoadedModel(self._loaded.model, self._loaded.tokenizer, "memory", 0.0)

    @property
    def model(self) -> Any:
        return (self._loaded or self.load()).model

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer once the model is loaded; until then the tokenizer alone (no weights are read)."""
        if self._loaded is not None:
            return self._loaded.tokenizer
        if self._tokenizer is None:
            self._tokenizer = load_local_tokenizer(self.model_name, self.cache_dir)
        return self._tokenizer

    @property
    def has_chat_template(self) -> bool:
        return bool(getattr(self.tokenizer, "chat_template", None))

    # -- tokens ------------------------------------------------------------------------------------------------------
    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"])

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def count_tokens(self, text: str) -> int:
        return len(self.encode(text, add_special_tokens=False))

    # -- prompts -----------------------------------------------------------------------------------------------------
    def format_prompt(self, messages: MessagesIn) -> str:
        """The exact text the model sees for `messages` (chat template, or the plain Question/Answer transcript)."""
        msgs = normalize_messages(messages)
        if self.has_chat_template:
            return self.tokenizer.apply_chat_template([m.as_dict() for m in msgs], tokenize=False,
                                                      add_generation_prompt=True)
        return plain_transcript(msgs)

    # -- generation --------------------------------------------------------------------------------------------------
    def complete(self, messages: MessagesIn, options: GenerationOptions | None = None,
                 **overrides: Any) -> Completion:
        opts = GenerationOptions.build(options, **overrides)
        self.load()  # the weights first: the tokenizer then comes with them rather than being read twice
        prompt, opts, chat = self._prepare(messages, opts)
        result = self._generate(prompt, opts, add_special_tokens=not chat)
        if not chat:
            result.text = result.text.strip()
        return result

    def generate_text(self, prompt: str, options: GenerationOptions | None = None, **overrides: Any) -> Completion:
        """Continue `prompt` as raw text (no chat template, no transcript); the text is returned unstripped."""
        self.load()
        return self._generate(prompt, GenerationOptions.build(options, **overrides), add_special_tokens=True)

    def stream(self, messages: MessagesIn, options: GenerationOptions | None = None,
               **overrides: Any) -> TextStream:
        opts = GenerationOptions.build(options, **overrides)
        self.load()
        prompt, opts, chat = self._prepare(messages, opts)
        return TextStream(self._stream(prompt, opts, add_special_tokens=not chat, strip_leading=not chat), self.name)

    def _prepare(self, messages: MessagesIn, opts: GenerationOptions) -> tuple[str, GenerationOptions, bool]:
        chat = self.has_chat_template
        prompt = self.format_prompt(messages)
        if not chat:
            opts = GenerationOptions.build(opts, stop=tuple(opts.stop) + PLAIN_STOP)
        return prompt, opts, chat

    def _inputs(self, prompt: str, opts: GenerationOptions, add_special_tokens: bool) -> tuple[Any, int]:
        """Tokenized prompt and the number of new tokens that still fit in the context window."""
        inputs = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=add_special_tokens)
        n_in = int(inputs["input_ids"].shape[1])
        room = self.context_window - n_in
        if room < 1:
            raise LLMContextOverflow(f"local: the prompt has {n_in} tokens but {self.name} reads at most "
                                     f"{self.context_window}; shorten the prompt", provider="local")
        return inputs, min(opts.max_tokens, room)

    def _generation_kwargs(self, opts: GenerationOptions, max_new: int) -> dict[str, Any]:
        import torch
        from transformers import GenerationConfig
        tok, base = self.tokenizer, self.model.generation_config
        sampling = opts.temperature > 0
        # A fresh config, so defaults shipped with the model (top_k, repetition penalties) never apply unasked.
        config = GenerationConfig(max_new_tokens=max_new, do_sample=sampling, eos_token_id=base.eos_token_id,
                                  bos_token_id=base.bos_token_id,
                                  pad_token_id=base.pad_token_id if base.pad_token_id is not None else tok.eos_token_id)
        if sampling:
            config.temperature = opts.temperature
            config.top_p = opts.top_p or 1.0
            config.top_k = 0
            if opts.seed is not None:
                torch.manual_seed(opts.seed)
        kwargs: dict[str, Any] = {"generation_config": config}
        if opts.stop:
            config.stop_strings = list(opts.stop)
            kwargs["tokenizer"] = tok  # the stop-string criterion needs it to map strings onto tokens
        return kwargs

    def _finish(self, new_ids: Sequence[int], max_new: int, stopped: bool) -> str:
        eos = self.model.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos])
        if stopped or (new_ids and new_ids[-1] in eos_ids) or len(new_ids) < max_new:
            return "stop"
        return "length"

    def _generate(self, prompt: str, opts: GenerationOptions, add_special_tokens: bool) -> Completion:
        import torch
        watch = Stopwatch()
        inputs, max_new = self._inputs(prompt, opts, add_special_tokens)
        n_in = int(inputs["input_ids"].shape[1])
        kwargs = self._generation_kwargs(opts, max_new)
        with self._lock, torch.inference_mode():
            try:
                out = self.model.generate(**inputs, **kwargs)
            except Exception as exc:  # noqa: BLE001 - surface as the one error family
                raise LLMError(f"local: generation with {self.name} failed: {exc}", provider="local") from exc
        new_ids = out[0, n_in:].tolist()
        text, stopped = truncate_at_stop(self.decode(new_ids), opts.stop)
        return Completion(text, n_in, len(new_ids), watch.elapsed(), self._finish(new_ids, max_new, stopped),
                          self.model_name)

    def _stream(self, prompt: str, opts: GenerationOptions, add_special_tokens: bool,
                strip_leading: bool) -> Generator[str, None, Completion]:
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

        watch = Stopwatch()
        inputs, max_new = self._inputs(prompt, opts, add_special_tokens)
        n_in = int(inputs["input_ids"].shape[1])
        kwargs = self._generation_kwargs(opts, max_new)
        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)
        cancel = threading.Event()

        class _Cancelled(StoppingCriteria):  # lets the consumer stop generation by closing the stream
            def __call__(self, input_ids: Any, scores: Any, **kw: Any) -> Any:
                return torch.full((input_ids.shape[0],), cancel.is_set(), dtype=torch.bool)

        result: dict[str, Any] = {}

        def run() -> None:
            try:
                with self._lock, torch.inference_mode():
                    result["ids"] = self.model.generate(**inputs, **kwargs, streamer=streamer,
                                                        stopping_criteria=StoppingCriteriaList([_Cancelled()]))
            except BaseException as exc:  # noqa: BLE001 - handed to the consumer thread below
                result["error"] = exc
                streamer.end()  # unblock the consumer

        worker = threading.Thread(target=run, name=f"generate-{self.model_name}", daemon=True)
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
            raise LLMError(f"local: generation with {self.name} failed: {result['error']}",
                           provider="local") from result["error"]
        new_ids = result["ids"][0, n_in:].tolist()
        text = scanner.emitted.strip() if strip_leading else scanner.emitted
        return Completion(text, n_in, len(new_ids), watch.elapsed(), self._finish(new_ids, max_new, scanner.stopped),
                          self.model_name)

    # -- scoring -------------------------------------------------------------------------------------------------------
    def next_token_logits(self, prompt: str | Sequence[int] | Any) -> Any:
        """Raw logits (a float32 torch tensor of vocabulary size) for the token after `prompt` (text or ids)."""
        import torch
        self.load()
        if isinstance(prompt, str):
            ids = torch.tensor([self.encode(prompt)])
        else:
            ids = torch.as_tensor(prompt).reshape(1, -1)
        ids = ids[:, -self.context_window:]
        with torch.inference_mode():
            return self.model(input_ids=ids).logits[0, -1].float()

    def token_logprobs(self, prompt: str, continuation: str) -> list[TokenLogprob]:
        """Log-probability of each token of `continuation` given `prompt` and the tokens before it.

        The two parts are tokenized separately (the prompt with the model's special tokens, the continuation
        without), so the split is exact; trailing whitespace of the prompt moves to the continuation, as in
        lm-evaluation-harness, so " Paris" is scored as the model would write it. An empty prompt is conditioned on
        the BOS (or EOS) token. Over-long inputs keep their last `context_window` tokens.
        """
        import torch
        self.load()
        stripped = prompt.rstrip()
        continuation = prompt[len(stripped):] + continuation
        cont = self.encode(continuation, add_special_tokens=False)
        if not cont:
            raise ValueError("continuation is empty: there is nothing to score")
        ctx = self.encode(stripped) if stripped else []
        if not ctx:
            tok = self.tokenizer
            ctx = [tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id]
        ids = (ctx + cont)[-self.context_window:]
        n_cont = len(cont)
        if n_cont >= len(ids):
            raise LLMContextOverflow(f"local: the continuation alone has {n_cont} tokens, more than {self.name} "
                                     f"reads ({self.context_window})", provider="local")
        with torch.inference_mode():
            logits = self.model(input_ids=torch.tensor([ids])).logits[0].float()
        # logits at position i predict token i+1, so the continuation is predicted by the n_cont positions before it
        logprobs = torch.log_softmax(logits[-n_cont - 1:-1], dim=-1)
        targets = torch.tensor(ids[-n_cont:])
        picked = logprobs.gather(1, targets.unsqueeze(1)).squeeze(1).tolist()
        return [TokenLogprob(t, self.tokenizer.decode([t]), lp) for t, lp in zip(ids[-n_cont:], picked)]

    def logprob(self, prompt: str, continuation: str) -> float:
        """Sum of the log-probabilities of `continuation`'s tokens given `prompt` (natural log)."""
        return float(sum(t.logprob for t in self.token_logprobs(prompt, continuation)))


def plain_transcript(messages: list[Message]) -> str:
    """Messages as a plain completion prompt for a base model: system text first, then Question/Answer turns."""
    parts = [m.content.strip() + "\n\n" for m in messages if m.role == "system"]
    for m in messages:
        if m.role == "user":
            parts.append(f"{PLAIN_USER}{m.content.strip()}\n")
        elif m.role == "assistant":
            parts.append(f"{PLAIN_ASSISTANT} {m.content.strip()}\n")
    parts.append(PLAIN_ASSISTANT)
    return "".join(parts)
