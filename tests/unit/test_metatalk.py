"""Assistant talk in generated fiction (core.metatalk): cut before the story, said when it is the whole reply, never
found in what novels say."""
from __future__ import annotations

import pytest

from core.metatalk import MOSTLY, check_meta, is_meta, without_talk

STORY = ("As they continued their journey, the Gryphon pointed out the sea. The Mock Turtle sighed, and wiped his "
         "eyes with his flapper, and said nothing for a minute or two.")


@pytest.mark.parametrize("sentence", [
    "Here's a revised version of the continuation:",
    "This continuation is perfectly accurate.",
    "I added a sentence of consequence to the previous paragraph.",
    "Sure! Here is the rewritten passage.",
    "I'm glad to continue a piece of fiction with a moment of humor.",
    "In this story, you can see how Scrooge changes.",
    "You continue Scrooge's behavior with Bob's depression.",
    "I hope this helps!",
    "The writer is attempting to fill in the blank.",
    "Continue this text:",
    "As the last paragraph of the story, I added a detail about Jo.",
    "The conclusion of the text is that Clerval was an active traveller.",
    "The word, as a literary device, was not invented.",
])
def test_assistant_talk_is_found(sentence: str) -> None:
    assert is_meta(sentence)


@pytest.mark.parametrize("sentence", [
    "Walton, in continuation.",                                 # Frankenstein's heading
    "He doubled it over, and read the following paragraph:",   # Holmes reads the papers
    "\"I suppose, Watson,\" said he, \"that you imagine that I have added to my reputation.\"",
    "\"Except Poirot,\" I added, with belated recognition.",
    "Amy rather regretted that last sentence.",
    "\"Here is the letter,\" said she.",
    "If you continue in this way, sir, you will ruin us all.",
    "I wrote to him at once, and had his answer the next day.",
    "The passage outside was empty.",
    "The text was from Isaiah, and the sermon was long.",
    "\"Continue,\" said the King.",
])
def test_what_novels_say_is_not_assistant_talk(sentence: str) -> None:
    assert not is_meta(sentence)


def test_a_preamble_is_taken_off_and_said() -> None:
    checked = check_meta("Here's a revised version of the continuation:\n\n" + STORY)
    assert checked.text == STORY and not checked.mostly_meta
    assert checked.meta == ("Here's a revised version of the continuation:",)
    assert "taken off" in checked.note and "revised version" in checked.note


def test_a_reply_that_is_all_talk_is_said_not_to_be_a_continuation() -> None:
    reply = ("In another version of the text, I added a sentence that completely stays consistent with the previous "
             "one. Here is the continuation with no additional words. This continuation is only based on the "
             "information given in the previous paragraph.")
    checked = check_meta(reply)
    assert checked.mostly_meta and checked.text == reply and checked.note.startswith("Not a continuation")


def test_talk_among_the_story_is_said_when_it_is_much_of_it() -> None:
    talk = "I rewrote the opening to make it more polished."
    checked = check_meta(STORY + " " + talk)
    share = len(talk.split()) / len((STORY + " " + talk).split())
    assert checked.mostly_meta == (share >= MOSTLY) and checked.text == STORY + " " + talk


def test_a_story_without_talk_is_left_alone() -> None:
    assert check_meta(STORY).note == "" and without_talk(STORY) == (STORY, [], False)


def test_without_talk_keeps_the_start_when_asked() -> None:
    text = "Here is the continuation:\n\n" + STORY
    assert without_talk(text)[0] == STORY
    kept, notes, talk_only = without_talk(text, keep_start=True)
    assert kept == text and len(notes) == 1 and not talk_only
