"""Family and social ties that change: "Jane, Elizabeth's sister" and later "Jane, Elizabeth's cousin"; a sister who
becomes a brother; a second father.

A tie is read as (holder, noun, other): Jane is the *sister* of Elizabeth. Nouns fall into classes with an inverse
(parent/child, aunt-uncle/niece-nephew, master/servant; sibling, spouse, cousin are their own), so "Mr. Bennet,
Jane's father" and "Jane, Mr. Bennet's daughter" are one tie seen from both ends. Between one pair the class must
stay the same, except where a tie grows (betrothed, then married); within a class the holder's gender must too. A
person has one father and one mother. Pronoun-resolved ties ("his sister") establish, but a change needs the new
sentence to name both.
"""
from __future__ import annotations

from collections.abc import Sequence

from core.continuity.model import Entities, Flag, State, make_flag
from core.kg.state_words import TIES

INVERSE = {"parent": "child", "child": "parent", "auncle": "nibling", "nibling": "auncle",
           "grandparent": "grandchild", "grandchild": "grandparent", "servant": "master", "master": "servant",
           "stepparent": "stepchild", "stepchild": "stepparent"}
GROWS = {("betrothed", "spouse")}    # ties that may follow one another between the same two people
NOT_STATED = frozenset({"negated", "hedge", "belief", "quote"})
RECURRING = 2                        # a new tie stated this often is the book's own


def _tie(key: str) -> tuple[str, str] | None:
    """(class, gender) of a tie noun; "-in-law" ties are their own classes."""
    base, _, law = key.partition("-in-law")
    if key == "spouse":
        return ("spouse", "")
    found = TIES.get(base)
    if found is None:
        return None
    cls, gender = found
    return (cls + ("-in-law" if key.endswith("-in-law") else ""), gender)


def _oriented(s: State, entities: Entities) -> tuple[tuple[str, str], str, str] | None:
    """((first entity, second entity), class of the first towards the second, the holder's gender if it is the
    first, else "") for a tie statement, the pair in a fixed order so both ends' statements meet."""
    tie = _tie(s.key)
    if tie is None:
        return None
    cls, gender = tie
    holder, other = entities.of_name(s.name), entities.of_name(s.value)
    if holder == other:
        return None
    if holder < other:
        return (holder, other), cls, gender
    base = cls.replace("-in-law", "")
    inverse = INVERSE.get(base, base) + ("-in-law" if cls.endswith("-in-law") else "")
    return (other, holder), inverse, ""


def check(states: Sequence[State], entities: Entities, draft: int | None) -> list[Flag]:
    """Between two people the tie stays what it was (or grows): each later statement against the first one."""
    # a tie said in dialogue ("my sister Phillips") establishes one; a change must be the narration's own
    ties = sorted((s for s in states if s.kind == "tie" and not s.cues & (NOT_STATED - {"quote"})),
                  key=lambda s: s.at)
    first: dict[tuple[str, str], tuple[State, str, str]] = {}
    flags: list[Flag] = []
    for s in ties:
        read = _oriented(s, entities)
        if read is None:
            continue
        pair, cls, gender = read
        if pair not in first:
            first[pair] = (s, cls, gender)
            continue
        prior, pcls, pgender = first[pair]
        if prior.sentence == s.sentence or (pcls, cls) in GROWS:
            continue
        if pcls == cls and not (gender and pgender and gender != pgender):
            continue
        if s.cues & {"pronoun", "quote"}:
            continue
        repeats = sum(1 for t in ties if t.name == s.name and t.value == s.value and t.key == s.key
                      and t.chapter != draft)
        if repeats > RECURRING:
            continue
        holder, other = entities.label[entities.of_name(s.name)], entities.label[entities.of_name(s.value)]
        flags.append(make_flag("tie", holder, s, prior, 0.8 * s.confidence,
                               f"{holder} is called {other}'s {s.key}; earlier: {prior.name}, "
                               f"{entities.label[entities.of_name(prior.value)]}'s {prior.key}"))
    return flags


def check_parents(states: Sequence[State], entities: Entities, draft: int | None) -> list[Flag]:
    """One father and one mother per person, across the work: "Mr. A, X's father" then "Mr. B, X's father"."""
    firsts: dict[tuple[str, str], State] = {}
    flags: list[Flag] = []
    for s in sorted((s for s in states if s.kind == "tie" and s.key in ("father", "mother")
                     and not s.cues & NOT_STATED), key=lambda s: s.at):
        child, parent = entities.of_name(s.value), entities.of_name(s.name)
        if child == parent:
            continue
        first = firsts.setdefault((child, s.key), s)
        if entities.of_name(first.name) == parent or "pronoun" in s.cues:
            continue
        repeats = sum(1 for t in states if t.kind == "tie" and t.key == s.key and t.name == s.name
                      and entities.of_name(t.value) == child and t.chapter != draft)
        if repeats <= RECURRING:
            who = entities.label[child]
            flags.append(make_flag("tie", who, s, first, 0.75 * s.confidence,
                                   f"{who}'s {s.key} was {entities.label[entities.of_name(first.name)]}"))
    return flags
