"""Cutting text at its start so that what is left fits a token budget (the end of a story is what a writer needs).

Token counts are not additive, so every candidate is judged whole by a `fits(text) -> bool` predicate, and the cut
is found by binary search over word starts (O(log n) counts). Kept here, small and local, so the writing features do
not depend on how another feature budgets its prompts.
"""
from __future__ import annotations

import re
from collections.abc import Callable

_WORD = re.compile(r"\S+")


def keep_end(text: str, fits: Callable[[str], bool]) -> str:
    """The longest ending of `text` that starts at a word and satisfies `fits` ('' when not even the last word
    does). Assumes `fits` is monotone: a shorter ending fits whenever a longer one does."""
    starts = [m.start() for m in _WORD.finditer(text)]
    if not starts:
        return ""
    if fits(text[starts[0]:].rstrip()):
        return text[starts[0]:].rstrip()
    lo = len(starts)                 # the smallest start index known to fit (len(starts): none found yet)
    left, right = 1, len(starts) - 1
    while left <= right:
        mid = (left + right) // 2
        if fits(text[starts[mid]:].rstrip()):
            lo, right = mid, mid - 1
        else:
            left = mid + 1
    return text[starts[lo]:].rstrip() if lo < len(starts) else ""


def fit_end(text: str, budget: int, count: Callable[[str], int]) -> str:
    """`text` (stripped) with its start cut so that it counts at most `budget` tokens."""
    text = text.strip()
    if budget <= 0:
        return ""
    return text if count(text) <= budget else keep_end(text, lambda s: count(s) <= budget)
