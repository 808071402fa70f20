"""Fitting text into a token budget, measured with the answering model's own tokenizer.

Token counts are not additive (a join can merge or split tokens), so nothing here adds up part counts: every
candidate is judged by `measure(candidate)`, the token count of the whole prompt it would produce, against `room`.
Cuts fall on word boundaries (the original white space is kept), and only a single word longer than the whole room is
ever cut inside, by characters, so even pathological input ends within budget.

Tokenizing a 1,000-token prompt takes a few milliseconds, so the search for the longest fitting cut interpolates
(tokens grow about linearly with words): it usually needs 3-5 counts instead of bisection's 10-12, and falls back to
bisection whenever an interpolated probe fails to halve the interval, so it never needs more than about twice as many.
"""
from __future__ import annotations

import re
from collections.abc import Callable

Counter = Callable[[str], int]
_WORD = re.compile(r"\S+")


def word_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(text)]


def largest_fitting(n: int, size: Callable[[int], int], room: int) -> int:
    """The largest k in [0, n] with size(k) <= room, for a size that grows with k; 0 when even size(0) is over
    (size(0) is never evaluated: callers treat an empty cut as always acceptable)."""
    if n <= 0:
        return 0
    hi_size = size(n)
    if hi_size <= room:
        return n
    lo, hi, lo_size = 0, n, None  # lo fits (or is 0), hi does not
    bisect = False
    while hi - lo > 1:
        if bisect or lo_size is None:
            k = (lo + hi) // 2 if bisect else hi * room // max(hi_size, 1)  # as if size(0) were 0
        else:
            k = lo + (room - lo_size) * (hi - lo) // max(hi_size - lo_size, 1)
        k = min(max(k, lo + 1), hi - 1)
        width = hi - lo
        s = size(k)
        if s <= room:
            lo, lo_size = k, s
        else:
            hi, hi_size = k, s
        bisect = not bisect and (hi - lo) * 2 > width  # an interpolation that did not halve: bisect next
    return lo


def keep_end(text: str, measure: Counter, room: int, max_words: int | None = None) -> str:
    """The longest ending of `text` that starts at a word and measures within `room` ('' when not even one word
    does). `max_words` caps the search (a prompt of R tokens never holds more than R words)."""
    spans = word_spans(text)
    if max_words is not None:
        spans = spans[-max_words:] if max_words > 0 else []
    n = largest_fitting(len(spans), lambda k: measure(text[spans[-k][0]:]), room)
    return text[spans[-n][0]:].rstrip() if n else ""


def keep_start(text: str, measure: Counter, room: int, max_words: int | None = None) -> str:
    """The longest beginning of `text` that ends at a word and measures within `room`; when not even the first word
    does, the longest character prefix of it that does ('' if none)."""
    spans = word_spans(text)
    if max_words is not None:
        spans = spans[:max_words] if max_words > 0 else []
    if not spans:
        return ""
    n = largest_fitting(len(spans), lambda k: measure(text[:spans[k - 1][1]]), room)
    if n:
        return text[:spans[n - 1][1]]
    first = text[spans[0][0]:spans[0][1]]
    return first[:largest_fitting(len(first), lambda k: measure(first[:k]), room)]


def truncate_to_tokens(text: str, limit: int, count: Counter, *, keep: str = "start") -> str:
    """`text` cut to at most `limit` tokens at its start or end (keep="start" keeps the beginning)."""
    if limit <= 0:
        return ""
    if count(text) <= limit:
        return text
    if keep == "end":
        kept = keep_end(text, count, limit, max_words=limit)
        if kept:
            return kept
        last = text.split()[-1] if text.split() else ""
        chars = largest_fitting(len(last), lambda k: count(last[-k:]), limit)
        return last[-chars:] if chars else ""
    return keep_start(text, count, limit, max_words=limit)
