"""A person called by a different given name or surname than the one the book established.

Established: a full name ("Elizabeth Bennet", "Mr. Darcy") the work uses at least ESTABLISHED times. A rare name
(used at most RARE times in the whole work) drifts from it when
- it keeps the given name and changes the surname ("Jane Benson" for Jane Bennet), the given name belonging to one
  established person only and the new surname to nobody established (a married name, "Jane Bingley", is someone's);
- it keeps the surname of an established person who alone has it and changes the given name to another given name,
  not a familiar form ("Daniel Gray" for Dorian Gray; "Lizzy Bennet" is Elizabeth's);
- it keeps the surname of an established character who alone has it and puts before it a first word the book never
  uses alone and never gives anyone else, where the book gave that character another given name ("Hermann Bhaer"
  for Friedrich Bhaer, known as Mr. Bhaer; not "Father Bhaer", not "Franz Bhaer" when the book has a Franz);
- it is an honorific and a surname one or two letters from an established surname that nobody else with that
  honorific has ("Mr. Darcey" for Mr. Darcy; "Mr. Bingham" for Mr. Bingley beside Miss Bingley; three or four
  when the first four or last five letters are kept: "Mr. Bingham", "Dr. Bernstein" for Dr. Bauerstein), or one
  word used once, one letter from a one-word name the book uses often ("Filbey" for Filby): a misspelling.
A nickname or title the book itself uses often enough is established, so it is never a drift; a given name the book
pairs with SHARED_GIVEN or more surnames besides the established one (the new one included) is many people's
("Johann David Goll", "Johann Christian Bock"...).

A given name is one of core.kg.given_names' or the first word of a character's established full name in this book
whose first word or surname the book also uses alone ("Irene" of "Irene Adler", "Hans" of "Hans Van Ripper": the
list is short, the book is the evidence). The earlier
sentence a drift contradicts is the first that uses the established name, in dialogue too ("Jo March, you are
perverse"); a drift itself is looked for in the narration only (a speaker may misname someone on purpose).
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from core.continuity.model import Entities, Flag, State, make_flag
from core.kg.given_names import is_given_name, same_given_name
from core.kg.names import ADDRESS_WORDS, HONORIFICS, LEADING_NOISE, parse_name, surname

ESTABLISHED = 3
RARE = 2
BARE_ESTABLISHED = 10   # a one-word name used this often is the spelling a one-letter variant drifts from
SHARED_GIVEN = 3     # a given name with this many surnames besides the established one is many people's
# "Little John", "Black Jack", "Cousin Cæsar", "Granny Smith": an epithet or a kinship word, no given name
EPITHETS = frozenset({"little", "big", "great", "fat", "tall", "black", "white", "red", "brown", "dark", "fair",
                      "long", "lame", "blind", "mad", "bold", "cousin", "granny", "grandma", "grandpa", "grandfather",
                      "grandmother", "nurse", "parson", "squire", "deacon", "elder", "widow", "sir", "dame"})
NOT_GIVEN = ADDRESS_WORDS | LEADING_NOISE | EPITHETS
TITLES = frozenset(HONORIFICS.values())
ROMAN = re.compile(r"^[IVXLC]+\.?$", re.IGNORECASE)


def _given(name: str, book_given: frozenset[str] = frozenset()) -> str | None:
    core = parse_name(name).core
    return core[0] if len(core) >= 2 and (is_given_name(core[0]) or core[0] in book_given) else None


def _book_given(established: list[str], entities: Entities, counts: dict[str, int]) -> frozenset[str]:
    """The first words of the characters' established full names whose first word or surname the book also uses
    alone ("Irene Adler" and "Irene" -> "Irene"; "Hans Van Ripper" and "Van Ripper" -> "Hans"; not the epithet of
    "Little John")."""
    out = set()
    for n in established:
        core, sn = parse_name(n).core, surname(n)
        if len(core) < 2 or not (core[0][:1].isupper() and core[0].isalpha()) \
                or core[0].lower() in NOT_GIVEN \
                or entities.type.get(entities.of_name(n)) != "character":
            continue
        if counts.get(core[0], 0) >= 1 or (sn is not None and (counts.get(sn, 0) >= 1 or any(
                counts.get(f"{h} {sn}", 0) >= 1 for h in TITLES))):
            out.add(core[0])
    return frozenset(out)


def check(states: Sequence[State], entities: Entities, counts: dict[str, int], draft: int | None) -> list[Flag]:
    ordered = sorted(states, key=lambda s: s.at)
    first: dict[str, State] = {}          # where the book first uses each full name (dialogue included)
    narrated: dict[str, State] = {}       # where the narration first uses it: a drift is looked for there
    for s in ordered:
        if s.kind == "name":
            first.setdefault(s.value, s)
            if "quote" not in s.cues:
                narrated.setdefault(s.value, s)
    established = [n for n in first if counts.get(n, 0) >= ESTABLISHED]
    book_given = _book_given(established, entities, counts)
    given_of = {n: _given(n, book_given) for n in first}
    by_given: dict[str, set[str]] = defaultdict(set)       # given name -> entities with an established full name
    by_surname: dict[str, set[str]] = defaultdict(set)     # surname -> entities
    by_title: dict[tuple[str | None, str], set[str]] = defaultdict(set)   # (honorific, surname) -> entities
    for n in established:
        if (g := given_of[n]) is not None and parse_name(n).honorific != "Mrs.":   # "Mrs. John Brooke" is
            by_given[g.lower()].add(entities.of_name(n))                        # John Brooke's wife
        if (sn := surname(n)) is not None:
            by_surname[sn].add(entities.of_name(n))
            by_title[(parse_name(n).honorific, sn)].add(entities.of_name(n))
    surnames_of: dict[str, set[str]] = defaultdict(set)    # given name -> every surname the book gives it
    for n, g in given_of.items():
        if g is not None and (sn := surname(n)) is not None:
            surnames_of[g].add(sn)
    found = [(s, _drift(name, s, established, first, given_of, by_given, by_surname, surnames_of, by_title)
              or _new_given(name, s, first, given_of, by_surname, entities, counts))
             for name, s in narrated.items() if counts.get(name, 1) <= RARE and name not in established]
    # one-word names: the name states hold full names only, so a one-word name's first narrated use is any state's
    bare: dict[str, State] = {}        # narrated: where a slip is looked for
    spoken: dict[str, State] = {}      # dialogue too: where the established spelling was first used
    for s in ordered:
        if s.name and " " not in s.name and s.kind != "time":
            spoken.setdefault(s.name, s)
            if "quote" not in s.cues:
                bare.setdefault(s.name, s)
    often = {n: s for n, s in spoken.items() if counts.get(n, 0) >= BARE_ESTABLISHED}
    found += [(s, _misspelt(name, s, counts, often, by_surname)) for name, s in bare.items()]
    flags = []
    for s, drift in found:
        if drift is not None:
            prior, confidence, why = drift
            label = entities.label[entities.of_name(prior.name)]
            flags.append(make_flag("name", label, s, prior, confidence * s.confidence, why))
    return flags


def _drift(name: str, s: State, established: list[str], first: dict[str, State], given_of: dict[str, str | None],
           by_given: dict[str, set[str]], by_surname: dict[str, set[str]], surnames_of: dict[str, set[str]],
           by_title: dict[tuple[str | None, str], set[str]]) -> tuple[State, float, str] | None:
    parts = parse_name(name)
    sn = surname(name)
    if sn is None or len(sn) < 3:
        return None
    given = given_of[name]
    words = set(s.sentence.replace(",", " ").split())
    # the people who have the very given name first ("Bob Crutchley" is Bob Cratchit, not Robin Crusoe, though Bob
    # and Robin are both Robert's)
    for other in sorted(established, key=lambda o: given_of[o] != given):
        prior = first[other]
        if prior.at >= s.at:
            continue
        oparts, osn = parse_name(other), surname(other)
        ogiven = given_of[other]
        if (ogiven and ogiven in words and ogiven != given) or (osn and osn in words and osn != sn):
            continue   # "Fred and Frank Vaughn": the sentence names both, so they are two people
        if osn and (sn.rstrip(".") == osn.rstrip(".") or ROMAN.match(sn) or ROMAN.match(osn)):
            continue   # "Lord Henry." is "Lord Henry"; "Henry VIII" is a king, not a surname
        if osn and (sn in (osn + "s", osn + "es") or osn in (sn + "s", sn + "es")):
            continue   # "the Dashwoods", "the Miss Lucases": a plural or a possessive, not another name
        if osn is None or osn == sn:
            if given and ogiven and osn == sn and not same_given_name(given, ogiven) and len(by_surname[sn]) == 1 \
                    and not by_given.get(given.lower()):
                return prior, 0.6, f"{other} is called {name}"
            continue
        if given and ogiven and same_given_name(given, ogiven) and len(by_given[ogiven.lower()]) == 1 \
                and sn not in by_surname and not parts.honorific and len(surnames_of[given] - {osn}) < SHARED_GIVEN:
            return prior, 0.7, f"{other} is called {name}"
        if (parts.honorific and len(parts.core) == 1 and oparts.honorific == parts.honorific
                and len(oparts.core) == 1 and sn not in by_surname and len(by_title[(parts.honorific, osn)]) == 1
                and sn[0] == osn[0] and len(osn) >= 4 and not is_given_name(sn)
                and _similar(sn.lower(), osn.lower())):   # "Aunt Mary" is someone else, not "Aunt March" misspelt
            return prior, 0.5, f"{other} is spelt {name}"
    return None


def _new_given(name: str, s: State, first: dict[str, State], given_of: dict[str, str | None],
               by_surname: dict[str, set[str]], entities: Entities,
               counts: dict[str, int]) -> tuple[State, float, str] | None:
    """"Hermann Bhaer" for Friedrich Bhaer: the surname is one established character's, the book gave that character
    another given name, and the new first word is no name of its own in the book (never used alone, never another
    person's given name) nor a title, kinship or epithet word."""
    parts = parse_name(name)
    sn = surname(name)
    if parts.honorific or len(parts.core) != 2 or sn is None or len(by_surname.get(sn, ())) != 1:
        return None
    word = parts.core[0]
    if not (word.isalpha() and word[:1].isupper() and len(word) >= 3) or word.lower() in NOT_GIVEN \
            or word in TITLES or counts.get(word, 0) > 0:
        return None
    owner = next(iter(by_surname[sn]))
    if entities.type.get(owner) != "character":
        return None
    words = set(s.sentence.replace(",", " ").split())
    known = []   # the owner's full names with a given name, first used before this one
    for other, g in given_of.items():
        if g is None or other == name:
            continue
        if same_given_name(g, word):
            return None   # someone's given name (the owner's own, a familiar form of it, or another person's)
        if entities.of_name(other) == owner and surname(other) == sn and first[other].at < s.at:
            known.append(other)
    if not known or any(given_of[o] in words for o in known):
        return None       # no given name of the owner yet, or the sentence names both: two people
    other = min(known, key=lambda o: first[o].at)
    return first[other], 0.5, f"{other} is called {name}"


def _similar(a: str, b: str) -> bool:
    """One or two letters apart ("Darcey", "Darcy"), or three or four with the first four letters kept or the last
    five ("Bingham" for Bingley, "Waldheim" for Waldman, "Bernstein" for Bauerstein: the half of a name a writer
    remembers)."""
    edits = Levenshtein.distance(a, b)
    return edits <= 2 or (edits <= 4 and min(len(a), len(b)) >= 6 and (a[:4] == b[:4] or a[-5:] == b[-5:]))


def _letters(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalpha())


def _misspelt(name: str, s: State, counts: dict[str, int], often: dict[str, State],
              by_surname: dict[str, set[str]]) -> tuple[State, float, str] | None:
    """A one-word name used once, one letter from a one-word name the book uses at least BARE_ESTABLISHED times
    ("Filbey" for Filby); not a given name of the list, not someone's surname, not a spelling the book varies
    ("Sol-leks" and "Solleks" have the same letters)."""
    parts = parse_name(name)
    if parts.honorific or len(parts.core) != 1 or counts.get(name, 1) > 1 or len(name) < 5 \
            or is_given_name(name) or name in by_surname:
        return None
    for other, prior in often.items():
        if prior.at >= s.at or other[0] != name[0] or _letters(other) == _letters(name):
            continue
        if Levenshtein.distance(name.lower(), other.lower()) == 1 \
                and not (name.startswith(other) or other.startswith(name)):
            return prior, 0.5, f"{other} is spelt {name}"
    return None
