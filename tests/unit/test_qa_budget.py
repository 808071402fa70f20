"""The assembled prompt never exceeds the budget, in every mode, whatever the input."""
from __future__ import annotations

import random

import numpy as np
import pytest

from core.narco import QuestionEdge
from core.qa import Corpus, FactRecord, Passage, QAParams, plan_prompt
from core.qa.budget import keep_end, keep_start, truncate_to_tokens


def words(text: str) -> int:
    return len(text.split())


def chars(text: str) -> int:
    """A tokenizer where long words are expensive (about 3 characters a token), like BPE on rare strings."""
    return sum(len(w) // 3 + 1 for w in text.split())


COUNTERS = {"words": words, "chars": chars}
WORDS = "the quick brown fox jumps over lazy dog Marley Scrooge said cried nephew ghost".split()


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _corpus(rng: random.Random, passages: list[str], facts: list[FactRecord] | None = None,
            edges: int = 0) -> Corpus:
    items = [Passage(i, 1 + i // 4, i % 4, t) for i, t in enumerate(passages)]
    vectors = np.asarray([rng.random() for _ in range(len(items) * 8)], dtype=np.float32).reshape(len(items), 8)
    if len(items):
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    edge_list = [QuestionEdge(m, m % max(len(items), 1), (m + 1) % max(len(items), 1), 1, 0, 1, 1, _text(rng, 6),
                              "", "") for m in range(edges if items else 0)]
    edge_vecs = np.ones((len(edge_list), 8), dtype=np.float32) / np.sqrt(8) if edge_list else None
    return Corpus(items, facts or [], vectors, edge_list, edge_vecs)


def _facts(rng: random.Random, n: int, size: int) -> list[FactRecord]:
    return [FactRecord(_text(rng, size), "said", _text(rng, size), 1 + i % 3, i % 4, i, _text(rng, 10))
            for i in range(n)]


PATHOLOGICAL = {
    "empty book": dict(passages=[], question="Who is Marley?"),
    "ordinary": dict(passages=["ordinary"] * 12, question="Who is Marley?"),
    "huge question": dict(passages=["ordinary"] * 6, question=" ".join(["why"] * 5000) + "?"),
    "question without spaces": dict(passages=["ordinary"] * 6, question="x" * 20000),
    "one giant word passage": dict(passages=["y" * 30000, "ordinary"], question="What is y?"),
    "huge facts": dict(passages=["ordinary"] * 6, question="Who is Marley?", fact_size=3000),
    "many tiny passages": dict(passages=["tiny"] * 400, question="Who?"),
    "unicode": dict(passages=["“Ghost!” — 幽霊 cried Scrooge, ’tis Marley.\n\n" * 30] * 3,
                    question="¿Quién?"),
}


@pytest.mark.parametrize("counter", COUNTERS)
@pytest.mark.parametrize("case", PATHOLOGICAL)
@pytest.mark.parametrize("budget", [1, 7, 40, 300, 1000])
@pytest.mark.parametrize("mode", ["traditional", "kg", "rag", "narco"])
def test_prompt_never_exceeds_the_budget(mode: str, budget: int, case: str, counter: str) -> None:
    rng = random.Random(f"{mode}{budget}{case}")
    spec = PATHOLOGICAL[case]
    passages = [_text(rng, rng.randint(150, 240)) if p == "ordinary" else _text(rng, 2) if p == "tiny" else p
                for p in spec["passages"]]
    corpus = _corpus(rng, passages, _facts(rng, 20, spec.get("fact_size", 4)), edges=15)
    count = COUNTERS[counter]
    reserve = 3 if budget > 3 else 0
    query = np.ones(8, dtype=np.float32) / np.sqrt(8)
    plan = plan_prompt(spec["question"], corpus.upto(2), QAParams(mode=mode, budget_tokens=budget), count=count,
                       reserve=reserve, query_vec=query)
    assert count(plan.prompt) == plan.prompt_tokens
    assert plan.prompt_tokens + reserve <= budget
    if budget >= 300 and case == "ordinary":
        assert plan.prompt_tokens + reserve >= budget - 250  # the room is used, not just respected
        assert plan.citations


def test_random_inputs_with_a_random_budget_never_overflow() -> None:
    rng = random.Random(1234)
    for trial in range(60):
        passages = [_text(rng, rng.randint(0, 300)) for _ in range(rng.randint(0, 15))]
        corpus = _corpus(rng, passages, _facts(rng, rng.randint(0, 10), rng.randint(1, 50)), edges=rng.randint(0, 9))
        budget = rng.randint(1, 1200)
        mode = rng.choice(["traditional", "kg", "rag", "narco"])
        count = rng.choice(list(COUNTERS.values()))
        question = _text(rng, rng.randint(1, 400))
        plan = plan_prompt(question, corpus.upto(rng.randint(1, 5)), QAParams(mode=mode, budget_tokens=budget),
                           count=count, query_vec=np.ones(8, dtype=np.float32) / np.sqrt(8))
        assert count(plan.prompt) <= budget, (trial, mode, budget)


def test_keep_end_and_keep_start_cut_at_words_and_keep_white_space() -> None:
    text = "one two\nthree  four five"
    assert keep_end(text, words, 2) == "four five"
    assert keep_start(text, words, 3) == "one two\nthree"
    assert keep_end(text, lambda t: 99, 5) == ""
    assert keep_start("abcdefghij", len, 4) == "abcd"  # one over-long word: cut by characters
    assert truncate_to_tokens(text, 2, words, keep="end") == "four five"
    assert truncate_to_tokens("x" * 50, 3, chars, keep="end") == "x" * 8  # 8 // 3 + 1 = 3 tokens
    assert truncate_to_tokens(text, 0, words) == ""
