"""NARCO's value types: passages as graph nodes, retrospective questions as edges, and what a build produces.

An edge runs from a prior passage v_i to a later passage v_j (i < j): its question arises from v_j and is answered by
v_i. `evidence` is the sentence of v_i that answers it, as it appears in the book (not the LLM's copy of it).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Node:
    """A passage as a graph node: the chunk's id (None outside a database), chapter and position, and text."""

    chunk_id: int | None
    chapter: int
    index: int
    text: str


@dataclass(frozen=True)
class VerifiedQuestion:
    """A generated question that passed self-verification (or every question, when verification is off)."""

    question: str
    evidence: str
    answer: str = ""
    verified: bool = True


@dataclass
class PairResult:
    """What the two-turn generation and the verification made of one (prior, current) pair."""

    generated: list[str] = field(default_factory=list)
    kept: list[VerifiedQuestion] = field(default_factory=list)
    calls: int = 0
    malformed: int = 0  # replies that could not be parsed (counted, never fatal)


@dataclass(frozen=True)
class NewQuestionEdge:
    """An edge about to be stored; `embedding` is the question's unit float32 vector."""

    from_chunk_id: int
    to_chunk_id: int
    question: str
    evidence: str
    answer: str
    embedding: np.ndarray | None = None


@dataclass(frozen=True)
class QuestionEdge:
    """A stored edge with both ends located in the book."""

    id: int
    from_chunk_id: int
    to_chunk_id: int
    from_chapter: int
    from_index: int
    to_chapter: int
    to_index: int
    question: str
    evidence: str
    answer: str
    embedding: np.ndarray | None = None
