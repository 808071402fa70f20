"""What each mode puts in the prompt, spoiler safety, citations, verbalization and answer cleaning."""
from __future__ import annotations

import numpy as np
import pytest

from core.llm import Abilities, FakeLLM
from core.narco import QuestionEdge
from core.qa import (Corpus, FactRecord, LLMVerbalizer, Passage, QAParams, clean_answer, plan_prompt,
                     template_verbalize)
from core.qa.prompts import QA_FRAMING


def words(text: str) -> int:
    return len(text.split())


def _unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


PASSAGES = [Passage(10, 1, 0, "Marley was dead to begin with."),
            Passage(11, 1, 1, "Scrooge signed the register of his burial."),
            Passage(12, 2, 0, "The ghost of Marley came through the door."),
            Passage(13, 3, 0, "Tiny Tim did NOT die, and Scrooge became a second father to him.")]
VECTORS = np.stack([_unit(1, 0, 0), _unit(0.9, 0.1, 0), _unit(0, 1, 0), _unit(1, 0, 0.01)])
FACTS = [FactRecord("Marley", "was", "dead", 1, 0, 10, "Marley was dead to begin with."),
         FactRecord("Scrooge", "signed", "the register", 1, 1, 11, "Scrooge signed the register of his burial."),
         FactRecord("the ghost", "came through", "the door", 2, 0, 12, "The ghost of Marley came through the door."),
         FactRecord("Tiny Tim", "did not", "die", 3, 0, 13, "Tiny Tim did NOT die.")]


def _corpus(edges: list[QuestionEdge] | None = None, edge_vecs: np.ndarray | None = None) -> Corpus:
    return Corpus(PASSAGES, FACTS, VECTORS, edges or [], edge_vecs)


def test_traditional_takes_the_end_of_the_visible_text_only() -> None:
    plan = plan_prompt("Who came through the door?", _corpus().upto(2), QAParams(mode="traditional", budget_tokens=40),
                       count=words)
    assert plan.prompt.endswith("Question: Who came through the door?\nAnswer:")
    assert "The ghost of Marley came through the door." in plan.prompt and QA_FRAMING in plan.prompt
    assert "Tiny Tim" not in plan.prompt  # chapter 3 is after the reader's position
    assert [(c.chapter, c.chunk, c.kind) for c in plan.citations][-1] == (2, 0, "text")
    # a tight budget keeps the *end* of the text
    tight = plan_prompt("Who?", _corpus().upto(2), QAParams(mode="traditional", budget_tokens=25), count=words)
    assert "came through the door." in tight.prompt and "Marley was dead" not in tight.prompt
    assert tight.citations[0].text.endswith("his burial.") and len(tight.citations[0].text) < len(PASSAGES[1].text)


def test_kg_puts_the_nearest_facts_before_the_question_and_never_later_ones() -> None:
    plan = plan_prompt("Did Tiny Tim die?", _corpus().upto(2), QAParams(mode="kg", top_facts=2, budget_tokens=60),
                       count=words)
    assert len(plan.facts) == 2 and all(f.fact.chapter <= 2 and "Tiny Tim" not in f.sentence for f in plan.facts)
    everything = plan_prompt("Did Tiny Tim die?", _corpus().upto(3), QAParams(mode="kg", top_facts=1), count=words)
    assert everything.facts[0].sentence == "Tiny Tim did not die."
    facts_at = everything.prompt.index("Tiny Tim did not die.")
    assert facts_at > everything.prompt.index("second father to him.") and facts_at < everything.prompt.index(
        QA_FRAMING)
    assert any(c.kind == "fact" and c.text == "Tiny Tim did NOT die." for c in everything.citations)


def test_rag_picks_the_most_similar_passages_and_shows_them_in_reading_order() -> None:
    plan = plan_prompt("q", _corpus().upto(2), QAParams(mode="rag", passage_search="dense", max_passages=2,
                                                    budget_tokens=200),
                       count=words, query_vec=_unit(1, 0, 0))
    assert [sp.passage.chunk_id for sp in plan.passages] == [10, 11]  # 13 is more similar but in chapter 3
    assert plan.prompt.index("Marley was dead") < plan.prompt.index("Scrooge signed")
    assert [(c.chapter, c.chunk, c.kind) for c in plan.citations] == [(1, 0, "passage"), (1, 1, "passage")]
    assert plan.citations[0].score == pytest.approx(1.0)


def test_narco_lifts_a_passage_whose_question_matches() -> None:
    # passage 11 is slightly less similar than passage 10, but a question asked from it matches the query exactly
    edge = QuestionEdge(1, 10, 11, 1, 0, 1, 1, "Who signed the burial register?", "Scrooge signed", "")
    plan = plan_prompt("Who signed the burial register?", _corpus([edge], _unit(1, 0, 0)[None, :]).upto(2),
                       QAParams(mode="narco", max_passages=1, narco_lambda=0.1), count=words,
                       query_vec=_unit(1, 0, 0))
    top = plan.passages[0]
    assert top.passage.chunk_id == 11 and top.question == "Who signed the burial register?"
    assert top.score == pytest.approx(top.similarity + 0.1)
    # the same edge owned by the passage that answers it lifts passage 10 instead
    incoming = plan_prompt("q", _corpus([edge], _unit(1, 0, 0)[None, :]).upto(2),
                           QAParams(mode="narco", max_passages=1, edge_side="incoming"), count=words,
                           query_vec=_unit(1, 0, 0))
    assert incoming.passages[0].passage.chunk_id == 10


