"""The answer support check (core.qa.support) with a fake embedder: supported and unsupported sentences, the best
source sentence and its citation, and the cases with nothing to check."""
from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from core.qa.support import (EMPTY_ANSWER, MAX_ANSWER_SENTENCES, NO_CITATIONS, NOTHING_TO_CHECK, THRESHOLD,
                             check_support, content_words)

SOURCES = [
    "Buck lived at a big house in the sun-kissed Santa Clara Valley. Manuel, one of the gardener's helpers, stole "
    "Buck and sold him to a stranger. The Judge was at a meeting that night.",
    "Spitz was the leader of the team. François harnessed the dogs at dawn. The Yeehats killed John Thornton by "
    "the river.",
]


class FakeEmbed:
    """Bag-of-words vectors (hashed lower-cased words, unit length): cosine follows shared words. Keeps its calls."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, zlib.crc32(word.encode()) % 256] += 1.0
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out


def refuse(texts: Sequence[str]) -> np.ndarray:
    raise AssertionError("nothing should be embedded here")


def test_a_supported_sentence_names_its_best_source_and_citation() -> None:
    fake = FakeEmbed()
    support = check_support("Manuel stole Buck and sold him.", SOURCES, embed=fake)
    (s,) = support.sentences
    assert s.supported is True and support.supported is True and s.score >= THRESHOLD
    assert s.source == "Manuel, one of the gardener's helpers, stole Buck and sold him to a stranger."
    assert s.citation == 0 and s.overlap == 1.0 and s.text_overlap == 1.0 and s.cosine > 0.5
    assert support.best is s and not s.unmatched
    assert len(fake.calls) == 1  # the answer's and the sources' sentences in one call


def test_the_best_source_can_come_from_a_later_citation() -> None:
    support = check_support("The Yeehats killed Thornton.", SOURCES, embed=FakeEmbed())
    (s,) = support.sentences
    assert s.supported is True and s.citation == 1
    assert s.source == "The Yeehats killed John Thornton by the river."


def test_an_answer_the_passages_do_not_talk_about_is_unsupported() -> None:
    support = check_support("Scrooge rescued Tiny Tim in London.", SOURCES, embed=FakeEmbed())
    (s,) = support.sentences
    assert s.supported is False and support.supported is False and support.unsupported == [s]
    assert s.score < THRESHOLD and s.overlap == 0.0
    assert s.unmatched == ("Scrooge", "rescued", "Tiny", "Tim", "London")
    assert s.source is not None  # still the closest cited sentence, for the reader to compare


def test_each_sentence_is_judged_on_its_own() -> None:
    support = check_support("Manuel stole Buck. Later Scrooge married Elizabeth in Paris.", SOURCES,
                            embed=FakeEmbed())
    assert [s.supported for s in support.sentences] == [True, False]
    assert support.supported is False and support.best is support.sentences[0]
    data = support.as_dict()
    assert data["supported"] is False and data["best"] == 0 and data["sentences"][1]["supported"] is False


@pytest.mark.parametrize("answer", ["", "   ", None])
def test_an_empty_answer_has_nothing_to_check(answer: str | None) -> None:
    support = check_support(answer, SOURCES, embed=refuse)  # type: ignore[arg-type]
    assert support.sentences == [] and support.supported is None and support.notes == [EMPTY_ANSWER]
    assert support.best is None


@pytest.mark.parametrize("answer", ["Yes.", "No, not at all.", "Maybe."])
def test_an_answer_without_content_words_is_left_unchecked(answer: str) -> None:
    support = check_support(answer, SOURCES, embed=refuse)
    assert [s.supported for s in support.sentences] == [None] and support.supported is None
    assert support.notes == [NOTHING_TO_CHECK]


@pytest.mark.parametrize("sources", [[], [""], ["   "]])
def test_without_citations_nothing_is_supported(sources: list[str]) -> None:
    support = check_support("Manuel stole Buck. Yes.", sources, embed=refuse)
    assert [s.supported for s in support.sentences] == [False, None]
    assert support.supported is False and support.notes == [NO_CITATIONS]
    assert support.sentences[0].unmatched == ("Manuel", "stole", "Buck") and support.best is None


def test_a_very_long_answer_is_checked_up_to_the_limit() -> None:
    answer = " ".join(f"Manuel stole Buck on day {i}." for i in range(MAX_ANSWER_SENTENCES + 10))
    fake = FakeEmbed()
    support = check_support(answer, SOURCES, embed=fake)
    assert len(support.sentences) == MAX_ANSWER_SENTENCES + 10
    assert all(s.supported is not None for s in support.sentences[:MAX_ANSWER_SENTENCES])
    assert all(s.supported is None for s in support.sentences[MAX_ANSWER_SENTENCES:])
    assert support.notes and "first 40" in support.notes[0]
    assert len(fake.calls[0]) == MAX_ANSWER_SENTENCES + 6  # checked sentences + the six source sentences


def test_as_dict_says_where_the_best_source_is() -> None:
    class Cited:
        def __init__(self, chapter: int, chunk: int, text: str) -> None:
            self.chapter, self.chunk, self.text = chapter, chunk, text

    citations = [Cited(1, 0, SOURCES[0]), Cited(7, 3, SOURCES[1])]
    data = check_support("The Yeehats killed Thornton.", [c.text for c in citations],
                         embed=FakeEmbed()).as_dict(citations)
    (row,) = data["sentences"]
    assert (row["chapter"], row["chunk"], row["citation"]) == (7, 3, 1) and data["best"] == 0
    assert set(row) >= {"text", "supported", "score", "overlap", "text_overlap", "cosine", "source", "unmatched"}


def test_content_words_are_stemmed_and_skip_function_words() -> None:
    assert [stem for stem, _ in content_words("He stole Buck's collar, and the dogs were stealing.")] == [
        "stole", "buck", "collar", "dog", "steal"]
    assert content_words("Yes, it was.") == ()


def test_words_repeated_from_the_question_can_be_discounted() -> None:
    question = "Who stole Buck?"
    plain = check_support("The Yeehats stole Buck.", SOURCES, question=question, embed=FakeEmbed(),
                          discount_question=False).sentences[0]
    discounted = check_support("The Yeehats stole Buck.", SOURCES, question=question, embed=FakeEmbed(),
                               discount_question=True).sentences[0]
    assert plain.source is not None and plain.source.startswith("Manuel") and plain.overlap == pytest.approx(2 / 3)
    assert discounted.source == "The Yeehats killed John Thornton by the river."  # judged on "Yeehats" alone
    assert discounted.overlap == 1.0
    echo = check_support("They stole Buck.", SOURCES, question=question, embed=FakeEmbed(),
                         discount_question=True).sentences[0]
    assert echo.supported is not None and echo.overlap == 1.0  # only the question's words: all of them are kept


def test_a_name_the_cited_passages_lack_fails_the_answer() -> None:
    support = check_support("Jacob Manuel stole Buck and sold him.", SOURCES, embed=FakeEmbed())
    (s,) = support.sentences
    assert s.missing_names == ("Jacob",) and s.supported is False   # the words alone would have passed
    assert support.missing_names == ["Jacob"] and support.supported is False
    right = check_support("Manuel stole Buck and sold him.", SOURCES, embed=FakeEmbed())
    assert right.missing_names == [] and right.supported is True
    lax = check_support("Jacob Manuel stole Buck and sold him.", SOURCES, embed=FakeEmbed(), names=False)
    assert lax.supported is True                                     # the check without names: fooled


def test_a_question_about_someone_the_passages_never_mention_fails_any_answer() -> None:
    support = check_support("Manuel stole Buck.", SOURCES, question="Who did Mercedes marry?", embed=FakeEmbed())
    assert support.question_missing == ("Mercedes",) and support.supported is False
    assert support.as_dict()["question_missing"] == ["Mercedes"]


def test_colocation_rewards_the_answer_found_beside_what_the_question_asks() -> None:
    question = "Who killed John Thornton by the river?"
    right = check_support("The Yeehats.", SOURCES, question=question, embed=FakeEmbed())
    wrong = check_support("The gardener's helpers.", SOURCES, question=question, embed=FakeEmbed())
    assert right.sentences[0].colocation > 0.5 > wrong.sentences[0].colocation
    heavy = (0.0, 0.0, 0.0, 1.0)  # the sentence rule alone (relevant=False): co-location decides
    assert check_support("The gardener's helpers.", SOURCES, question=question, embed=FakeEmbed(),
                         weights=heavy, threshold=0.5, relevant=False).supported is False
    assert check_support("The Yeehats.", SOURCES, question=question, embed=FakeEmbed(),
                         weights=heavy, threshold=0.5, relevant=False).supported is True


def test_with_a_question_the_verdict_weighs_relevance_and_support() -> None:
    question = "Who killed John Thornton by the river?"
    right = check_support("The Yeehats killed John Thornton.", SOURCES, question=question, embed=FakeEmbed())
    assert right.relevance is not None and right.relevance.coverage == 0.75 and right.relevance.missing == ("river",)
    assert not right.relevance.with_context
    assert right.probability is not None and right.supported is True
    # a true sentence of the same passages that answers something else: backed, but off the question
    other = check_support("Manuel stole Buck and sold him to a stranger.", SOURCES, question=question,
                          embed=FakeEmbed())
    assert all(s.supported for s in other.checked) and other.relevance is not None
    assert other.relevance.coverage == 0.0 and set(other.relevance.missing) == {"killed", "John", "Thornton", "river"}
    assert other.supported is False and other.off_question
    assert other.as_dict()["off_question"] is True and other.as_dict()["relevance"]["coverage"] == 0.0
    # without a question, the sentence rule alone: supported
    assert check_support("Manuel stole Buck and sold him to a stranger.", SOURCES, embed=FakeEmbed()).supported


def test_a_short_answer_is_judged_with_the_sentence_that_backs_it() -> None:
    question = "Who killed John Thornton by the river?"
    short = check_support("The Yeehats.", SOURCES, question=question, embed=FakeEmbed())
    assert short.relevance is not None and short.relevance.with_context and short.relevance.coverage == 1.0
    assert short.supported is True
    wrong = check_support("The gardener's helpers.", SOURCES, question=question, embed=FakeEmbed())
    assert wrong.relevance is not None and wrong.relevance.coverage < 0.5 and wrong.supported is False


def test_the_probability_follows_the_fitted_model() -> None:
    from core.qa.relevance import COEFFICIENTS, INTERCEPT, Relevance, answer_probability
    rel = Relevance(coverage=0.5, cosine=0.4, missing=("river",))
    z = INTERCEPT + COEFFICIENTS[0] * 0.6 + COEFFICIENTS[1] * 0.4 + COEFFICIENTS[2] * 0.5
    assert answer_probability(0.6, rel) == pytest.approx(1 / (1 + np.exp(-z)))
    assert answer_probability(1.0, Relevance(1.0, 1.0, ())) > answer_probability(1.0, Relevance(0.0, 0.0, ()))


def test_added_words_are_what_a_restatement_says_beyond_its_sources() -> None:
    from core.qa.words import added_words
    quote = '"I am in the presence of the Ghost of Christmas Yet To Come?" said Scrooge.'
    question = "What does the Ghost of Christmas Yet to Come show Scrooge?"
    told = "The Ghost of Christmas Yet to Come shows Scrooge that he is not the only one who has been hurt by the " \
           "Christmas spirit."
    assert added_words(told, [quote, question]) == ("hurt", "spirit")
    # inflections and possessives of the sources' own words add nothing; nor do function words
    assert added_words("Manuel sells Buck's collar; he was selling it.", ["Manuel, who sells collars", "Buck"]) == ()
    assert added_words("Manuel sold it.", ["Manuel sells it."]) == ("sold",)  # stems, not lemmas: strict
    assert added_words("Anything at all.", []) == ("Anything",)
