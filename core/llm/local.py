"""The embedded local provider: a small causal LM from a package (SmolLM2, Gemma 3 270M), on the CPU.

Generation runs on a fast runtime where one serves here (OpenVINO by default, else llama.cpp; `runtimes` chooses,
`decoding.FastModel` is the one interface both implement), else on the transformers model (`local_torch`).
`fast_next_logits(ids)` gives a token-by-token loop (KID's logits variant) the fast runtime's next-token logits.

Besides the common interface it gives scoring access, on the transformers model, that metrics code builds on:
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
from core.llm import local_models, local_torch, runtimes
from core.llm.decoding import Decode, FastModel, FastRun
from core.llm.base import (Abilities, Completion, FinishReason, GenerationOptions, Message, MessagesIn, StopScanner,
                           Stopwatch, TextStream, normalize_messages, truncate_at_stop)
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
        self.abilities = Abilities(logits=True, logprobs=True, raw_text=True, prompt_text=True,
                                   chat_template=self.spec.has_chat_template, exact_tokens=True, warm_up=True)
        self.cache_dir = Path(cache_dir) if cache_dir else (settings or get_settings()).cache_dir
        self._tokenizer: Any = None  # the tokenizer alone, while only tokens are counted
        self._lock = _generation_locks.setdefault(model, threading.Lock())

    def __repr__(self) -> str:
        return f"LocalLLM(name={self.name!r}, loaded={self._loaded is not None})"

    # -- loading ---------------------------------------------------------------------------------------------------
    @property
    def _loaded(self) -> LoadedModel | None:
        """The float32 model while this process holds it (local_models lets an idle one go; it is not kept here)."""
        return local_models.loaded(self.model_name)

    def load(self) -> LoadedModel:
        """Load now (from memory, else dequantized from the GGUF) and report where from and how long it took."""
        loaded = load_local_model(self.model_name, self.cache_dir)
        self._tokenizer = None  # from now on the model's own tokenizer is used
        return loaded

    def warm(self) -> LoadedModel:
        """Load what generation needs now: the OpenVINO export where OpenVINO is installed (compiled in about a
        second and a half), llama.cpp on the GGUF when asked for or OpenVINO is missing, else the transformers
        model. Scoring (`model`, `logprob`, KID) loads transformers when asked."""
        fast = self._fast()
        if fast is None:
            return self.load()
        return LoadedModel(fast.handle, self.tokenizer, fast.runtime, fast.seconds)  # the tokenizer is read now too

    def _fast(self) -> FastModel | None:
        """The fast runtime's loaded model, or None where transformers serves (`runtimes.fast_model`)."""
        return runtimes.fast_model(self.model_name, self.cache_dir, self.context_window, lambda: self.tokenizer)

    @property
    def runtime(self) -> str:
        """Which runtime generates: "llama.cpp", "openvino" or "transformers" (for logs, the Settings page and
        benchmarks), as far as is known now (`runtimes.serving`)."""
        return runtimes.serving(self.model_name).runtime

    @property
    def model(self) -> Any:
        return self.load().model

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer once the model is loaded; until then the tokenizer alone (no weights are read)."""
        if (loaded := self._loaded) is not None:
            return loaded.tokenizer
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
        fast = self._generator()
        prompt, opts, chat = self._prepare(messages, opts)
        result = self._generate(fast, prompt, opts, add_special_tokens=not chat)
        if not chat:
            result.text = result.text.strip()
        return result

    def generate_text(self, prompt: str, options: GenerationOptions | None = None, **overrides: Any) -> Completion:
        """Continue `prompt` as raw text (no chat template, no transcript); the text is returned unstripped."""
        fast = self._generator()
        return self._generate(fast, prompt, GenerationOptions.build(options, **overrides), add_special_tokens=True)

    def stream_text(self, prompt: str, options: GenerationOptions | None = None, **overrides: Any) -> TextStream:
        """Continue `prompt` as raw text (no chat template, no transcript), streamed; the reply's leading white
        space dropped. How an embedded model continues a story (core.write.modes)."""
        opts = GenerationOptions.build(options, **overrides)
        fast = self._generator()
        if fast is not None:
            pieces = self._fast_stream(fast, prompt, opts, add_special_tokens=True, strip_leading=True)
        else:
            pieces = local_torch.stream(self, prompt, opts, add_special_tokens=True, strip_leading=True)
        return TextStream(pieces, self.name)

    def stream(self, messages: MessagesIn, options: GenerationOptions | None = None,
               **overrides: Any) -> TextStream:
        opts = GenerationOptions.build(options, **overrides)
        fast = self._generator()
        prompt, opts, chat = self._prepare(messages, opts)
        if fast is not None:
            pieces = self._fast_stream(fast, prompt, opts, add_special_tokens=not chat, strip_leading=not chat)
        else:
            pieces = local_torch.stream(self, prompt, opts, add_special_tokens=not chat, strip_leading=not chat)
        return TextStream(pieces, self.name)

    def _generator(self) -> FastModel | None:
        """The llama.cpp model when it can serve; else the transformers weights are loaded (first, so the
        tokenizer comes with them rather than being read twice) and None is returned."""
        fast = self._fast()
        if fast is None:
            self.load()
        return fast

    def _prepare(self, messages: MessagesIn, opts: GenerationOptions) -> tuple[str, GenerationOptions, bool]:
        chat = self.has_chat_template
        prompt = self.format_prompt(messages)
        if not chat:
            opts = GenerationOptions.build(opts, stop=tuple(opts.stop) + PLAIN_STOP)
        return prompt, opts, chat

    def _prompt_ids(self, prompt: str, opts: GenerationOptions, add_special_tokens: bool) -> tuple[list[int], int]:
        """Token ids of the prompt and the number of new tokens that still fit in the context window."""
        ids = self.encode(prompt, add_special_tokens=add_special_tokens)
        room = self.context_window - len(ids)
        if room < 1:
            raise LLMContextOverflow(f"local: the prompt has {len(ids)} tokens but {self.name} reads at most "
                                     f"{self.context_window}; shorten the prompt", provider="local")
        return ids, min(opts.max_tokens, room)

    def _paragraph_ids(self) -> list[int]:
        return self.encode("\n\n", add_special_tokens=False)

    def _end_ids(self) -> set[int]:
        """End-of-text ids by the tokenizer (the transformers path's generation config says the same for these
        GGUF models); llama.cpp adds its vocabulary's end-of-generation tokens."""
        tok = self.tokenizer
        return {tok.eos_token_id} if tok.eos_token_id is not None else set()

    def _fast_pieces(self, fast: FastModel, ids: list[int], opts: GenerationOptions, max_new: int,
                     run: FastRun) -> Generator[str, None, None]:
        """The fast path's text for `ids` as it comes, cut at the first stop string; holds the model's lock."""
        with self._lock:
            try:
                yield from fast.text_pieces(ids, Decode(
                    run, self.decode, max_new, temperature=opts.temperature, top_p=opts.top_p, seed=opts.seed,
                    stop_ids=self._end_ids(), min_new=opts.min_tokens, min_words=opts.min_words,
                    paragraph=self._paragraph_ids(), guard=opts.loop_guard))
            except (GeneratorExit, LLMError):
                raise
            except Exception as exc:  # noqa: BLE001 - surface as the one error family
                raise LLMError(f"local: generation with {self.name} failed: {exc}", provider="local") from exc

    def _generate(self, fast: FastModel | None, prompt: str, opts: GenerationOptions,
                  add_special_tokens: bool) -> Completion:
        if fast is None:
            return local_torch.generate(self, prompt, opts, add_special_tokens)
        watch = Stopwatch()
        ids, max_new = self._prompt_ids(prompt, opts, add_special_tokens)
        run = FastRun(StopScanner(opts.stop))
        for _ in self._fast_pieces(fast, ids, opts, max_new, run):
            pass
        # the text by one decode of all new ids, exactly as the transformers path makes it
        text, stopped = truncate_at_stop(self.decode(run.new_ids), opts.stop)
        finish: FinishReason = "stop" if stopped or run.ended or len(run.new_ids) < max_new else "length"
        return Completion(text, len(ids), len(run.new_ids), watch.elapsed(), finish, self.model_name)

    def _fast_stream(self, fast: FastModel, prompt: str, opts: GenerationOptions, add_special_tokens: bool,
                     strip_leading: bool) -> Generator[str, None, Completion]:
        watch = Stopwatch()
        ids, max_new = self._prompt_ids(prompt, opts, add_special_tokens)
        run = FastRun(StopScanner(opts.stop))
        started = not strip_leading
        pieces = self._fast_pieces(fast, ids, opts, max_new, run)
        try:
            for out in pieces:
                if not started:
                    out = out.lstrip()
                    started = bool(out)
                if out:
                    yield out
        finally:
            pieces.close()  # stops llama.cpp and releases the lock when the reader stops early
        tail = run.scanner.flush()
        if tail and strip_leading:
            tail = tail.rstrip() if started else tail.strip()
        if tail:
            yield tail
        text = run.scanner.emitted.strip() if strip_leading else run.scanner.emitted
        finish: FinishReason = "stop" if run.scanner.stopped or run.ended or len(run.new_ids) < max_new else "length"
        return Completion(text, len(ids), len(run.new_ids), watch.elapsed(), finish, self.model_name)

    def fast_next_logits(self, ids: Sequence[int]) -> Any | None:
        """The fast runtime's logits (float32 numpy) for the token after `ids`, holding the model's lock; None where
        transformers serves (then `next_token_logits` gives them). A loop that adds one token per call reads one
        token per call (`decoding.FastModel.next_logits`)."""
        fast = self._fast()
        if fast is None:
            return None
        if len(ids) >= self.context_window:
            raise LLMContextOverflow(f"local: {len(ids)} tokens, but {self.name} reads at most "
                                     f"{self.context_window}", provider="local")
        with self._lock:
            try:
                return fast.next_logits(ids)
            except Exception as exc:  # noqa: BLE001 - surface as the one error family
                raise LLMError(f"local: reading with {self.name} failed: {exc}", provider="local") from exc

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
