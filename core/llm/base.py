"""The one LLM interface every provider implements, and the small value types it speaks.

Callers build messages (or pass a plain string, meaning one user message), get an `LLM` from the registry and call
`complete()` or `stream()`. Per-call options are a `GenerationOptions` dataclass; keyword overrides are accepted
too, so `llm.complete(msgs, max_tokens=20, stop=["\\n"])` works.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, Protocol, cast, runtime_checkable

from core.llm.loopguard import LoopGuard

Role = Literal["system", "user", "assistant"]
ROLES: tuple[str, ...] = ("system", "user", "assistant")
FinishReason = Literal["stop", "length", "error"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


MessagesIn = str | Sequence[Message | dict[str, Any]]


@dataclass(frozen=True)
class GenerationOptions:
    """Per-call generation parameters. temperature 0 means greedy; `seed` makes sampling repeatable where the
    provider supports it; `timeout` (seconds) overrides the client's default for this call. `min_tokens` is for the
    embedded models, which end long prose early: an end-of-text token before that many new tokens starts a new
    paragraph instead; `min_words` does the same until the new text has that many words (a count that does not
    depend on how many tokens the model spends a word). Remote providers ignore both (they follow the word count
    the prompt asks for). `loop_guard`: the embedded models' decoding never repeats an n-gram of its tokens
    (`core.llm.loopguard`), on by default; None turns it off (KID's and the runtime tests' plain decoding). Remote
    providers ignore it."""

    temperature: float = 0.0
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    top_p: float | None = None
    seed: int | None = None
    timeout: float | None = None
    min_tokens: int = 0
    min_words: int = 0
    loop_guard: LoopGuard | None = LoopGuard()

    def __post_init__(self) -> None:
        if isinstance(self.stop, str):
            object.__setattr__(self, "stop", (self.stop,))
        else:
            object.__setattr__(self, "stop", tuple(s for s in self.stop if s))
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}")
        if self.min_tokens < 0:
            raise ValueError(f"min_tokens must be >= 0, got {self.min_tokens}")
        if self.min_words < 0:
            raise ValueError(f"min_words must be >= 0, got {self.min_words}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")

    @classmethod
    def build(cls, options: GenerationOptions | None = None, **overrides: Any) -> GenerationOptions:
        """`options` (or the defaults) with `overrides` applied; unknown names are an error, not silently dropped."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise TypeError(f"unknown generation option(s) {unknown}; known: {sorted(known)}")
        base = options or cls()
        return replace(base, **overrides) if overrides else base


@dataclass
class Completion:
    """The result of one call. Token counts are the provider's own where it reports them."""

    text: str
    input_tokens: int
    output_tokens: int
    seconds: float
    finish_reason: FinishReason = "stop"
    model: str = ""


def normalize_messages(messages: MessagesIn) -> list[Message]:
    """Messages as `Message` objects; a bare string is one user message. Rejects unknown roles and empty input."""
    if isinstance(messages, str):
        messages = [Message("user", messages)]
    out: list[Message] = []
    for m in messages:
        if isinstance(m, Message):
            msg = m
        elif isinstance(m, dict) and "role" in m and "content" in m:
            msg = Message(m["role"], m["content"])
        else:
            raise ValueError(f"a message must be a Message or a dict with 'role' and 'content', got {m!r:.80}")
        if msg.role not in ROLES:
            raise ValueError(f"unknown message role {msg.role!r}; use one of {ROLES}")
        if not isinstance(msg.content, str):
            raise ValueError(f"message content must be a string, got {type(msg.content).__name__}")
        out.append(msg)
    if not any(m.role == "user" for m in out):
        raise ValueError("messages must contain at least one user message")
    return out


@dataclass(frozen=True)
class Abilities:
    """What a model can do beyond complete / stream / count_tokens, declared by its provider (callers read these
    instead of probing for methods). Every ability names the methods of `LocalAccess` it promises."""

    logits: bool = False          # next_token_logits, model, tokenizer, encode, decode (KID, perplexity, scoring)
    logprobs: bool = False        # token_logprobs, logprob: the log-probability of a given continuation
    raw_text: bool = False        # generate_text, stream_text: continue a prompt as raw text, no chat template
    prompt_text: bool = False     # format_prompt: the exact text the model reads for messages (countable)
    chat_template: bool = True    # False for a base model, which reads a plain transcript, not a chat
    exact_tokens: bool = False    # count_tokens is the model's own tokenizer (otherwise an estimate)
    warm_up: bool = False         # warm(): weights to load before the first call (the embedded models)


CHAT_API = Abilities()  # a remote chat API: messages in, text out; token counts estimated before a call


