"""KID's local knowledge memory G_loc: a first-in-first-out list of the entities last seen in the context.

Its length is capped at w_max = h_max (the paper's setting; the released code leaves the cap disabled). It is
initialized with the entities of the prompt and updated only when a generated word is an entity, i.e. a key of the
knowledge trie (non-entity words are rarely keys and give no useful constraint, section A.2).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from core.write.kid.trie import KnowledgeTrie, stem, words


class EntityMemory:
    def __init__(self, w_max: int) -> None:
        if w_max < 1:
            raise ValueError(f"w_max must be at least 1, got {w_max}")
        self.w_max = w_max
        self._items: deque[str] = deque(maxlen=w_max)

    def add(self, entity: str) -> None:
        """Append `entity` (newest last); one already held moves to the end instead of appearing twice; the oldest
        falls out once w_max are held."""
        key = stem(entity)
        for held in list(self._items):
            if stem(held) == key:
                self._items.remove(held)
        self._items.append(entity)

    def extend(self, entities: Iterable[str]) -> None:
        for e in entities:
            self.add(e)

    @property
    def items(self) -> list[str]:
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)


def entities_in(text: str, trie: KnowledgeTrie) -> list[str]:
    """The words of `text` that are keys of `trie`, in order (whole words: "category" is not "cat")."""
    return [w for w in words(text) if trie.is_key(w)]
