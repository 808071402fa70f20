"""Who / where answers from the book's graph: the other end of a fact that joins the question's character to someone
(or somewhere) by what the question asks about.

"Who discovered the wounded Cousin Cæsar?" — the cited passages hold "...the Indian applied herbs to the wound of
Cousin Cæsar...", and the graph has the fact (Indian, applied to wound of, Cousin Cæsar): its other end is the answer.
A text reader must find the name in the sentence's words; the graph also knows who "he" and "she" are (its
coreference), so "his marrying me" can name Mr. Darcy.

A fact answers when:
  - one end is an entity the question names and the other is an entity of the asked type (a person: a character or
    a group; a place: a location), not named by the question;
  - its relation states one of the question's topic words (core.qa.relevance: its content words beyond the names
    and the words that say what kind of answer is wanted), matched by stem or a shared start;
  - the relation is neither negated ("did not marry") nor unreal: a wish, an intention, a possibility ("wanted to
    marry", "would marry", "tried to find");
  - its sentence lies in one of the cited passages (the reader's place and the retrieval decide what may be quoted;
    on GraphRAG-Bench's dev half, facts from anywhere in the book were right 6 times in 12, those of the cited
    passages 6 in 7);
  - one other end has more such facts than any other (a tie answers nothing).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.qa.corpus import CorpusView, FactRecord
from core.qa.names import question_names
from core.qa.relevance import states, topic_words
from core.qa.words import content_words

WANTED_TYPES: dict[str, frozenset[str]] = {"person": frozenset({"character", "organization"}),
                                           "place": frozenset({"location"})}
NEGATED = re.compile(r"\b(?:not|never|no longer)\b|n't\b", re.I)
UNREAL = re.compile(r"\b(?:wish|wishes|wished|wishing|want|wants|wanted|wanting|hope|hopes|hoped|hoping|intend|"
                    r"intends|intended|intending|mean|meant|would|could|should|might|may|must|shall|try|tries|"
                    r"tried|trying|refuse|refused|refuses|attempt|attempted|plan|planned|planning)\b", re.I)


@dataclass(frozen=True)
class FactAnswer:
    name: str             # the answer: the other end's label in the graph
    written: str          # the other end as the sentence writes it ("he", "the old man", "Mr. Darcy")
    fact: FactRecord      # the fact quoted (the first, in reading order, of those that agree)
    citation: int         # the cited passage its sentence lies in
    agreeing: int         # how many facts name the same answer


def fact_answer(question: str, kind: str, citations: Sequence[Any], view: CorpusView | None) -> FactAnswer | None:
    """The graph's answer to a who / where question from the cited passages' facts, or None (module docstring)."""
    if kind not in WANTED_TYPES or view is None or view.corpus.entities is None:
        return None
    index = view.corpus.entities
    asked = set(index.find_in_question(question))
    stems = [stem for stem, _ in topic_words(question, question_names(question, index))]
    if not asked or not stems:
        return None
    cited = {(int(getattr(c, "chapter", 0)), int(getattr(c, "chunk", 0))): i for i, c in enumerate(citations)}
    votes: Counter[int] = Counter()
    first: dict[int, tuple[FactRecord, int]] = {}
    for fact in view.facts:
        where = cited.get((fact.chapter, fact.chunk_index))
        other = _other_end(fact, asked)
        if where is None or other is None or index.entities[other].type not in WANTED_TYPES[kind]:
            continue
        if NEGATED.search(fact.relation) or UNREAL.search(fact.relation):
            continue
        relation = {stem for stem, _ in content_words(fact.relation)}
        if not any(states(stem, relation) for stem in stems):
            continue
        votes[other] += 1
        first.setdefault(other, (fact, where))
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    best, count = ranked[0]
    fact, where = first[best]
    written = fact.subject if fact.subject_entity == best else fact.object
    return FactAnswer(index.entities[best].label, written, fact, where, count)


def _other_end(fact: FactRecord, asked: set[int]) -> int | None:
    """The end of `fact` the question does not name, when the other end is one it names."""
    ends = (fact.subject_entity, fact.object_entity)
    if ends[0] is None or ends[1] is None or ends[0] == ends[1]:
        return None
    if ends[0] in asked and ends[1] not in asked:
        return ends[1]
    if ends[1] in asked and ends[0] not in asked:
        return ends[0]
    return None
