"""The extractive answer (core.qa.extract) on hand-made passages: the answer type the question asks for, the span of
that type (a character for who, not a place), no answer when the passages hold none (said plainly), and the names
a question or an answer states that the cited passages lack (core.qa.names)."""
from __future__ import annotations

import numpy as np
import pytest

from core.qa.extract import NO_NAME, NO_PASSAGES, NOT_FOUND, extract_answer, question_type
from core.qa.relevance import speaks_to, topic_words
from core.qa.names import answer_names, missing_names, missing_words, question_names
from core.qa.pipeline import Citation

PASSAGES = [
    "The sled left Dawson at dawn. Buck pulled hard through the snow beside Spitz.",
    "One night Manuel took Buck through the orchard to the flag station at College Park. Manuel sold him to a "
    "stranger for a hundred dollars. San Francisco was the stranger's town.",
    "The weather in the Klondike was bitterly cold that winter, and the river froze in November.",
]


class WordEmbed:
    """A deterministic stand-in for MiniLM: bag-of-words vectors (hashed), unit length, so meaning follows words."""

    def __call__(self, texts):  # noqa: ANN001, ANN204
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace("?", " ").replace(".", " ").split():
                out[i, sum(map(ord, w)) % 64] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


def _citations(texts: list[str]) -> list[Citation]:
    return [Citation(i + 1, 0, t, i, "passage", 1.0 - 0.1 * i) for i, t in enumerate(texts)]


@pytest.mark.parametrize("question, kind", [
    ("Who sold Buck?", "person"), ("Where was Buck sold?", "place"), ("When did the river freeze?", "time"),
    ("How many dollars did the stranger pay?", "number"), ("Why did Manuel sell Buck?", "reason"),
    ("How did Buck pull the sled?", "manner"), ("Is Buck a dog?", "yesno"),
    ("Summarize how Buck changes over the story.", "summary"), ("Which city was the stranger's town?", "place"),
    ("What did Buck do when Spitz attacked?", "thing"),  # "when" inside the question is no time question
    ("In the account of the harbour, which individual married Anna?", "person"),
    ("Imagine you are Buck. Write a diary entry about the sled.", "creative"),
    ("Rewrite the theft of Buck as a newspaper story.", "creative"),
    # a name question: people's kinds of name, or the noun after "of" (LF-QUOREF's usual wording)
    ("What is the first name of the person who stole Buck?", "person"),
    ("What's the last name of the girl who marries Jim?", "person"),
    ("What is the name of the wife of the captain?", "person"),
    ("What was the name of the town where Buck lived?", "place"),
    ("What is the name of the band that recorded the album?", "name"),
    ("What are the names of the two races the Time Traveller finds?", "name"),
    # who someone is (a description), not another person's name
    ("Who is Spitz?", "identity"), ("who was Mr. Utterson?", "identity"),
    ("Who is the Ghost of Christmas Past?", "identity"), ("Who is Buck's master?", "person"),
    ("Who is the narrator?", "person")])
def test_the_answer_type_comes_from_the_question_word(question: str, kind: str) -> None:
    assert question_type(question) == kind


def test_a_who_question_is_answered_by_a_character_not_a_place() -> None:
    found = extract_answer("Who sold Buck to a stranger?", _citations(PASSAGES), embed=WordEmbed())
    assert found.span == "Manuel"                       # a person, although College Park and San Francisco are near
    assert "Manuel sold him to a stranger" in found.answer
    assert found.quotes[0].chapter == 2 and found.chapters == [2]


def test_a_where_question_is_answered_by_a_place() -> None:
    found = extract_answer("Where did Manuel take Buck one night?", _citations(PASSAGES), embed=WordEmbed())
    assert found.span == "College Park" and found.question_type == "place"


def test_no_answer_when_the_passages_hold_none_and_it_says_so() -> None:
    found = extract_answer("What colour was the queen's carriage at the coronation?", _citations(PASSAGES),
                           embed=WordEmbed())
    assert found.answer is None and found.reason == NOT_FOUND and not found.quotes


def test_a_question_about_someone_the_passages_never_name_gets_no_answer() -> None:
    found = extract_answer("How does John Thornton die?", _citations(PASSAGES), embed=WordEmbed())
    assert found.answer is None and found.missing == ("John Thornton",)
    assert found.reason == "The chapters you have read do not mention John Thornton."


def test_a_name_question_is_answered_by_a_name_the_question_does_not_give() -> None:
    found = extract_answer("What is the name of the flag station where Manuel took Buck?", _citations(PASSAGES),
                           embed=WordEmbed())
    assert found.question_type == "name" and found.span == "College Park"


def test_a_name_question_gets_no_answer_where_the_passages_name_nothing_new() -> None:
    """A sentence that only repeats the question's own names is no answer to "what is the name of ..." (the app
    showed "The Time Traveller vanished three years ago." for the two races' names)."""
    passages = ["The Time Traveller vanished three years ago. He never came back to tell us of the two races."]
    found = extract_answer("What are the names of the two races the Time Traveller finds?", _citations(passages),
                           embed=WordEmbed())
    assert found.answer is None and found.reason == NO_NAME and not found.quotes


