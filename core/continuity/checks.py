"""The checks: later sentences against the states established before them, entity by entity, in reading order.

    flags = check(states, Entities.of(kg_entities), counts=name_counts)

A dead character who acts, speaks or is seen (not remembered, dreamed, mourned, a ghost, "the late X", in someone's
words, a flashback, or a death that was only believed or that the story takes back: "X was alive after all"); a tie
that changes (core.continuity.check_ties); an attribute, a birthplace or a home that changes without the story
saying so (check_attrs); a name drifting from the one the book established (check_names).

A contradiction a writer makes is a slip: once or twice. What a book says again and again is what it means (or the
state was misread: two people share a name, a death was figurative), so a "contradiction" repeated more than
`RECURRING` times is taken as the book's own and not flagged. A draft's sentences (`draft`) do not count towards
that, so a model writing a dead character into a whole chapter is still told.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from core.continuity import check_attrs, check_names, check_ties
from core.continuity.model import Entities, Flag, State, make_flag

RECURRING = 3             # a contradiction stated this many times is the book's own
# Cues that make an act no evidence that a dead character is present now.
NOT_PRESENT = frozenset({"quote", "memory", "ghost", "late", "perfect", "hedge", "negated", "belief", "past",
                         "pronoun", "question"})
NOT_A_DEATH = frozenset({"negated", "hedge", "belief", "pronoun"})
REVIVED = frozenset({"alive"})


def death_of(facts: Sequence[State], draft: int | None = None) -> tuple[State | None, list[State]]:
    """The death the story holds to (the first one the narration states plainly, or tells through a pronoun before
    stating it plainly; not taken back by "X was alive", and not followed by the character acting again and again),
    and the acts after it that contradict it."""
    deaths = [s for s in facts if s.kind == "dead" and not s.cues & NOT_A_DEATH
              and ("quote" not in s.cues or s.key == "late")]
    if not deaths:
        return None, []
    # a death the narration tells through a pronoun ("He died in the snow") is a weak reading alone; one the book
    # states plainly later as well is the same death, told first where it happened
    plain = min(deaths, key=lambda s: s.at)
    told = [s for s in facts if s.kind == "dead" and s.cues & (NOT_A_DEATH | {"quote"}) == {"pronoun"}
            and s.at < plain.at]
    death = min(told, key=lambda s: s.at, default=plain)
    if any(s.kind == "alive" and s.at > death.at and not s.cues & (NOT_A_DEATH | {"quote"}) for s in facts):
        return None, []     # "X was alive after all": only believed dead
    acts = [s for s in facts if s.kind == "act" and s.at > death.at and not s.cues & NOT_PRESENT
            and s.sentence != death.sentence]
    if sum(1 for s in acts if s.chapter != draft) >= RECURRING:
        return None, []     # the book keeps them acting: the death was misread, or another has the name
    return death, acts


def _dead(facts: Sequence[State], label: str, draft: int | None) -> list[Flag]:
    """A dead character acting after the death the story holds to."""
    death, acts = death_of(facts, draft)
    if death is None:
        return []
    detail = f"{label} is dead since chapter {death.chapter}" + (
        " (inferred from the passage)" if death.key == "inferred" else "")
    return [make_flag("dead", label, s, death, s.confidence * min(1.0, death.confidence + 0.2), detail) for s in acts]


def check(states: Sequence[State], entities: Entities, *, counts: dict[str, int] | None = None,
          chapters: Iterable[int] | None = None, draft: int | None = None) -> list[Flag]:
    """Every flag whose new sentence is in `chapters` (all when None), in reading order. `counts`: how often each
    name occurs in the whole work (the name check's notion of established); `draft`: the chapter being drafted."""
    wanted = None if chapters is None else set(chapters)
    by_entity: dict[str, list[State]] = defaultdict(list)
    times: list[State] = []
    for s in states:
        if s.kind == "time":
            times.append(s)
        elif s.name:
            by_entity[entities.of_name(s.name)].append(s)
    times.sort(key=lambda s: s.at)
    flags: list[Flag] = []
    for key, facts in by_entity.items():
        facts.sort(key=lambda s: s.at)
        label, etype = entities.label[key], entities.type[key]
        if etype in ("", "character"):
            flags.extend(_dead(facts, label, draft))
        flags.extend(check_attrs.check(facts, label, times, entities, draft))
    flags.extend(check_ties.check(states, entities, draft))
    flags.extend(check_ties.check_parents(states, entities, draft))
    flags.extend(check_names.check(states, entities, counts or {}, draft))
    out = {(f.kind, f.name, f.chapter, f.start, f.sentence): f for f in flags
           if wanted is None or f.chapter in wanted}
    return sorted(out.values(), key=lambda f: (f.chapter, f.start, f.kind, f.entity))
