"""A person called by a different given name or surname than the one the book established.

Established: a full name ("Elizabeth Bennet", "Mr. Darcy") the work uses at least ESTABLISHED times. A rare name
(used at most RARE times in the whole work) drifts from it when
- it keeps the given name and changes the surname ("Jane Benson" for Jane Bennet), the given name belonging to one
  established person only and the new surname to nobody established (a married name, "Jane Bingley", is someone's);
- it keeps the surname of an established person who alone has it and changes the given name to another given name,
  not a familiar form ("Daniel Gray" for Dorian Gray; "Lizzy Bennet" is Elizabeth's);
- it is an honorific and a surname one or two letters from an established surname that nobody else has ("Mr.
  Darcey" for Mr. Darcy): a misspelling.
A nickname or title the book itself uses often enough is established, so it is never a drift.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from core.continuity.model import Entities, Flag, State, make_flag
from core.kg.given_names import is_given_name, same_given_name
from core.kg.names import parse_name, surname

ESTABLISHED = 3
RARE = 2
ROMAN = re.compile(r"^[IVXLC]+\.?$", re.IGNORECASE)


def _edits(a: str, b: str) -> int:
    """Levenshtein distance (short names only)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def _given(name: str) -> str | None:
    core = parse_name(name).core
    return core[0] if len(core) >= 2 and is_given_name(core[0]) else None


def check(states: Sequence[State], entities: Entities, counts: dict[str, int], draft: int | None) -> list[Flag]:
    names = sorted((s for s in states if s.kind == "name" and "quote" not in s.cues), key=lambda s: s.at)
    first: dict[str, State] = {}
    for s in names:
        first.setdefault(s.value, s)
    established = [n for n in first if counts.get(n, 0) >= ESTABLISHED]
    by_given: dict[str, set[str]] = defaultdict(set)       # given name -> entities with an established full name
    by_surname: dict[str, set[str]] = defaultdict(set)     # surname -> entities
    for n in established:
        if (g := _given(n)) is not None:
            by_given[g.lower()].add(entities.of_name(n))
        if (sn := surname(n)) is not None and len(parse_name(n).core) >= 1:
            by_surname[sn].add(entities.of_name(n))
    flags: list[Flag] = []
    for name, s in first.items():
        if counts.get(name, 1) > RARE or name in established:
            continue
        found = _drift(name, s, established, first, by_given, by_surname, entities)
        if found is not None:
            prior, confidence, why = found
            label = entities.label[entities.of_name(prior.value)]
            flags.append(make_flag("name", label, s, prior, confidence * s.confidence, why))
    return flags


def _drift(name: str, s: State, established: list[str], first: dict[str, State], by_given: dict[str, set[str]],
           by_surname: dict[str, set[str]], entities: Entities) -> tuple[State, float, str] | None:
    parts = parse_name(name)
    sn = surname(name)
    if sn is None or len(sn) < 3:
        return None
    given = _given(name)
    words = set(s.sentence.replace(",", " ").split())
    for other in established:
        prior = first[other]
        if prior.at >= s.at:
            continue
        oparts, osn = parse_name(other), surname(other)
        ogiven = _given(other)
        if (ogiven and ogiven in words and ogiven != given) or (osn and osn in words and osn != sn):
            continue   # "Fred and Frank Vaughn": the sentence names both, so they are two people
        if osn and (sn.rstrip(".") == osn.rstrip(".") or ROMAN.match(sn) or ROMAN.match(osn)):
            continue   # "Lord Henry." is "Lord Henry"; "Henry VIII" is a king, not a surname
        if osn and (sn == osn + "s" or osn == sn + "s"):
            continue   # "the Dashwoods", "Mr. Dashwoods's": a plural or a possessive, not another name
        if osn is None or osn == sn:
            if given and ogiven and osn == sn and not same_given_name(given, ogiven) and len(by_surname[sn]) == 1 \
                    and not by_given.get(given.lower()):
                return prior, 0.6, f"{other} is called {name}"
            continue
        if given and ogiven and same_given_name(given, ogiven) and len(by_given[ogiven.lower()]) == 1 \
                and sn not in by_surname and not parts.honorific:
            return prior, 0.7, f"{other} is called {name}"
        if (parts.honorific and len(parts.core) == 1 and oparts.honorific == parts.honorific
                and len(oparts.core) == 1 and sn not in by_surname and len(by_surname[osn]) == 1
                and sn[0] == osn[0] and len(osn) >= 4 and _edits(sn.lower(), osn.lower()) <= 2):
            return prior, 0.5, f"{other} is spelt {name}"
    return None
