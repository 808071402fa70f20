"""Cutting text at word boundaries so that it fits a token budget, judged whole by a predicate.

Token counts are not additive, so every candidate is measured whole by `fits(text) -> bool`, and the cut is found
by binary search over word boundaries (O(log n) counts). Writing keeps a story's end (`keep_end`, `fit_end`);
summarizing keeps a chapter's beginning (`longest_prefix`). Both assume `fits` is monotone.
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


def longest_prefix(text: str, fits: Callable[[str], bool]) -> str:
    """The longest beginning of `text` ending at a word end that `fits` (binary search: token counts grow with
    the text); when not even the first word fits, its longest fitting character prefix ('' if none)."""
    ends = [m.end() for m in _WORD.finditer(text)]
    lo, hi = 0, len(ends)  # lo words fit (0 trivially); more than hi do not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(text[:ends[mid - 1]]):
            lo = mid
        else:
            hi = mid - 1
    if lo:
        return text[:ends[lo - 1]]
    first = text[:ends[0]].lstrip() if ends else ""
    chars = max((k for k in range(len(first), 0, -1) if fits(first[:k])), default=0)
    return first[:chars]
