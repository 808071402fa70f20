"""The five filter rules of Andrus et al. (2022) for Open IE triples, with spaCy POS tags standing in for WordNet.

A fact [head, relation, tail] is dropped when
  1. tail is identical to head                         ([you, just sit, you])
  2. head contains no noun                             ([screamed, howling like, wolf])
  3. the first word of tail is the last word of relation ([i, enjoy playing, playing soccer])
  4. head or tail starts with a pronoun or conjunction ([who, lurking, behind a wire], [but, should, be careful])
  5. no verb anywhere in the fact                      ([breakfast, lunch, dinner])

Each phrase is a sequence of (word, universal POS) pairs, so the rules are testable without a parser.

Paper: ../shared/seeds/andrus2022_dynamic_document_kg.txt (the five filter rules).
"""
from __future__ import annotations

from collections.abc import Sequence

Phrase = Sequence[tuple[str, str]]

NOUN_TAGS = frozenset({"NOUN", "PROPN"})
VERB_TAGS = frozenset({"VERB", "AUX"})
PRONOUN_OR_CONJUNCTION = frozenset({"PRON", "CCONJ", "SCONJ"})
# Words a tagger sometimes labels otherwise but that are pronouns or conjunctions in the paper's sense.
PRONOUN_WORDS = frozenset({"i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us", "them", "who",
                           "whom", "whose", "which", "that", "this", "these", "those", "what", "whoever", "one",
                           "my", "your", "his", "its", "our", "their", "myself", "yourself", "himself", "herself",
                           "itself", "ourselves", "themselves", "anyone", "someone", "everyone", "nobody", "somebody",
                           "everybody", "anything", "something", "everything", "nothing"})
CONJUNCTION_WORDS = frozenset({"and", "but", "or", "nor", "yet", "so", "for", "because", "although", "though",
                               "while", "if", "unless", "since", "whether", "when", "as"})

RULE_NAMES = {1: "tail_equals_head", 2: "head_without_noun", 3: "tail_repeats_relation",
              4: "pronoun_or_conjunction_start", 5: "no_verb"}


def _words(phrase: Phrase) -> list[str]:
    return [w.lower() for w, _ in phrase if w.strip()]


def tail_equals_head(head: Phrase, relation: Phrase, tail: Phrase) -> bool:
    return bool(_words(tail)) and _words(tail) == _words(head)


def head_without_noun(head: Phrase, relation: Phrase, tail: Phrase) -> bool:
    return not any(pos in NOUN_TAGS for _, pos in head)


def tail_repeats_relation(head: Phrase, relation: Phrase, tail: Phrase) -> bool:
    rel, tl = _words(relation), _words(tail)
    return bool(rel and tl) and tl[0] == rel[-1]


def _starts_with_pronoun_or_conjunction(phrase: Phrase) -> bool:
    if not phrase:
        return False
    word, pos = phrase[0]
    return pos in PRONOUN_OR_CONJUNCTION or word.lower() in PRONOUN_WORDS or (
        pos not in NOUN_TAGS and word.lower() in CONJUNCTION_WORDS)


def pronoun_or_conjunction_start(head: Phrase, relation: Phrase, tail: Phrase) -> bool:
    return _starts_with_pronoun_or_conjunction(head) or _starts_with_pronoun_or_conjunction(tail)


def no_verb(head: Phrase, relation: Phrase, tail: Phrase) -> bool:
    return not any(pos in VERB_TAGS for _, pos in (*head, *relation, *tail))


RULES = (tail_equals_head, head_without_noun, tail_repeats_relation, pronoun_or_conjunction_start, no_verb)


def violated_rule(head: Phrase, relation: Phrase, tail: Phrase) -> int | None:
    """The number (1-5) of the first rule the fact breaks, or None when it passes all five."""
    for number, rule in enumerate(RULES, start=1):
        if rule(head, relation, tail):
            return number
    return None


def passes(head: Phrase, relation: Phrase, tail: Phrase) -> bool:
    return violated_rule(head, relation, tail) is None
