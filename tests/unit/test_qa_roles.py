"""Which of a sentence's names answers the question (core.qa.roles): the one the parse ties closest to the words of
what was asked, with the packaged spaCy pipeline; and the extractive reader choosing it (core.qa.extract)."""
from __future__ import annotations

import pytest

from core import nlp
from core.qa.extract import extract_answer
from core.qa.roles import anchors, role_weights, tree_distance

from tests.unit.test_qa_extract import WordEmbed, _citations

LONGBOURN = '"My dear," replied Mr. Bennet, "nothing can clear Mr. Collins from the guilt of inheriting Longbourn."'


@pytest.fixture(scope="module")
def model():  # noqa: ANN201
    return nlp.load_spacy()


def test_tree_distance_counts_parse_edges(model) -> None:  # noqa: ANN001
    doc = model("Manuel sold Buck to a stranger.")
    manuel, sold, buck = doc[0], doc[1], doc[2]
    assert tree_distance(sold, sold) == 0
    assert tree_distance(manuel, sold) == 1
    assert tree_distance(manuel, buck) == 2
    assert tree_distance(buck, manuel) == 2


def test_anchors_are_the_topic_words_as_written_else_the_asked_names(model) -> None:  # noqa: ANN001
    doc = model(LONGBOURN)
    assert [t.text for t in anchors(doc, ["inherit"])] == ["inheriting"]
    assert [t.text for t in anchors(model("Who stole the sled? Manuel stole it."), ["steal"],
                                    bases={"stole": "steal"})] == ["stole", "stole"]
    assert [t.text for t in anchors(doc, ["marri"], names=["Longbourn"])] == ["Longbourn"]
    assert anchors(doc, ["marri"]) == []


def test_the_name_nearest_the_topic_keeps_its_weight_and_the_others_fall(model) -> None:  # noqa: ANN001
    weights = role_weights(model(LONGBOURN), {"Mr. Bennet": 1.0, "Mr. Collins": 1.0}, ["inherit"])
    assert weights["Mr. Collins"] == 1.0
    assert weights["Mr. Bennet"] < 1.0
    sentence = ("It is there that the Ivanhoe is located, of which Colonel Gillette was manager, and in which Robert "
                "Ingersoll and Senator Plumb, of Kansas, were interested.")
    weights = role_weights(model(sentence), {"Colonel Gillette": 1.0, "Robert Ingersoll": 0.8, "Kansas": 0.8},
                           ["interest"])
    assert max(weights, key=weights.__getitem__) == "Robert Ingersoll"


def test_weights_stand_without_an_anchor_or_a_choice(model) -> None:  # noqa: ANN001
    doc = model(LONGBOURN)
    spans = {"Mr. Bennet": 1.0, "Mr. Collins": 0.8}
    assert role_weights(doc, spans, ["marri"]) == spans              # the sentence does not write the topic
    assert role_weights(doc, spans, []) == spans                         # a question with no topic beyond names
    assert role_weights(doc, {"Mr. Bennet": 1.0}, ["inherit"]) == {"Mr. Bennet": 1.0}
    assert role_weights(doc, spans, ["inherit"], decay=1.0) == spans


def test_the_reader_answers_with_the_name_the_sentence_ties_to_the_question() -> None:
    passages = [LONGBOURN]
    found = extract_answer("Who inherits Longbourn?", _citations(passages), embed=WordEmbed())
    assert found.span is not None and "Collins" in found.span   # not Mr. Bennet, who says it