@runtime_checkable
class LLM(Protocol):
    """What every provider offers. `name` is "provider:model"; `context_window` is in tokens. The attributes are
    read-only here, so the metering wrapper (which passes them through) is an LLM too."""

    @property
    def name(self) -> str: ...
    @property
    def provider(self) -> str: ...
    @property
    def model_name(self) -> str: ...
    @property
    def context_window(self) -> int: ...
    @property
    def abilities(self) -> Abilities: ...

    def complete(self, messages: MessagesIn, options: GenerationOptions | None = None,
                 **overrides: Any) -> Completion: ...

    def stream(self, messages: MessagesIn, options: GenerationOptions | None = None,
               **overrides: Any) -> TextStream: ...

    def count_tokens(self, text: str) -> int: ...


class LocalAccess(LLM, Protocol):
    """The methods behind the abilities (core.llm.local.LocalLLM has them all). Reach them through `local_access`
    after checking `llm.abilities`."""

    @property
    def model(self) -> Any: ...
    @property
    def tokenizer(self) -> Any: ...
    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]: ...
    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str: ...
    def next_token_logits(self, prompt: str | Sequence[int] | Any) -> Any: ...
    def token_logprobs(self, prompt: str, continuation: str) -> Sequence[Any]: ...  # items with a .logprob
    def logprob(self, prompt: str, continuation: str) -> float: ...
    def format_prompt(self, messages: MessagesIn) -> str: ...
    def generate_text(self, prompt: str, options: GenerationOptions | None = None, **overrides: Any) -> Completion: ...
    def stream_text(self, prompt: str, options: GenerationOptions | None = None, **overrides: Any) -> TextStream: ...
    def warm(self) -> Any: ...


def local_access(llm: LLM) -> LocalAccess:
    """`llm` typed with the methods its abilities promise (a MeteredLLM passes them through, generate_text metered).
    Only the methods of abilities that `llm.abilities` declares may be called."""
    return cast(LocalAccess, llm)


class TextStream:
    """An iterator of text pieces; once exhausted, `completion` holds the whole text and the usage.

    Wraps a generator that yields str pieces and *returns* a Completion. `on_done` callbacks run once with that
    Completion (the metering wrapper uses this). Closing the stream early (break + close(), or garbage collection)
    closes the generator, which lets providers stop generating.
    """

    def __init__(self, pieces: Generator[str, None, Completion], name: str = "") -> None:
        self._gen = pieces
        self.name = name
        self.completion: Completion | None = None
        self.metered = False  # set by the metering wrapper that records this stream's usage (once)
        self._callbacks: list[Callable[[Completion], None]] = []

    def on_done(self, callback: Callable[[Completion], None]) -> TextStream:
        self._callbacks.append(callback)
        return self

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        try:
            return next(self._gen)
        except StopIteration as stop:
            if self.completion is None:
                self.completion = stop.value
                for cb in self._callbacks:
                    cb(stop.value)
            raise

    def close(self) -> None:
        self._gen.close()

    def text(self) -> str:
        """Consume the rest of the stream and return the full text."""
        for _ in self:
            pass
        assert self.completion is not None
        return self.completion.text

    def __enter__(self) -> TextStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StopScanner:
    """Incremental stop-string handling for streams: holds back just enough text that a stop string split across
    pieces is never emitted, and reports when one was found."""

    def __init__(self, stops: Iterable[str]) -> None:
        self.stops = tuple(s for s in stops if s)
        self.buffer = ""
        self.emitted = ""
        self.stopped = False

    def _held(self, text: str) -> int:
        """Length of the longest end of `text` that could still grow into a stop string."""
        best = 0
        for stop in self.stops:
            for n in range(min(len(stop) - 1, len(text)), best, -1):
                if text.endswith(stop[:n]):
                    best = n
                    break
        return best

    def feed(self, piece: str) -> str:
        """Add `piece`; return the text now safe to emit ('' when stopped or still ambiguous)."""
        if self.stopped:
            return ""
        self.buffer += piece
        cut = first_stop(self.buffer, self.stops)
        if cut is not None:
            self.stopped = True
            out, self.buffer = self.buffer[:cut], ""
        else:
            held = self._held(self.buffer)
            cut = len(self.buffer) - held
            out, self.buffer = self.buffer[:cut], self.buffer[cut:]
        self.emitted += out
        return out

    def flush(self) -> str:
        out, self.buffer = ("" if self.stopped else self.buffer), ""
        self.emitted += out
        return out


def first_stop(text: str, stops: Iterable[str]) -> int | None:
    """Index where the earliest stop string starts in `text`, or None."""
    positions = [i for i in (text.find(s) for s in stops if s) if i >= 0]
    return min(positions) if positions else None


def truncate_at_stop(text: str, stops: Iterable[str]) -> tuple[str, bool]:
    cut = first_stop(text, stops)
    return (text, False) if cut is None else (text[:cut], True)


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return round(time.perf_counter() - self.start, 4)
