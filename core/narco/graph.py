"""The NARCO graph as a plan and as a view: which passage pairs a build visits, what that will cost in tokens, and
the recap of a chapter (the earlier passages it depends on, ranked by edge degree).

Pairs follow the paper: every passage v_j is paired with each of the `window` passages before it (in reading order,
across chapter boundaries), and its questions are asked from v_j back to v_i. Edge degree (the number of questions
between two passages) ranks recap candidates; ties go to the closer passage, as in the paper's study I.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.narco.prompts import (MAX_QUESTIONS_PER_PAIR, QG_TURN1, QG_TURN2, TURN1_MAX_TOKENS, TURN2_MAX_TOKENS,
                                VERIFY, VERIFY_MAX_TOKENS)
from core.narco.types import Node, QuestionEdge

# Questions per pair before verification, as measured in the paper (table 3: 3.4 and 3.5).
TYPICAL_QUESTIONS_PER_PAIR = 3.4
# Typical replies use about half of their token cap; the upper bound assumes every cap is reached.
TYPICAL_OUTPUT_SHARE = 0.5


def window_pairs(nodes: Sequence[Node], window: int,
                 targets: Callable[[Node], bool] | None = None) -> list[tuple[Node, list[Node]]]:
    """(current passage, its prior passages nearest last) for each passage that has any, in reading order;
    `targets` limits which passages are the current one (e.g. a chapter range)."""
    if window < 1:
        raise ValueError("the window must be at least one passage")
    out = []
    for j, node in enumerate(nodes):
        if j == 0 or (targets is not None and not targets(node)):
            continue
        out.append((node, list(nodes[max(0, j - window):j])))
    return out


@dataclass(frozen=True)
class PairCost:
    calls: float
    input_tokens: float
    output_tokens: float


@dataclass(frozen=True)
class PromptSizes:
    """Tokens of the three prompts without their passages (a question is ~25 tokens)."""

    turn1: int
    turn2: int
    verify: int

    @classmethod
    def measure(cls, count: Callable[[str], int]) -> PromptSizes:
        return cls(count(QG_TURN1.format(prior="", current="")), count(QG_TURN2),
                   count(VERIFY.format(context="", question="")) + 25)


def estimate_pair_cost(prior_tokens: int, current_tokens: int, sizes: PromptSizes, *, verify: bool = True,
                       upper_bound: bool = False) -> PairCost:
    """Tokens one pair is expected to use: turn 1, turn 2 (which re-sends turn 1 and its reply), and one
    verification per question (each sending both passages). `upper_bound`: every reply at its cap and the most
    questions a pair may keep. Passage and prompt counts are added up: an estimate, not a tokenization."""
    share = 1.0 if upper_bound else TYPICAL_OUTPUT_SHARE
    questions = MAX_QUESTIONS_PER_PAIR if upper_bound else TYPICAL_QUESTIONS_PER_PAIR
    passages = prior_tokens + current_tokens
    turn1_in = sizes.turn1 + passages
    turn1_out = TURN1_MAX_TOKENS * share
    turn2_in = turn1_in + turn1_out + sizes.turn2
    turn2_out = TURN2_MAX_TOKENS * share
    calls, tokens_in, tokens_out = 2.0, turn1_in + turn2_in, turn1_out + turn2_out
    if verify:
        calls += questions
        tokens_in += questions * (sizes.verify + passages)
        tokens_out += questions * VERIFY_MAX_TOKENS * share
    return PairCost(calls, tokens_in, tokens_out)


def approximate_tokens(text: str) -> int:
    """A tokenizer-free token count for estimates (English BPE tokenizers give ~1.3 tokens per word)."""
    return int(len(text.split()) * 1.3) + 1


@dataclass
class RecapEntry:
    """An earlier passage the chapter depends on, with the questions the chapter asks of it."""

    chunk_id: int
    chapter: int
    index: int
    degree: int
    questions: list[QuestionEdge] = field(default_factory=list)


def rank_recap(edges: Sequence[QuestionEdge], chapter: int, limit: int | None = None) -> list[RecapEntry]:
    """Passages of chapters before `chapter` that its passages ask retrospective questions of, most questions
    first (ties: the closer passage first)."""
    grouped: dict[int, list[QuestionEdge]] = defaultdict(list)
    for edge in edges:
        if edge.to_chapter == chapter and edge.from_chapter < chapter:
            grouped[edge.from_chunk_id].append(edge)
    entries = [RecapEntry(cid, qs[0].from_chapter, qs[0].from_index, len(qs),
                          sorted(qs, key=lambda e: (e.to_index, e.id))) for cid, qs in grouped.items()]
    entries.sort(key=lambda e: (-e.degree, -e.chapter, -e.index))
    return entries[:limit] if limit is not None else entries
