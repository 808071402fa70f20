"""The loop guard of the embedded models' decoding loops: no n-gram of `ngram` tokens twice in the generated text
(and an optional CTRL-style repetition penalty on tokens already generated).

A 135M-270M model decoding greedily (or at a low temperature) falls into loops: a chapter summary that is "The man
in the red sweater" twenty times, a chapter that repeats one sentence forty times after three paragraphs (issue 37).
Blocking a token that would complete an n-gram the generation already holds (transformers' `no_repeat_ngram_size`)
makes an exact loop impossible; unlike transformers, only the *generated* tokens count, so an answer may still quote
its passage and a summary the chapter's names. Every runtime (OpenVINO's numpy loop, llama.cpp's sampler chain, the
transformers logits processors) asks the same `GuardState`, so the guard is deterministic and greedy text still
never depends on earlier calls. `GenerationOptions.loop_guard=None` turns it off (KID and the runtime-agreement
tests compare plain decoding token for token).

The size is measured (bench/degeneration.py, bench/README.md, on its tuning texts: The Call of the Wild's chapters 1-2
summarized by Gemma 3 270M, premise 1's first chapter by SmolLM2). Without the guard 60-94% of their word 8-grams
repeat; with it none does at any size, but blocking 6- or 8-token n-grams leaves near-loops that change a token each
turn ("The man in the red swatter. The man in the green swatter. ..."): 11.6-35.8% of their word 4-grams repeat,
against 1.0-1.4% with 4 tokens and 0.68% in the books' own chapters. Four tokens (about three words) also bar a
book's ordinary repeats ("in the middle of" once a chapter), so the model says it another way; structured output
that repeats its own scaffolding (JSON keys, "1. Buck; is; ...") should turn the guard off.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Tokens in the blocked n-gram (4, 6 and 8 measured; see above and bench/README.md, "Loops in embedded generation").
DEFAULT_NGRAM = 4


@dataclass(frozen=True)
class LoopGuard:
    """`ngram`: no run of this many tokens twice in the generated text (0: no blocking). `penalty`: logits of tokens
    already generated are divided by it where positive and multiplied where negative (CTRL; 1.0: none)."""

    ngram: int = DEFAULT_NGRAM
    penalty: float = 1.0

    def __post_init__(self) -> None:
        if self.ngram < 0 or self.ngram == 1:
            raise ValueError(f"loop_guard ngram must be 0 (off) or at least 2, got {self.ngram}")
        if self.penalty < 1.0:
            raise ValueError(f"loop_guard penalty must be >= 1.0, got {self.penalty}")

    @property
    def active(self) -> bool:
        return self.ngram > 0 or self.penalty > 1.0

    def state(self) -> GuardState:
        return GuardState(self)


class GuardState:
    """The guard over one generation: an index of the generated ids' (n-1)-grams and the tokens that followed them,
    brought up to date incrementally (`sync`), so each step costs O(n) rather than a scan of the whole text."""

    def __init__(self, guard: LoopGuard) -> None:
        self.guard = guard
        self.ids: list[int] = []
        self.follows: dict[tuple[int, ...], set[int]] = {}
        self.seen: set[int] = set()

    def sync(self, generated: Sequence[int]) -> None:
        """Take in the generated ids not seen yet (`generated` only ever grows within one generation)."""
        n = self.guard.ngram
        for token in generated[len(self.ids):]:
            self.ids.append(int(token))
            self.seen.add(int(token))
            if n and len(self.ids) >= n:
                self.follows.setdefault(tuple(self.ids[-n:-1]), set()).add(self.ids[-1])

    def banned(self) -> set[int]:
        """Tokens that would complete an n-gram the generated text already holds."""
        n = self.guard.ngram
        if not n or len(self.ids) < n - 1:
            return set()
        return set(self.follows.get(tuple(self.ids[len(self.ids) - n + 1:]), ()))

    def apply(self, logits: Any, generated: Sequence[int]) -> Any:
        """`logits` (a 1-D numpy array or torch tensor over the vocabulary) with the guard applied after
        `generated`; the input is left untouched (a copy is changed) and returned as it is when nothing applies."""
        self.sync(generated)
        banned = self.banned()
        penalized = self.guard.penalty > 1.0 and bool(self.seen)
        if not banned and not penalized:
            return logits
        out = logits.copy() if hasattr(logits, "copy") else logits.clone()
        if penalized:
            seen = sorted(self.seen)
            values = out[seen]
            positive = values > 0
            values[positive] = values[positive] / self.guard.penalty
            values[~positive] = values[~positive] * self.guard.penalty
            out[seen] = values
        if banned:
            out[sorted(banned)] = float("-inf")
        return out
