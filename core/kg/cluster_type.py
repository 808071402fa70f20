"""The type of a resolved entity (core.kg.resolve): the chapters' votes for each of its names, with what the names'
shapes say weighing in. A place by its shape ("Lake Bennett", "Santa Clara Valley") or a celestial body votes
location and a group's or a publication's shape ("the Army", "Galaxy Magazine", "Earthmen") its kind, each at twice
its mentions; a name starting with a given name ("Lydia Bennet"; alone, where a chapter calls it a person) votes a
person at its mentions ("Victoria", a state to every chapter, stays a place). Not where the name is a
person's surname: "Church" beside "Mr. Church" in one entity (whose mentions count as a person's: "Stuart" beside
"Colonel Stuart", however the NER model labelled it), or a two-word name whose last word the book writes after an
honorific ("Asaph Hall" where the book has "Mr. Hall"; not "Netherfield Hall"), which, starting with a given name
(of the long list, given_names.is_first_name) or a name the book's chapters call a person ("Angeline"), votes a
person at twice its mentions: the NER model calls "Angeline Hall" a building. So does a given name alone that the
book writes before a surname in a name its chapters call a person ("Marion" beside "Marion Cullen": "in Marion" made
her a town). An entity whose every name is a place by its shape or the start of one ("Kynance" beside "Kynance
Cove") is that place, whatever a chapter's verbs said of the short form."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from core.kg.coref_words import is_celestial_body, is_place_name, shape_type
from core.kg.given_names import is_first_name, is_given_name
from core.kg.names import NameParts, parse_name
from core.kg.types import NODE_TYPES

TYPE_PRIORITY = {t: i for i, t in enumerate(NODE_TYPES)}


def pick_type(votes: Counter[str]) -> str:
    """The type with most votes; ties go to the earlier of NODE_TYPES; no votes make a character."""
    if not votes:
        return "character"
    return min(votes, key=lambda t: (-votes[t], TYPE_PRIORITY.get(t, 99), t))


def _titled(name: str, parts: NameParts) -> bool:
    """A person's title before the name ("Mr. Hall", "Colonel Stuart"; not "St. Ives" nor a place's shape)."""
    return bool(parts.core) and parts.honorific not in (None, "St.") and not is_place_name(name)


def titled_surnames(names: Iterable[str]) -> frozenset[str]:
    """The last words the book writes after a person's honorific ("Hall" of "Mr. Hall", "Professor Hall")."""
    return frozenset(parts.core[-1] for name in names if _titled(name, parts := parse_name(name)))


def _a_person(votes: Counter[str] | None) -> bool:
    """Whether the chapters' votes for a name, if it has any, call it a person."""
    if not votes:
        return False
    return pick_type(votes) == "character"


def first_names_of_people(type_votes: Mapping[str, Counter[str]]) -> frozenset[str]:
    """The first words of the book's two-word names that its chapters call a person and that start with a given name
    of the long list ("Marion" of "Marion Cullen")."""
    out = set()
    for name, votes in type_votes.items():
        core = parse_name(name).core
        if len(core) == 2 and is_first_name(core[0]) and _a_person(votes):
            out.add(core[0])
    return frozenset(out)


def cluster_type(members: Iterable[str], type_votes: Mapping[str, Counter[str]], totals: Mapping[str, int],
                 family_names: frozenset[str], first_names: frozenset[str]) -> str:
    """The type of the entity holding `members` (module docstring); `type_votes`: each name's chapter votes,
    `totals`: its mentions, `family_names`: titled_surnames of the whole book, `first_names`: its
    first_names_of_people."""
    parsed = {n: parse_name(n) for n in members}
    votes: Counter[str] = Counter()
    titled = {parts.core for n, parts in parsed.items() if _titled(n, parts)}
    shaped: list[tuple[str, ...]] = []
    for n, parts in parsed.items():
        votes.update(type_votes.get(n, {}))
        core = parts.core
        if core in titled and parts.honorific is None:
            votes["character"] += totals[n]   # "Stuart" beside "Colonel Stuart": a person's name, however labelled
        surname = core in titled or (len(core) == 2 and core[-1] in family_names)
        if not surname and (is_place_name(n) or is_celestial_body(n)):
            votes["location"] += 2 * totals[n]
            shaped.append(core)
        elif not surname and (kind := shape_type(n)):
            votes[kind] += 2 * totals[n]
        elif len(core) == 1 and parts.honorific is None and core[0] in first_names:
            votes["character"] += 2 * totals[n]   # "Marion" where the book has "Marion Cullen": her first name
        elif surname and len(core) == 2 and (is_first_name(core[0]) or _a_person(type_votes.get(core[0]))):
            votes["character"] += 2 * totals[n]   # "Angeline Hall": a person's shape
        elif is_given_name(core[0]) and (len(core) > 1 or type_votes.get(n, Counter())["character"]):
            votes["character"] += totals[n]   # not "Queen Charlotte Sound", nor "Victoria" no chapter calls a person
    if shaped and all(any(s[:len(p.core)] == p.core for s in shaped) for p in parsed.values()):
        return "location"
    return pick_type(votes)