def test_narco_ignores_edges_asked_from_after_the_readers_chapter() -> None:
    spoiler = QuestionEdge(1, 11, 13, 1, 1, 3, 0, "What happened to Tiny Tim?", "", "")
    corpus = _corpus([spoiler], _unit(1, 0, 0)[None, :])
    plan = plan_prompt("q", corpus.upto(2), QAParams(mode="narco"), count=words, query_vec=_unit(1, 0, 0))
    assert all(sp.question is None for sp in plan.passages)
    assert any("No NARCO edges" in n for n in plan.notes)
    assert plan_prompt("q", corpus.upto(3), QAParams(mode="narco"), count=words,
                       query_vec=_unit(1, 0, 0)).passages[0].question == "What happened to Tiny Tim?"


def test_rag_without_vectors_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="embeddings"):
        plan_prompt("q", Corpus(PASSAGES).upto(None), QAParams(mode="rag"), count=words)


def test_llm_verbalization_is_used_when_sensible_and_falls_back_otherwise() -> None:
    fact = FACTS[3]
    good = LLMVerbalizer(FakeLLM(["Tiny Tim did not die."]))
    assert good(fact) == "Tiny Tim did not die." and good.used_llm == 1
    # the Figure 2 few-shot prompt, with this fact last
    assert good.llm.calls[0].prompt.endswith("The knight fought with the dragon.\nTiny Tim, did not, die :")
    rambling = LLMVerbalizer(FakeLLM(["Once upon a time there was a cat. " * 20]))
    assert rambling(fact) == template_verbalize(fact) == "Tiny Tim did not die." and rambling.fallbacks == 1
    unrelated = LLMVerbalizer(FakeLLM(["The weather was fine."]))
    assert unrelated(fact) == "Tiny Tim did not die."


@pytest.mark.parametrize("reply, expected", [
    ("Answer: Jacob Marley.\nQuestion: next?", "Jacob Marley."),
    ("\n\n  \"Bob Cratchit\"  ", "Bob Cratchit"),
    ("", ""),
    ("word " * 100, " ".join(["word"] * 40)),
])
def test_clean_answer(reply: str, expected: str) -> None:
    assert clean_answer(reply) == expected


@pytest.mark.parametrize("kwargs", [dict(mode="oracle"), dict(upto=0), dict(budget_tokens=0), dict(top_facts=-1),
                                    dict(narco_lambda=-0.1), dict(edge_side="sideways"), dict(verbalize="poem")])
def test_params_are_validated(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        QAParams(**kwargs)


def test_corpus_views_are_prefixes_by_chapter() -> None:
    corpus = _corpus()
    assert [p.chunk_id for p in corpus.upto(1).passages] == [10, 11]
    assert len(corpus.upto(2).facts) == 3 and corpus.upto(None).n_passages == 4
    assert corpus.upto(2).passage_vectors.shape == (3, 3)
    with pytest.raises(ValueError):
        Corpus(PASSAGES, [], VECTORS[:2])


@pytest.mark.parametrize("fact, reply, accepted", [
    (("the two men", "eat", "borscht"), "The two men ate borscht.", True),          # Andrus Table 3
    (("Kovrin not", "sleep", "much"), "Kovrin doesn't sleep much.", True),
    (("a monster", "made", "of smoke"), "The monster was made of smoke", True),
    (("Alice", "caught", "the baby"), "The baby was caught by the knight.", False),  # lost the head, copied an example
    (("Alice", "caught", "the baby"), "Alice caught the knight's dragon baby.", False),
    (("Alice", "caught", "the baby"), "", False),
])
def test_accept_verbalization(fact: tuple[str, str, str], reply: str, accepted: bool) -> None:
    from core.qa.verbalize import accept_verbalization
    record = FactRecord(*fact, 1, 0, 0, "")
    result = accept_verbalization(reply, record)
    assert (result is not None) is accepted
    if accepted:
        assert result.endswith(".")


class BaseModel(FakeLLM):
    """A fake of a local base model: no chat template, raw continuation through generate_text."""

    abilities = Abilities(raw_text=True, prompt_text=True, chat_template=False)
    raw: list[str]

    def generate_text(self, prompt: str, **options):  # noqa: ANN003, ANN201
        self.raw = [*getattr(self, "raw", []), prompt]
        return self.complete(prompt, **options)

    def format_prompt(self, messages) -> str:  # noqa: ANN001 - the plain transcript a base model would get
        return "Question: " + messages[-1]["content"] + "\nAnswer:"


def test_a_base_model_continues_the_prompt_and_a_chat_model_gets_a_message() -> None:
    from core.qa import generate_answer, template_overhead
    from core.qa.answer import model_input
    base = BaseModel(["Jacob Marley\nQuestion: more?"])
    assert generate_answer(base, "text\nQuestion: Who?\nAnswer:") == ("Jacob Marley", "Jacob Marley")
    assert base.raw == ["text\nQuestion: Who?\nAnswer:"]  # not wrapped in a second Question/Answer
    assert model_input(base, "p") == "p" and template_overhead(base) == 1
    chat = FakeLLM(["Answer: Jacob Marley"])
    assert generate_answer(chat, "p")[0] == "Jacob Marley" and chat.calls[0].messages[0].role == "user"
    assert template_overhead(chat) == 0
