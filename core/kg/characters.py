"""Who the characters of a work are: one definition for every page that names them.

A character is an entity of the work's knowledge graph whose type is "character" (core.kg.resolve types an entity
from what the text says about its names: he/she, speaking, being addressed, an honorific, a person's name; named
animals that act included). The Graph page draws these entities as the character network; the retention metrics
(core.services.retention_service) count them chapter by chapter with the same mention counts the Graph page sizes
its nodes by, and resolve a name in a sentence to its character through `character_resolver`. So the two pages
cannot disagree on who the characters are: a dog the graph calls a character is one in Retention too, and a street
or an oath the graph does not call a character is none in either.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence

from core.kg.types import KgEntity, NameCount

CHARACTER = "character"


def is_character(entity_type: str | None) -> bool:
    """The one test of "is this entity a character" (its type, as resolution or a user's retype left it)."""
    return entity_type == CHARACTER


def characters(entities: Iterable[KgEntity]) -> list[KgEntity]:
    """The work's characters, most mentioned first (ties by label)."""
    return sorted((e for e in entities if is_character(e.type)), key=lambda e: (-e.mentions, e.label))


def chapter_characters(entities: Sequence[KgEntity], counts: Iterable[NameCount]) -> dict[int, Counter[str]]:
    """{chapter: {character label: mentions}}: the names of each character entity counted per chapter, exactly the
    counts the Graph page sums for a node (core.kg.graph.graph_as_of). Chapters without a character are absent."""
    label = {n.name: e.label for e in entities if is_character(e.type) for n in e.names}
    out: dict[int, Counter[str]] = defaultdict(Counter)
    for c in counts:
        who = label.get(c.name)
        if who is not None and c.count > 0:
            out[c.chapter_index][who] += c.count
    return dict(out)


def character_resolver(entities: Iterable[KgEntity], normalize: Callable[[str], str | None]) -> Callable[[str],
                                                                                                         str | None]:
    """A surface form -> its character's label, or None when the graph has no character of that name (a place, an
    oath, a name the graph never saw). `normalize` spells a surface form the way the caller's names are spelled."""
    table: dict[str, str | None] = {}
    for e in entities:
        for name in (e.label, *e.aliases):
            key = normalize(name)
            if key and (key not in table or is_character(e.type)):
                table[key] = e.label if is_character(e.type) else None

    def resolve(surface: str) -> str | None:
        key = normalize(surface)
        return table.get(key) if key else None
    return resolve
