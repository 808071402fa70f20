"""Who is X? The sentences that say who someone is ("Spitz, the leader of the team", "Spitz was a ..."), under any
of the graph's names for them, and the one that first names them (core.qa.extract's answer to an identity question).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.summarize.quotes import only_calls


def other_names(name: str, index: Any) -> list[str]:
    """The name and the graph's other names for whom it names ("Johnny Wainwright": "John Wainwright", ...)."""
    found = index.find_in_question(name) if index is not None else {}
    return list(dict.fromkeys([name, *(n for pos in found for n in index.entities[pos].names if len(n) > 2)]))


def describes_pattern(names: Sequence[str]) -> re.Pattern[str]:
    """A name followed by an apposition or a copula: "Spitz, the leader", "Spitz was a ...", "Curly, who was a
    ...", "John Wainwright, our First Officer". A relative clause of another verb says what X did, not who X is
    ("poor Elizabeth, who had relied upon Justine's innocence")."""
    alternatives = "|".join(name_words_pattern(n) for n in names)
    return re.compile("(?:" + alternatives + r")\b(?:,\s*(?:a|an|the|his|her|their|our|my|your|one)\b|(?:,\s*who)?\s+"
                      r"(?:is|was|had been|became|were|are)\s+(?:a|an|the|his|her|their|our|my|one|not)\b)", re.I)


def name_words_pattern(name: str) -> str:
    """A pattern for the name's words in order ("the" aside), each run of spaces between them any white space."""
    words = [re.escape(w) for w in re.findall(r"[\w'\u2019.-]+", name) if w.lower() != "the"]
    return r"\b" + r"\s+".join(words)


def first_naming(pool: Sequence[Any], name: str, citations: Sequence[Any]) -> Any:
    """The cited sentence earliest in the book that names `name` (all its words, "the" aside), if any; one that
    only calls them by name ("I do not, Harry.", "Harry!") when no other does (it says nothing about them)."""
    named = re.compile(name_words_pattern(name) + r"\b", re.I)
    found = [s for s in pool if named.search(s.text)]
    told = [s for s in found if not only_calls(s.text, named)]
    return min(told or found, key=lambda s: (int(getattr(citations[s.citation], "chapter", 0)),
                                             int(getattr(citations[s.citation], "chunk", 0)), s.position), default=None)


INTRODUCED = ("Quoted where the book introduces {name} (chapter {chapter}): no cited sentence says who {name} is, "
              "and this one, which the graph holds as their introduction, does.")


def introduction(name: str, sentence: str, chapter: int, index: Any, passages: Sequence[Any]) -> tuple[int, int] | None:
    """For "Who is X?" when no cited sentence says who X is: (chapter, passage index) of the sentence that introduces
    X in the book's graph (its X-Ray card, as of the reader's place), when that sentence does say who X is ("John
    Wainwright, our First Officer, ..."), else None. `passages`: the work's passages (.chapter, .index, .text)."""
    if not sentence or not describes_pattern(other_names(name, index)).search(sentence):
        return None
    head = " ".join(sentence.split()[:8])
    for passage in passages:
        if passage.chapter == chapter and head in " ".join(passage.text.split()):
            return chapter, passage.index
    return chapter, 0
