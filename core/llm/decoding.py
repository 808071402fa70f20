"""The one door to the embedded models' fast runtimes, and what their decoding loops share.

`FastModel` is the interface the OpenVINO runtime (`openvino_rt.OVModel`) and the llama.cpp runtime
(`llamacpp.LlamaModel`) implement: stream the text of a generation (`text_pieces`, one contract for both: the same
end tokens, stop strings, minimum lengths met with a paragraph break, loop guard) and give the next token's logits
after a sequence of ids (`next_logits`, keeping what the runtime's cache already holds, so a token-by-token loop
such as KID's reads one token per step). `runtimes` chooses which one serves a model; `LocalLLM` talks to the
chosen one through this interface only. The transformers path (`local_torch`) is the third runtime: it serves
where neither native one can, and for gradients (KID's key/value variant) and scoring.

The helpers below are the runtimes' common parts: the record of one generation (`FastRun`), streaming
detokenization (`Detokenizer`), the minimum-length rule (`goes_on`), shared prefixes and the thread count.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.llm.base import StopScanner
from core.llm.loopguard import LoopGuard

# chat-turn and text ends the embedded models' vocabularies use (SmolLM2's ChatML, Gemma's turns)
END_TOKENS = ("<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<eos>", "</s>")


class FastModel(Protocol):
    """A model loaded by a fast runtime (one per model per process; the caller holds the model's generation lock)."""

    name: str
    seconds: float  # load time

    @property
    def runtime(self) -> str:
        """"openvino" or "llama.cpp"."""
        ...

    @property
    def handle(self) -> Any:
        """The runtime's own model object (an OpenVINO CompiledModel, a llama_cpp.Llama), for diagnostics."""
        ...

    def text_pieces(self, prompt_ids: Sequence[int], how: Decode) -> Generator[str, None, None]:
        """Generated text as it comes, held back and cut by `how.run.scanner`'s stop strings; ids are recorded in
        `how.run`.

        Greedy at temperature 0, else temperature sampling with optional top-p. Generation ends at an end token
        (not kept), a stop string or `max_new` tokens; closing the generator ends it too. An end token before
        `min_new` tokens, or before the new text has `min_words` words, is replaced by the `paragraph` ids and
        generation goes on. `guard` bars n-grams of the new tokens that were already generated (None: off)."""
        ...

    def next_logits(self, ids: Sequence[int]) -> Any:
        """The logits (a float32 numpy vector over the vocabulary) for the token after `ids`. When `ids` is the
        tokens the cache holds and one more, that token alone is read (`one_step`); else `ids` is read as a
        prompt, keeping the shared prefix as a generation would."""
        ...


@dataclass
class FastRun:
    """What one generation left behind: the new token ids, whether an end token came, and the stop scanner."""

    scanner: StopScanner
    new_ids: list[int] = field(default_factory=list)
    ended: bool = False


class Detokenizer:
    """Token ids to text pieces as they come, decoding a short window rather than everything so far.

    Like transformers' TextIteratorStreamer: the window restarts after a newline, and text ending in an incomplete
    UTF-8 character (shown as U+FFFD) is held back until the next token completes it.
    """

    def __init__(self, decode: Callable[[list[int]], str]) -> None:
        self.decode = decode
        self.window: list[int] = []
        self.printed = 0

    def push(self, token: int) -> str:
        self.window.append(token)
        text = self.decode(self.window)
        if text.endswith("\n"):
            out, self.window, self.printed = text[self.printed:], [], 0
            return out
        if text.endswith("\ufffd"):
            return ""
        out, self.printed = text[self.printed:], len(text)
        return out

    def flush(self) -> str:
        text = self.decode(self.window) if self.window else ""
        out, self.window, self.printed = text[self.printed:], [], 0
        return out


@dataclass(frozen=True)
class Decode:
    """How one generation decodes (`FastModel.text_pieces`): `run` records it and holds the stop scanner; `decode`
    turns ids into text; at most `max_new` new tokens; greedy at `temperature` 0, else sampled with `top_p` and
    `seed`; `stop_ids` end it besides the model's own end tokens; an end before `min_new` tokens or `min_words` words
    becomes the `paragraph` ids; `guard` is the loop guard (None: off)."""

    run: FastRun
    decode: Callable[[list[int]], str]
    max_new: int
    temperature: float = 0.0
    top_p: float | None = None
    seed: int | None = None
    stop_ids: Iterable[int] = ()
    min_new: int = 0
    min_words: int = 0
    paragraph: Sequence[int] = ()
    guard: LoopGuard | None = None


def goes_on(how: Decode) -> bool:
    """Whether an end token now becomes a paragraph break: the text is still short of `min_new` tokens or
    `min_words` words, and the break fits within `max_new`. Both fast runtimes ask this."""
    after = len(how.run.new_ids) + len(how.paragraph)
    short = after < how.min_new or (how.min_words > 0 and len(how.decode(how.run.new_ids).split()) < how.min_words)
    return bool(how.paragraph) and after < how.max_new and short


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens `a` and `b` share."""
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    return common


def one_step(cached: Sequence[int], ids: Sequence[int]) -> bool:
    """Whether `ids` is the cached tokens and one more: a step of a token-by-token loop, which reads that token
    alone (as generation reads each new token). Anything else is read as a prompt, keeping the prefix the runtime
    keeps for prompts, so the logits never depend on what was read before."""
    return len(cached) > 0 and len(ids) == len(cached) + 1 and common_prefix(cached, ids) == len(cached)


def cpu_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def end_ids(tokenizer: Any) -> frozenset[int]:
    """End-of-generation ids: the tokenizer's end token and the chat-turn ends its vocabulary has."""
    ids = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
    vocab = tokenizer.get_vocab()
    ids.update(vocab[t] for t in END_TOKENS if t in vocab)
    return frozenset(ids)