def test_no_citations_no_answer() -> None:
    assert extract_answer("Who sold Buck?", [], embed=WordEmbed()).reason == NO_PASSAGES


def test_a_whole_story_question_gets_several_sentences_in_reading_order() -> None:
    found = extract_answer("Summarize how Buck and Manuel and the stranger and the sled are described.",
                           _citations(PASSAGES), embed=WordEmbed())
    positions = [(q.citation, q.text) for q in found.quotes]
    assert len(found.quotes) >= 2 and positions == sorted(positions, key=lambda p: p[0])
    assert found.answer == " ".join(q.text for q in found.quotes)


def test_names_in_questions_and_answers() -> None:
    assert question_names("In 'An Unsentimental Journey through Cornwall', who married Princess Frederica of "
                          "Hanover?") == ["Frederica", "Hanover"]  # a quoted title and honorifics are no names
    assert answer_names("Jacob Marley came through the door. He saw Mr. Scrooge.") == ["Jacob Marley", "Scrooge"]
    assert answer_names("The ghost came. Yesterday it rained.") == []  # sentence-initial words are no names alone
    assert missing_names(["John Thornton", "Buck"], PASSAGES) == ["John Thornton"]
    assert missing_words(["Jacob Marley"], ["Marley was dead."]) == ["Jacob"]
    assert missing_words(["SCROOGE"], ["scrooge signed it"]) == []  # case-insensitive on the cited side


THORNTON = ["Later on, in the fall of the year, he saved John Thornton's life in the rapids. Hans and Pete ran along "
            "the bank with the rope.",
            "It was Manuel's doing that Buck left the valley, though nobody at the house knew it."]


def test_the_span_is_never_the_person_the_question_names_nor_a_possessive_s() -> None:
    found = extract_answer("Who saved John Thornton?", _citations(THORNTON), embed=WordEmbed())
    assert found.span not in ("John Thornton", "John Thornton's", "Thornton's")   # "John Thornton's" slipped through
    found = extract_answer("Who made Buck leave the valley?", _citations(THORNTON), embed=WordEmbed())
    assert found.span == "Manuel"                                                  # the owner's name, without "'s"


def test_another_name_of_the_asked_person_is_no_answer_either() -> None:
    from types import SimpleNamespace

    from core.retrieval.entities import EntityIndex, EntityRef
    texts = ["Frisco was loud that night. Manuel led Buck to the station at College Park."]
    index = EntityIndex.build(texts, [EntityRef(1, "San Francisco", "location", ("San Francisco", "Frisco")),
                                      EntityRef(2, "College Park", "location", ("College Park",)),
                                      EntityRef(3, "Manuel", "character", ("Manuel",))])
    view = SimpleNamespace(corpus=SimpleNamespace(entities=index), n_passages=0, facts=())
    found = extract_answer("Where near San Francisco did Manuel lead Buck?", _citations(texts), embed=WordEmbed(),
                           view=view)  # type: ignore[arg-type]
    assert found.span == "College Park"                # not Frisco: the question's own San Francisco


def test_who_is_someone_is_answered_by_a_sentence_that_says_who_they_are() -> None:
    texts = ["Perrault shouted at the dogs and Buck ran. Perrault was in a hurry with the despatches.",
             "The new dogs came in the afternoon. Perrault, a courier for the Canadian government, bought Buck."]
    found = extract_answer("Who is Perrault?", _citations(texts), embed=WordEmbed())
    assert found.question_type == "identity" and found.span is None   # no other person's name as the answer
    assert found.answer.startswith("Perrault, a courier for the Canadian government")


def test_who_is_someone_no_sentence_describes_is_answered_where_they_are_first_named_and_says_so() -> None:
    """Seen on SQuALITY's The Happy Castaway: "Who is Ann Clotilde?" answered "Ann Clotilde was ambling toward him"
    (a progressive "was", not a description) as though it said who she is."""
    texts = ["Jonathan looked up. Ann Clotilde was ambling toward him with a spear on her shoulder.",
             "The girl smiled. She told him her name was Ann Clotilde and that she had been out hunting."]
    found = extract_answer("Who is Ann Clotilde?", list(reversed(_citations(texts))), embed=WordEmbed())
    assert found.question_type == "identity" and found.span is None
    assert found.answer.startswith("Ann Clotilde was ambling") and found.quotes[0].chapter == 1   # the first to
    # name her, though chapter 2's passage was cited first
    assert found.note and "says who Ann Clotilde is" in found.note and found.about == "Ann Clotilde"
    described = extract_answer("Who is Perrault?", _citations(["Perrault, a courier, bought Buck for the team."]),
                               embed=WordEmbed())
    assert described.about == "Perrault" and described.note is None      # the page adds the graph's card for both
    assert extract_answer("Who sold Buck?", _citations(["Manuel sold Buck to a stranger."]),
                          embed=WordEmbed()).about is None


