"""Counts in words for messages: "1 chapter", "3 chapters", "1,204 words"."""
from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, singular for exactly one, with thousands separators."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"
