"""A name that calls someone in speech is no argument of the sentence's verbs (core.kg.openie.vocatives), with the
packaged spaCy model. Seen in The Picture of Dorian Gray's graph: "You have saved me from ruin, Alan." gave "Campbell
| has saved from | Alan" (the parse makes Alan an apposition of "ruin"), "Why do you ask me that, Harry?" an edge
between Lord Henry and his own nickname, and "The picture is yours, Dorian" made the picture Dorian. Each rule has
cases where it must not fire: an apposition in narration, a name after a person's role, a list, a subject."""
from __future__ import annotations

import pytest

from core import nlp
from core.kg.openie import triples_from_sentence, vocatives


@pytest.fixture(scope="module")
def model():  # noqa: ANN201
    return nlp.load_spacy()


def parsed(model, text: str):  # noqa: ANN001, ANN201
    """The parse and a mention lookup: each run of capitalised proper nouns is one name ("Lady Narborough")."""
    doc = next(nlp.pipe([text], nlp=model, disable=nlp.KG_DISABLE))
    names: dict[int, tuple[int, int, str]] = {}
    i = 0
    while i < len(doc):
        j = i
        while j < len(doc) and doc[j].pos_ == "PROPN" and doc[j].text[:1].isupper():
            j += 1
        for k in range(i, j):
            names[k] = (i, j, doc[i:j].text)
        i = max(j, i + 1)
    return doc, names.get


def called(model, text: str) -> set[str]:  # noqa: ANN001
    doc, at = parsed(model, text)
    return {doc[i].text for s in doc.sents for i in vocatives(s, at)}   # the words of the names


@pytest.mark.parametrize(("text", "name"), [
    ('"You have saved me from ruin, Alan.  I cannot forget that," said Dorian simply.', "Alan"),
    ('"Why do you ask me that, Harry?" said Dorian.', "Harry"),
    ('"Harry, I am quite vexed with you," said Lady Agatha.', "Harry"),
    ('"Come here, Buck," said Thornton, and the dog came.', "Buck"),
    ('"The picture is yours, Dorian.  I gave it to you before it existed."', "Dorian"),
    ('"Harry!" exclaimed Hallward, frowning.', "Harry"),           # the parse made it the subject of "exclaimed"
    ('"Basil," cried Dorian Gray, "if Lord Henry goes, I shall go, too."', "Basil"),
])
def test_a_name_that_calls_someone_is_found(model, text: str, name: str) -> None:  # noqa: ANN001
    assert name in called(model, text)


@pytest.mark.parametrize("text", [
    "He went down the road and saw the man, Potter.",               # narration: an apposition
    '"This is my friend, Watson," said Holmes.',                    # a name after a person's role
    '"I have asked Jo, Meg, and Amy," said Mrs. March.',            # the end of a list
    "Harry, tired and cold, went home to his mother.",              # the subject
    '"Harry came home late," she said.',
])
def test_no_call_where_the_name_is_an_argument(model, text: str) -> None:  # noqa: ANN001
    assert called(model, text) - {"Holmes", "March", "Mrs."} == set()


def test_a_called_name_is_no_object_and_names_no_noun(model) -> None:  # noqa: ANN001
    doc, at = parsed(model, '"You have saved me from ruin, Alan.  I cannot forget that," said Dorian simply.')
    found = [r for s in doc.sents for r in triples_from_sentence(s, at)]
    assert not any(r.tail_name == "Alan" or r.head_name == "Alan" for r in found)
    assert any(" ".join(t.text for t in r.tail) == "ruin" for r in found)


def test_an_apposition_in_narration_still_names_its_noun(model) -> None:  # noqa: ANN001
    doc, at = parsed(model, "The old man, Potter, took Retief to the camp.")
    found = [r for s in doc.sents for r in triples_from_sentence(s, at)]
    assert any(r.head_name == "Potter" for r in found)


def test_a_quoted_name_inside_a_sentence_is_a_term_not_a_call(model) -> None:  # noqa: ANN001
    """GraphRAG-Bench's Travels in Morocco: 'this mountain system, called by him "Systeme Atlantique," and I shall
    annex ...' lost its edge to Mount Atlas when a name that is all a quotation says was read as a call."""
    doc = next(nlp.pipe(['He called it "Systeme Atlantique," and I shall annex what he says of Mount Atlas.'],
                        nlp=model, disable=nlp.KG_DISABLE))
    start = next(t.i for t in doc if t.text == "Systeme")
    spans = {start: (start, start + 2, "Systeme Atlantique"), start + 1: (start, start + 2, "Systeme Atlantique")}
    assert not {i for s in doc.sents for i in vocatives(s, spans.get)}


def test_dear_or_my_before_a_name_that_calls_someone(model) -> None:  # noqa: ANN001
    """'"Dear Lady Narborough," murmured Dorian' made Lady Narborough the one who murmured, to Dorian."""
    doc = next(nlp.pipe(['"Dear Lady Narborough," murmured Dorian, smiling, "I have not been in love for a week."'],
                        nlp=model, disable=nlp.KG_DISABLE))
    lady = next(t.i for t in doc if t.text == "Lady")
    spans = {lady: (lady, lady + 2, "Lady Narborough"), lady + 1: (lady, lady + 2, "Lady Narborough")}
    assert doc[lady - 1].lower_ == "dear" and {lady, lady + 1} <= {i for s in doc.sents for i in vocatives(s, spans.get)}


def test_a_name_alone_after_the_last_speech_s_closing_mark(model) -> None:  # noqa: ANN001
    """Dorian Gray's sentence splitter gave '" "Harry!" exclaimed Hallward, frowning.': the closing mark of the
    speech before opens the sentence, and Harry stayed the subject of "exclaimed"."""
    doc, at = parsed(model, '"I do not." "Harry!" exclaimed Hallward, frowning.')
    closing = next(t.i for t in doc if t.text == '"' and t.i > 0 and doc[t.i - 1].text == ".")
    harry = next(t.i for t in doc if t.text == "Harry")
    assert harry in vocatives(doc[closing:], at)


def test_a_name_alone_after_a_paragraph_break_inside_the_parse_s_sentence(model) -> None:  # noqa: ANN001
    """The same in the book itself: the parse's sentence ran over the paragraph break ('..."\n\n"Harry!" exclaimed
    Hallward'), and the break's white space stood between the two closing and opening marks."""
    doc, at = parsed(model, '"I do not."\n\n"Harry!" exclaimed Hallward, frowning.')
    closing = next(t.i for t in doc if t.text == '"' and t.i > 0 and doc[t.i - 1].text == ".")
    harry = next(t.i for t in doc if t.text == "Harry")
    assert doc[closing + 1].is_space and harry in vocatives(doc[closing:], at)