def test_a_name_in_a_sentence_about_something_else_is_no_answer() -> None:
    """Seen on The Legend of Sleepy Hollow: "What is the name of Ichabod's horse?" answered in bold "Brom" from a
    sentence about Brom's dog. A name of the asked type counts only where its sentence mentions what the question
    is about; the closest sentence is kept as a quote, and the reason says what it leaves out."""
    passages = ["Brom took every chance to mock Ichabod, and taught his dog to whine in the schoolhouse.",
                "Ichabod rode to the party on a borrowed plough-horse called Gunpowder."]
    wrong = extract_answer("What is the name of Ichabod's horse?", _citations(passages[:1]), embed=WordEmbed())
    assert wrong.answer is None and wrong.span is None and wrong.unstated == ("horse",)
    assert "does not mention “horse”" in (wrong.reason or "") and wrong.quotes
    right = extract_answer("What is the name of Ichabod's horse?", _citations(passages), embed=WordEmbed())
    assert right.span == "Gunpowder" and right.unstated == ()
    # a question about nothing beyond its names and the kind of answer is not held to it
    assert extract_answer("Who sold Buck?", _citations(PASSAGES), embed=WordEmbed()).span == "Manuel"


def test_a_sentence_that_names_nothing_asked_for_nor_what_was_asked_is_no_answer() -> None:
    """Seen on The Legend of Sleepy Hollow: "Where does Ichabod teach?" answered "Ichabod endeavored to dodge the
    horrible missile, but too late." (no place, nothing about teaching). A who / where / when question whose best
    sentence names nothing of the asked type is answered only by a sentence that mentions what was asked."""
    passages = ["Ichabod endeavored to dodge the horrible missile where Ichabod stood, but too late.",
                "The night was dark and Ichabod rode on."]
    wrong = extract_answer("Where does Ichabod teach?", _citations(passages), embed=WordEmbed())
    assert wrong.answer is None and wrong.unstated == ("teach",) and wrong.quotes
    assert wrong.reason == ("The sentence of the passages closest to your question names no place and does not "
                            "mention “teach”, so it is no answer to it.")
    # no named place, but the sentence says what was asked: it stays the answer (an unnamed place is one too)
    right = extract_answer("Where did Buck bury the bone?", _citations(["Buck buried the bone under the old porch."]),
                           embed=WordEmbed())
    assert right.answer is not None and "under the old porch" in right.answer and right.span is None


def test_the_topic_of_a_question_is_what_it_asks_about_beyond_names_and_answer_kinds() -> None:
    assert [w for _, w in topic_words("What is the name of Ichabod's horse?", ["Ichabod"])] == ["horse"]
    assert [w for _, w in topic_words("In what year did Buck arrive at Dawson?", ["Buck", "Dawson"])] == ["arrive"]
    assert topic_words("Where is Regent's Park located?", ["Regent's Park"]) == []
    assert speaks_to("Who stole Buck?", ["Manuel had stolen Buck from the garden."], ["Buck"])[0]   # stole ~ stolen
    assert not speaks_to("Whom did Ichabod marry?", ["Brom laughed at Ichabod."], ["Ichabod"])[0]
    assert speaks_to("Who is Buck?", ["Anything at all."], ["Buck"]) == (True, ())


def test_end_up_frames_the_question_and_is_not_its_topic() -> None:
    """Seen on The Happy Castaway: "How did Jonathan end up on the asteroid?" answered "Jonathan's hair stood on end."
    (the question's "end" matched). "End up" / "wind up" say how someone came to be somewhere, nothing more."""
    from core.qa.relevance import question_focus
    texts = ["Jonathan's hair stood on end. The girls laughed at him.",
             "His freighter had crashed on the asteroid, and Jonathan was thrown clear of the wreck."]
    found = extract_answer("How did Jonathan end up on the asteroid?", _citations(texts), embed=WordEmbed())
    assert found.answer and "hair" not in found.answer and "asteroid" in found.answer
    assert [w for _, w in question_focus("How did Jonathan end up on the asteroid?")] == ["Jonathan", "asteroid"]
    assert [w for _, w in question_focus("Where did the ends of the rope wind?")] == ["ends", "rope", "wind"]


def test_at_the_end_of_the_story_says_when_not_what() -> None:
    from core.qa.relevance import question_focus
    assert [w for _, w in question_focus("Why did Jonathan stay on the asteroid at the end?")] == [
        "Jonathan", "stay", "asteroid"]
    assert [w for _, w in question_focus("What does Ann do at the end of the story?")] == ["Ann"]
    assert [w for _, w in question_focus("What happens at the end of the race?")] == ["happens", "race"]



def test_how_long_and_how_old_are_answered_by_a_duration_or_an_age() -> None:
    """Seen on The Happy Castaway: "How long have the girls been on the asteroid?" found no number, since spaCy
    labels "three years" a date; a duration or an age is what "how long" / "how old" asks for."""
    texts = ["Twenty-seven girls lived on the asteroid. They had been on the asteroid for three years.",
             "Beth was sixteen years old when the girls came to the asteroid."]
    found = extract_answer("How long have the girls been on the asteroid?", _citations(texts), embed=WordEmbed())
    assert found.span == "three years", found
    assert extract_answer("How old was Beth?", _citations(texts), embed=WordEmbed()).span == "sixteen years old"
