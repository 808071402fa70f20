"""Linearization order (grouped by subject, subjects and objects by mentions in the chapter, self-loops first), both
formats, and filling the budget best-first without ever exceeding it."""
from __future__ import annotations

from core.summarize import arrange, fill, linearize, linearize_lines, linearize_tokens
from core.summarize.retrieval import KgEdge


def e(i: int, node: str, predicate: str, obj: str | None = None) -> KgEdge:
    return KgEdge(i, node, node.title(), predicate, obj.title() if obj else None, obj, 1, predicate)


# best-ranked first, as rank_edges returns them
RANKED = [e(1, "juliet", "loves", "romeo"), e(2, "romeo", "loves", "juliet"), e(3, "capulet", "hosts a party"),
          e(4, "romeo", "is in love"), e(5, "romeo", "fights", "tybalt"), e(6, "juliet", "daughter of", "capulet"),
          e(7, "romeo", "meets", "juliet"), e(8, "romeo", "is banished"), e(9, "capulet", "father of", "juliet")]
MENTIONS = {"romeo": 12, "juliet": 9, "capulet": 4, "tybalt": 2}


def test_groups_subjects_by_mentions_self_loops_first_objects_by_mentions() -> None:
    assert linearize_lines(RANKED, MENTIONS) == [
        "Romeo; is in love", "Romeo; is banished",                  # self-loops first, in rank order
        "Romeo; loves; Juliet", "Romeo; meets; Juliet",             # Juliet (9 mentions) before Tybalt (2)
        "Romeo; fights; Tybalt",
        "Juliet; loves; Romeo", "Juliet; daughter of; Capulet",      # Romeo (12) before Capulet (4)
        "Capulet; hosts a party", "Capulet; father of; Juliet",
    ]
    groups = arrange(RANKED, MENTIONS)
    assert [g.node for g in groups] == ["romeo", "juliet", "capulet"]
    assert [o for o, _ in groups[0].objects] == ["juliet", "tybalt"]


def test_ties_in_mentions_keep_the_better_ranked_first() -> None:
    ranked = [e(1, "b", "x", "a"), e(2, "a", "y", "b")]
    assert linearize_lines(ranked, {}) == ["B; x; A", "A; y; B"]


def test_token_format_names_each_subject_and_object_once() -> None:
    text = linearize_tokens(RANKED[:5], MENTIONS, {"romeo": "Romeo", "juliet": "Juliet", "tybalt": "Tybalt",
                                                   "capulet": "Old Capulet"})
    assert text == ("<subject> Romeo <predicate> is in love <object> Juliet <predicate> loves "
                    "<object> Tybalt <predicate> fights <subject> Juliet <object> Romeo <predicate> loves "
                    "<subject> Old Capulet <predicate> hosts a party")
    assert linearize(RANKED[:2], MENTIONS, {}, "lines")[0] == "Romeo; loves; Juliet\nJuliet; loves; Romeo"


def test_fill_takes_the_longest_best_first_prefix_that_fits() -> None:
    def count(lines: list[str]) -> int:
        return len(" ".join(lines).split())
    for budget in range(0, 40):
        def fits(edges):  # noqa: ANN001, ANN202
            return 5 + count(linearize_lines(edges, MENTIONS)) <= budget
        chosen = fill(RANKED, fits)
        assert chosen == RANKED[:len(chosen)]                    # a prefix of the ranking
        assert fits(chosen) or not chosen and budget < 5          # never over the budget
        if len(chosen) < len(RANKED):
            assert not fits(RANKED[:len(chosen) + 1])             # and as long as possible


def test_fill_never_exceeds_even_when_fits_is_not_monotone() -> None:
    odd = {0, 1, 2, 5}  # prefix lengths that "fit"

    def fits(edges):  # noqa: ANN001, ANN202
        return len(edges) in odd
    chosen = fill(RANKED, fits)
    assert len(chosen) in odd
    assert fill(RANKED, lambda es: True, limit=3) == RANKED[:3]
    assert fill([], lambda es: True) == []
