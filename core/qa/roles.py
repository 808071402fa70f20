"""Which of a sentence's names answers the question: the one its parse ties closest to what was asked.

A sentence about what was asked often names several people or places ("... nothing can clear Mr. Collins from the
guilt of inheriting Longbourn", said by Mr. Bennet, for "Who inherits Longbourn?"). The extractive reader
(core.qa.extract) weighs each candidate name of the asked type by how many dependency edges separate it from the
sentence's anchor words: the question's topic words as the sentence writes them (core.qa.relevance.topic_words,
matched by stem, shared start or irregular form) or, when it writes none of them, the names the question asks about.
The nearest candidate keeps its weight; each edge further halves it (ROLE_DECAY).

    role_weights(doc, {"Mr. Collins": 1.0, "Mr. Bennet": 1.0}, topic_stems=["inherit"])
    -> {"Mr. Collins": 1.0, "Mr. Bennet": 0.125}
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.qa.relevance import states
from core.qa.words import content_words

ROLE_DECAY = 0.5   # a candidate's weight is multiplied by this for each parse edge beyond the nearest candidate's


def tree_distance(a: Any, b: Any) -> int | None:
    """Dependency edges between two tokens of one sentence (None across sentences)."""
    up = {a.i: 0}
    step, tok = 0, a
    while tok.head.i != tok.i:
        tok, step = tok.head, step + 1
        up[tok.i] = step
    step, tok = 0, b
    while True:
        if tok.i in up:
            return up[tok.i] + step
        if tok.head.i == tok.i:
            return None
        tok, step = tok.head, step + 1


def anchors(doc: Any, topic_stems: Sequence[str], names: Sequence[str] = (),
            bases: Mapping[str, str] | None = None) -> list[Any]:
    """The tokens of `doc` that write a topic word; else those of the names the question asks about."""
    bases = bases or {}
    out = []
    for tok in doc:
        forms = [tok.lower_] + ([bases[tok.lower_]] if tok.lower_ in bases else [])
        stems = [stem for form in forms for stem, _ in content_words(form)]
        if stems and any(states(topic, set(stems)) for topic in topic_stems):
            out.append(tok)
    if out or not names:
        return out
    words = {w.lower() for name in names for w in re.findall(r"[^\W_]+", name)}
    return [tok for tok in doc if tok.lower_ in words]


def _tokens_of(doc: Any, span: str) -> list[Any]:
    """Every token of each place `span` is written in `doc` (case-insensitive)."""
    out = []
    for m in re.finditer(re.escape(span), doc.text, re.IGNORECASE):
        out += [tok for tok in doc if m.start() <= tok.idx < m.end()]
    return out


def role_weights(doc: Any, spans: Mapping[str, float], topic_stems: Sequence[str], names: Sequence[str] = (),
                 bases: Mapping[str, str] | None = None, decay: float = ROLE_DECAY) -> dict[str, float]:
    """`spans` (candidate -> weight) with each weight multiplied by decay ** (its distance - the nearest one's); the
    weights unchanged when the sentence has no anchor or no candidate is tied to one."""
    marks = anchors(doc, topic_stems, names, bases)
    if not marks or len(spans) < 2 or decay >= 1.0:
        return dict(spans)
    distance: dict[str, int] = {}
    for span in spans:
        found = [d for tok in _tokens_of(doc, span) for mark in marks
                 if (d := tree_distance(tok, mark)) is not None]
        if found:
            distance[span] = min(found)
    if not distance:
        return dict(spans)
    nearest = min(distance.values())
    far = max(distance.values()) + 1   # a candidate the parse does not reach counts as the farthest
    return {span: w * decay ** (distance.get(span, far) - nearest) for span, w in spans.items()}
