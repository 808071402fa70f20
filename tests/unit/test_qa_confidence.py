"""core.qa.confidence: the reader's sentence is called the answer only when it states what was asked (issue 37).

Seen on an unseen story (QuALITY's "Captain Chaos", through the CLI): "Why did the Skipper surrender?" answered "The
skipper's color subsided.", "How did Ninon remain so youthful into her 50s on Earth?" answered "Ninon knew how.",
each shown as the answer with its chapter and a passing check."""
from __future__ import annotations

import pytest

from core.qa.confidence import answers, topic_share


@pytest.mark.parametrize(("question", "sentence"), [
    ("Why did the Skipper surrender?", "The skipper's color subsided."),                  # the event is not stated
    ("Why did Chapman feel embarrassed?", "He stopped, feeling embarrassed."),             # stated, with no reason
    ("Why did Robert want to go to space?", "Robert did not offer to help her into the car."),
])
def test_a_why_question_is_not_answered_by_a_sentence_without_the_event_and_a_reason(question: str,
                                                                                      sentence: str) -> None:
    assert not answers(question, "reason", sentence)


@pytest.mark.parametrize("sentence", [
    "The captain surrendered the ship because he would not sacrifice brave men in a useless cause.",
    "The captain surrendered the ship, for he could not let his men die.",
    "The captain surrendered his ship so that his crew would live.",
])
def test_a_why_question_is_answered_by_the_event_with_its_reason(sentence: str) -> None:
    assert answers("Why did the captain surrender the ship?", "reason", sentence)


def test_how_what_and_yes_or_no_need_most_of_the_question_s_topic_words() -> None:
    assert not answers("How did Ninon remain so youthful into her 50s on Earth?", "manner", "Ninon knew how.",
                       names=["Ninon", "Earth"])
    assert not answers("Is there a romantic connection between Ninon and Robert?", "yesno",
                       'Ninon said, "But that\'s three hours, Robert."', names=["Ninon", "Robert"])
    assert answers("How did Buck escape the trap?", "manner", "Buck escaped the trap by gnawing the rope.",
                   names=["Buck"])
    # irregular forms count as the word asked ("wore" for "wear")
    assert answers("What did Marley's ghost wear?", "thing", "Marley's ghost wore the chain he forged in life.",
                   names=["Marley"], bases={"wore": "wear"})


def test_a_question_about_nothing_but_its_names_is_never_answered_by_a_sentence_naming_them() -> None:
    assert topic_share("What did Syme do?", "Syme looked up at the Earth.", ["Syme"]) == (0.0, 0)
    assert not answers("What did Syme do?", "thing", "Syme looked up at the Earth.", names=["Syme"])


def test_a_name_question_needs_the_typed_name_and_who_is_x_a_sentence_that_says_who() -> None:
    assert answers("Who stole Buck?", "person", "Manuel stole Buck.", span="Manuel")
    assert not answers("Who stole Buck?", "person", "Buck was stolen.", span=None)
    assert answers("Who is Spitz?", "identity", "Spitz, the leader of the team, snarled.", described=True)
    assert not answers("Who is Slops?", "identity", "Our new Slops.", described=False)


def test_whole_story_questions_get_a_selection_and_graph_facts_are_answers() -> None:
    assert not answers("Summarize how Buck changes over the novel.", "summary", "Buck grew wild.")
    assert not answers("Rewrite chapter 1 as a diary entry.", "creative", "Buck did not read the newspapers.")
    assert answers("Whom did Anna Grey marry?", "person", "In the spring he married her.", from_fact=True)
