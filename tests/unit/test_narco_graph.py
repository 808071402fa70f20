"""Which pairs a NARCO build visits, what it is estimated to cost, and how a recap ranks earlier passages."""
from __future__ import annotations

import pytest

from core.narco import Node, QuestionEdge, estimate_pair_cost, rank_recap, window_pairs
from core.narco.graph import PromptSizes
from core.narco.prompts import MAX_QUESTIONS_PER_PAIR, QG_TURN1, VERIFY_MAX_TOKENS


def _nodes() -> list[Node]:
    layout = [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (3, 0)]
    return [Node(100 + i, ch, idx, f"passage {i}") for i, (ch, idx) in enumerate(layout)]


def test_window_pairs_cross_chapters_and_honour_targets() -> None:
    nodes = _nodes()
    pairs = window_pairs(nodes, window=2)
    assert [(c.chunk_id, [p.chunk_id for p in ps]) for c, ps in pairs] == [
        (101, [100]), (102, [100, 101]), (103, [101, 102]), (104, [102, 103]), (105, [103, 104])]
    only_two = window_pairs(nodes, window=3, targets=lambda n: n.chapter == 2)
    assert [(c.chunk_id, [p.chunk_id for p in ps]) for c, ps in only_two] == [
        (103, [100, 101, 102]), (104, [101, 102, 103])]  # priors may lie before the range
    with pytest.raises(ValueError):
        window_pairs(nodes, window=0)


def test_estimate_counts_both_turns_and_the_verifications() -> None:
    sizes = PromptSizes.measure(lambda s: len(s.split()))  # a whitespace tokenizer
    assert sizes.turn1 == len(QG_TURN1.split()) - 2  # without the two placeholder words
    plain = estimate_pair_cost(3, 3, sizes, verify=False)
    verified = estimate_pair_cost(3, 3, sizes)
    upper = estimate_pair_cost(3, 3, sizes, upper_bound=True)
    assert plain.calls == 2 and verified.calls == pytest.approx(2 + 3.4)
    assert verified.input_tokens > plain.input_tokens and upper.input_tokens > verified.input_tokens
    assert upper.calls == 2 + MAX_QUESTIONS_PER_PAIR
    assert upper.output_tokens - plain.output_tokens * 2 == MAX_QUESTIONS_PER_PAIR * VERIFY_MAX_TOKENS
    longer = estimate_pair_cost(300, 3, sizes)
    # 297 more prior words, sent in turn 1, again in turn 2, and in each verification
    assert longer.input_tokens - verified.input_tokens == pytest.approx(297 * (2 + 3.4), abs=1)


def _edge(i: int, src: tuple[int, int, int], dst: tuple[int, int, int]) -> QuestionEdge:
    return QuestionEdge(i, src[0], dst[0], src[1], src[2], dst[1], dst[2], f"question {i}?", f"evidence {i}", "")


def test_recap_ranks_by_degree_then_closeness_and_ignores_other_chapters() -> None:
    a, b, c = (1, 1, 0), (2, 1, 5), (3, 2, 1)       # (chunk id, chapter, index)
    here, here2, later = (9, 3, 0), (10, 3, 1), (11, 4, 0)
    edges = [_edge(1, a, here), _edge(2, a, here2), _edge(3, b, here), _edge(4, c, here), _edge(5, b, here2),
             _edge(6, c, later),  # asked from chapter 4: not part of chapter 3's recap
             _edge(7, (8, 3, 0), here2)]  # within chapter 3: not an *earlier* passage
    recap = rank_recap(edges, chapter=3)
    assert [(e.chunk_id, e.degree) for e in recap] == [(2, 2), (1, 2), (3, 1)]  # tie: chunk 2 is closer than 1
    assert [q.question for q in recap[0].questions] == ["question 3?", "question 5?"]
    assert len(rank_recap(edges, chapter=3, limit=1)) == 1
    assert rank_recap(edges, chapter=1) == []
