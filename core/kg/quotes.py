"""Quotations in a parsed passage: how deep each token is (narration, a quotation, a quotation inside it), which
first-level quotation it belongs to, and its paragraph. Curly and straight marks; single quotes as the outer marks
(British style) or the inner ones; an apostrophe ("don't") is neither.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc

QUOTE_OPEN = "“"
QUOTE_CLOSE = "”"
INNER_OPEN = "‘"
INNER_CLOSE = "’"


@dataclass
class Quote:
    doc: int
    paragraph: int
    first: int                      # token indices in its doc
    last: int
    speaker: str | None = None
    addressee: str | None = None
    sentence: str = ""


def quote_levels(doc: Doc) -> tuple[list[int], list[int], list[int]]:
    """Per token: quotation depth (0 narration, 1 inside a quotation, 2 inside a quotation inside it), the index of
    the first-level quotation it belongs to (-1 outside), and its paragraph number within the doc."""
    text = doc.text
    depth_at = [0] * (len(text) + 1)
    quote_at = [-1] * (len(text) + 1)
    depth, quote, straight_inner = 0, -1, False
    for k, ch in enumerate(text):
        prev = text[k - 1] if k else " "
        nxt = text[k + 1] if k + 1 < len(text) else " "
        if ch == "\n" and nxt == "\n":
            depth = 0                                  # a new paragraph reopens its quotation with its own mark
        elif ch == QUOTE_OPEN or (ch == '"' and depth == 0):
            if depth == 0:
                quote += 1
            depth = 1
        elif ch == QUOTE_CLOSE or ch == '"':
            depth = 0
        elif ch == INNER_OPEN or (ch == "'" and depth == 1 and not prev.isalnum() and nxt.isalpha()):
            if depth == 0:
                quote += 1
                depth = 1                              # single quotes as the outer marks (British style)
            else:
                depth, straight_inner = 2, ch == "'"
        elif (ch == INNER_CLOSE or (ch == "'" and straight_inner)) and depth == 2 and not nxt.isalpha():
            depth = 1
        depth_at[k] = depth
        quote_at[k] = quote if depth else -1
    depths, quotes, paragraphs = [], [], []
    paragraph = 0
    for tok in doc:
        if tok.is_space and "\n" in tok.text:
            paragraph += 1
        # a token's own opening mark belongs to its quotation: read the state just after the token's first char
        depths.append(depth_at[tok.idx])
        quotes.append(quote_at[tok.idx])
        paragraphs.append(paragraph)
    return depths, quotes, paragraphs
