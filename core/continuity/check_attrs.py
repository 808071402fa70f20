"""Attributes, birthplaces and homes that change without the story saying so.

- Eye and hair colour compare by class (blue and grey eyes are both light; "dark" and "black" hair are one); hair
  may go grey or white with the years.
- Either side may be read through a pronoun, both too ("He was tall" / "Short as he was").
- Height: tall against short. Nationality: one against another (a "French-Canadian" is either).
- Profession: a new one is a contradiction unless the sentence says it changed ("became", "retired", "former") or the
  book gives the person several (each stated more than once).
- Age grows with the years the story lets pass between the two sentences ("two years passed", "a year later";
  "years went by" lets any number pass) plus one (a birthday); it never shrinks. "When she was ten" is no present age.
- A birthplace never changes. A home may: a later home is a contradiction only when no move, journey or visit of
  the person to that place (or relocation anywhere: "they moved") comes between, and it was never their home before.
"""
from __future__ import annotations

from collections.abc import Sequence

from core.continuity.model import Entities, Flag, State, make_flag
from core.kg.state_words import EYE_COLOURS, HAIR_COLOURS, RELOCATE_VERBS

NOT_STATED = frozenset({"negated", "hedge", "belief", "quote", "past", "perfect"})
RECURRING = 2           # a new value stated more often than this is the book's own
CONFIDENCE = {"eyes": 0.85, "hair": 0.75, "height": 0.6, "nationality": 0.7, "profession": 0.6, "age": 0.7}


def _class(key: str, value: str) -> str:
    if key == "eyes":
        return EYE_COLOURS.get(value, value)
    if key == "hair":
        return HAIR_COLOURS.get(value, value)
    return value


def _years_between(times: Sequence[State], a: State, b: State) -> float:
    total = 0.0
    for t in times:
        if a.at < t.at <= b.at:
            total += float("inf") if t.value == "many" else float(t.value or 1)
    return total


def _conflicts(key: str, prior: State, new: State, times: Sequence[State]) -> bool:
    if key == "age":
        old, now = int(prior.value), int(new.value)
        return now < old or now > old + _years_between(times, prior, new) + 1
    a, b = _class(key, prior.value), _class(key, new.value)
    if a == b:
        return False
    if key == "hair" and b == "grey":
        return False          # hair greys with the years
    if key == "profession" and "change" in new.cues:
        return False
    if key == "nationality":
        return not set(a.split("-")) & set(b.split("-"))    # a French-Canadian is French and Canadian
    return True


def check(facts: Sequence[State], label: str, times: Sequence[State], entities: Entities,
          draft: int | None) -> list[Flag]:
    """The attributes and places of one entity (`facts` in reading order)."""
    flags: list[Flag] = []
    attrs = [s for s in facts if s.kind == "attr" and not s.cues & NOT_STATED]
    for key in sorted({s.key for s in attrs}):
        stated = [s for s in attrs if s.key == key]
        values = [_class(key, s.value) for s in stated if s.chapter != draft]
        if key == "profession" and sum(1 for v in set(values) if values.count(v) >= 2) >= 2:
            continue   # several professions, each stated again: the book gives them all
        for i, new in enumerate(stated):
            prior = next((p for p in reversed(stated[:i]) if p.sentence != new.sentence
                          and _conflicts(key, p, new, times)), None)
            if prior is None:
                continue
            if values.count(_class(key, new.value)) > RECURRING and key != "age":
                continue
            if any(_class(key, p.value) == _class(key, new.value) for p in stated[:i]) and key != "age":
                continue   # said before as it is now: the other value was the odd one
            confidence = CONFIDENCE.get(key, 0.6) * min(new.confidence, prior.confidence) ** 0.5
            flags.append(make_flag("attribute", label, new, prior, confidence,
                                   f"{label}'s {key}: {new.value}; earlier {prior.value}"))
    flags.extend(_places(facts, label, entities, draft))
    return flags


def _same_place(a: str, b: str, entities: Entities) -> bool:
    if entities.of_name(a) == entities.of_name(b):
        return True
    x, y = a.lower(), b.lower()
    return x in y or y in x


def _places(facts: Sequence[State], label: str, entities: Entities, draft: int | None) -> list[Flag]:
    flags: list[Flag] = []
    births = [s for s in facts if s.kind == "born" and not s.cues & (NOT_STATED - {"perfect"})]   # "had been born"
    for i, new in enumerate(births):
        prior = next((p for p in births[:i] if not _same_place(p.value, new.value, entities)), None)
        if prior is not None and "pronoun" not in new.cues:
            flags.append(make_flag("home", label, new, prior, 0.8 * new.confidence,
                                   f"{label} was born in {new.value}; earlier in {prior.value}"))
    homes = [s for s in facts if s.kind == "home" and not s.cues & NOT_STATED]
    moves = [s for s in facts if s.kind == "move" and not s.cues & {"negated", "hedge"}]
    for i, new in enumerate(homes):
        earlier = homes[:i]
        if not earlier or "pronoun" in new.cues or any(_same_place(p.value, new.value, entities) for p in earlier):
            continue
        prior = earlier[-1]
        moved = any(prior.at < m.at <= new.at and (m.key in RELOCATE_VERBS or (
            m.value and _same_place(m.value, new.value, entities))) for m in moves)
        visited = any(m.at <= new.at and m.value and _same_place(m.value, new.value, entities) for m in moves)
        repeats = sum(1 for h in homes if h.chapter != draft and _same_place(h.value, new.value, entities))
        if moved or visited or repeats > RECURRING:
            continue
        flags.append(make_flag("home", label, new, prior, 0.6 * new.confidence,
                               f"{label}'s home: {new.value}; earlier {prior.value}, and no move between"))
    return flags
