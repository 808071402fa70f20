"""Where a quotation opens and closes across sentences, for what shows the book's sentences alone (an extractive
summary and the recap never show half a speech; an X-Ray card's introduction prefers a whole one), and whether
a sentence only calls someone by name (an introduction or a "Who is X?" answer prefers one telling of them).
Curly double quotes open and close; a straight double quote turns; single quotes are left alone, being apostrophes
as often."""
from __future__ import annotations

import re
from collections.abc import Sequence

from core.ingest.sentences import split_sentences
from core.nlp import clean_for_parsing

_PARAGRAPH = re.compile(r"\n\s*\n")


def open_after(sentence: str, inside: bool) -> bool:
    """Whether a quotation is still open after `sentence`, given whether one was open before it."""
    for ch in sentence:
        if ch == "“":
            inside = True
        elif ch == "”":
            inside = False
        elif ch == '"':
            inside = not inside
    return inside


def inside_before(sentences: Sequence[str], restart: bool = False) -> list[bool]:
    """For each of consecutive sentences (one paragraph, or a chapter where paragraphs are unknown), whether a
    quotation is open where it begins. With `restart` (a chapter's sentences, paragraphs unknown), a sentence that
    starts with a quotation mark starts a speech, so none is open before it: a speech over several paragraphs,
    reopened each time, cannot turn the count of straight marks."""
    out: list[bool] = []
    inside = False
    for sentence in sentences:
        if restart and sentence.lstrip()[:1] in ('"', "“"):
            inside = False
        out.append(inside)
        inside = open_after(sentence, inside)
    return out


def cut_out(sentences: Sequence[str]) -> list[bool]:
    """For each of one paragraph's sentences, whether it is cut out of a quotation: begun inside one or leaving one
    open."""
    return [before or open_after(s, before) for s, before in zip(sentences, inside_before(sentences))]


def begins_inside(sentence: str) -> bool:
    """Whether a sentence, read alone, begins inside a quotation: its first quotation mark closes one ('Your eyes,"
    she said', 'I was hunting.”'). Local, so a chapter whose marks do not pair up (a speech over several paragraphs
    reopened with straight quotes) cannot mislead it; a sentence without marks cannot tell and is taken as whole."""
    for i, ch in enumerate(sentence):
        if ch == "”":
            return True
        if ch == "“":
            return False
        if ch == '"':
            return i > 0 and not sentence[i - 1].isspace() and sentence[i - 1] not in "([{—–-"
    return False


def quoted_sentences(text: str) -> list[tuple[str, bool]]:
    """A chapter's sentences (as core.summarize.extractive.chapter_sentences cuts them), each with whether it is cut
    out of a quotation: begun inside one ('Your eyes,” she said') or leaving one open ('She said: “He's mine.'). A
    quotation is followed within its paragraph only (a speech over several paragraphs reopens each one). A sentence
    that ends in a colon ('his voice was smooth as silk when he said:') is cut from the speech it introduces."""
    out: list[tuple[str, bool]] = []
    for paragraph in _PARAGRAPH.split(clean_for_parsing(text)):
        sentences = [s for s in split_sentences(paragraph) if s.strip()]
        out.extend((s, cut or s.rstrip().endswith(":")) for s, cut in zip(sentences, cut_out(sentences)))
    return out


_QUOTE_MARKS = "\"“”‘’'"
_SPEECH_TAG = re.compile(r"\b(?:said|cried|asked|answered|replied|exclaimed|murmured|muttered)\s*$")
_LISTED = re.compile(r",\s*(?:(?:and|or)\b|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*\s*(?:,|and\b))")


def only_calls(sentence: str, names: re.Pattern[str]) -> bool:
    """Whether every mention of the `names` in `sentence` calls someone in speech: at the start, or after a comma, a
    quotation mark or a sentence's end (or "my dear"), and before a comma, a full stop, "!" or "?" ("I do not, Harry.",
    '"Harry!" exclaimed Hallward', "Oh! Harry, I am vexed"). "Harry and Basil", "Harry, Basil, and Dorian" and
    '"Yes," said Harry.' name them otherwise; so does a sentence that does not name them at all (False)."""
    found = list(names.finditer(sentence))

    def calls(m: re.Match[str]) -> bool:
        before = sentence[:m.start()].rstrip()
        after = sentence[m.end():].lstrip()
        opened = not before or before[-1] in _QUOTE_MARKS + ",!?.…" or before.lower().endswith("dear")
        return (opened and bool(after) and after[0] in ",.!?" and not _LISTED.match(after)
                and not _SPEECH_TAG.search(before))
    return bool(found) and all(calls(m) for m in found)
