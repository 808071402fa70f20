"""Per-call parameters of Knowledge Infused Decoding (ARCHITECTURE principle 6) and the record of one generated
token. No torch here: importing core.write (which registers the "kid" mode) stays light."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

VARIANTS = ("logits", "kv")


@dataclass(frozen=True)
class KidParams:
    """Knowledge Infused Decoding settings. `strength` is the Adam learning rate of the logits variant and scales the
    step size of the kv variant (the default 0.5 -> the released code's 0.01)."""

    hops: int = 2                    # h_max, also the memory length w_max
    steps: int = 3                   # K policy-update steps per token (0: steering off)
    strength: float = 0.5
    variant: str = "logits"
    sigma: float = 0.02               # Algorithm 1's target divergence for the adaptive beta
    kl_max: float = 0.1               # the trust region: KL(pi || pi*) never exceeds this (bench: 0.25 costs ppl)
    top_k: int = 20
    top_p: float = 0.92
    no_repeat: int = 2
    temperature: float = 1.0         # 0: greedy
    max_tokens: int = 64
    facts: int = 5                   # retrieved facts the trie is built from
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}")
        if self.hops < 1 or self.steps < 0 or self.strength < 0 or self.max_tokens < 1 or self.top_k < 0:
            raise ValueError("hops and max_tokens must be >= 1; steps, strength and top_k >= 0.")
        if not 0 < self.top_p <= 1 or self.temperature < 0:
            raise ValueError("top_p must be in (0, 1] and temperature >= 0.")

    @property
    def steering(self) -> bool:
        return self.steps > 0 and self.strength > 0


@dataclass
class Step:
    """One generated token: its id and text, and, when KID raised its probability, the before/after and the fact."""

    token_id: int
    piece: str
    p_before: float
    p_after: float
    fact: str | None = None

    @property
    def boosted(self) -> bool:
        return self.fact is not None and self.p_after > self.p_before


def boosted_records(steps: Sequence[Step]) -> list[dict[str, Any]]:
    """{"token", "p_before", "p_after", "fact"} of every generated token whose probability KID raised."""
    return [{"token": s.piece, "p_before": round(s.p_before, 5), "p_after": round(s.p_after, 5), "fact": s.fact}
            for s in steps if s.boosted]
