"""The alias resolver run on name counts of our own (no parsing), for the unit tests of its rules: the groups of names
it makes, whether some names are in one group, and the type it gives a name."""
from __future__ import annotations

from collections.abc import Sequence

from core.kg.resolve import ResolutionInput, resolve
from core.kg.types import DatedAlias, NameCount


def groups(counts: Sequence[tuple[int, str, str, int]],
           aliases: Sequence[tuple[int, str, str, str]] = ()) -> list[set[str]]:
    """counts: (chapter, name, type, mentions); aliases: (chapter, a, b, kind)."""
    inp = ResolutionInput([NameCount(name, ch, kind, n) for ch, name, kind, n in counts], [],
                          [DatedAlias(a, b, kind, ch) for ch, a, b, kind in aliases])
    return [{n.name for n in c.names} for c in resolve(inp).clusters]


def together(made: list[set[str]], *names: str) -> bool:
    return any(set(names) <= g for g in made)


def type_of(counts: Sequence[tuple[int, str, str, int]], name: str) -> str:
    inp = ResolutionInput([NameCount(n, ch, kind, c) for ch, n, kind, c in counts], [])
    return next(c.type for c in resolve(inp).clusters if name in {x.name for x in c.names})
