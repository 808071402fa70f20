"""Where each entity of the graph occurs in the passages, and which entities a question names.

    index = EntityIndex.build(passage_texts, entities, relations, triple_rows)
    index.mentions                       # sparse (passages x entities) occurrence counts
    index.find_in_question("who stole buck?")   -> {entity position: matched name}

Occurrences are found by the entities' own names and aliases (longest match first, no overlaps), so a passage that
names an entity without any extracted triple is still joined to it; a triple's chunk adds its ends too (pronouns the
extractor resolved count as occurrences). A capitalised name must be capitalised in the text ("Will" the character,
not "will" the verb). A question is matched without case when the name is not also an ordinary lower-case word of
the book (readers type "who is scrooge"), with case otherwise.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

_WORD = re.compile(r"\w+")
MAX_NAME_TOKENS = 6
# Names that are never worth matching by themselves (an entity called "The" or "Chapter" is an extraction slip).
_SKIP = frozenset({"the", "a", "an", "i", "chapter", "mr", "mrs", "miss", "sir", "lady", "lord", "o", "oh"})


@dataclass(frozen=True)
class EntityRef:
    """An entity as retrieval sees it: `id` is the store's id (or a position when there is no store)."""

    id: int
    label: str
    type: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class Relation:
    """Two entity positions joined in `chapter` (an extracted triple); `weight` 1 for a verb, less for interaction."""

    chapter: int
    a: int
    b: int
    weight: float
    label: str


@dataclass
class _Key:
    entity: int
    caps: tuple[bool, ...]
    name: str


@dataclass
class EntityIndex:
    entities: list[EntityRef]
    mentions: sparse.csr_matrix                     # (n_passages, n_entities) counts
    relations: list[Relation]                       # sorted by chapter
    common_words: frozenset[str] = frozenset()      # lower-case forms that the book also uses as ordinary words
    _keys: dict[tuple[str, ...], list[_Key]] = field(default_factory=dict, repr=False)
    _starts: frozenset[str] = field(default=frozenset(), repr=False)

    @property
    def size(self) -> int:
        return len(self.entities)

    @classmethod
    def build(cls, texts: Sequence[str], entities: Sequence[EntityRef], relations: Iterable[Relation] = (),
              triple_rows: Iterable[tuple[int, int]] = ()) -> EntityIndex:
        """`triple_rows`: (passage row, entity position) of each triple end, added to the name occurrences."""
        keys, starts = _name_keys(entities)
        rows, cols = [], []
        lower_words: Counter[str] = Counter()
        for r, text in enumerate(texts):
            tokens = _WORD.findall(text)
            lower_words.update(t for t in tokens if t[0].islower())
            for e in _scan(tokens, keys, starts, case=True):
                rows.append(r)
                cols.append(e)
        for r, e in triple_rows:
            rows.append(r)
            cols.append(e)
        data = np.ones(len(rows), dtype=np.float32)
        mentions = sparse.csr_matrix((data, (rows, cols)), shape=(len(texts), len(entities)), dtype=np.float32)
        mentions.sum_duplicates()
        single = {k[0] for k in keys if len(k) == 1}
        common = frozenset(w for w in single if lower_words[w] >= 2)
        ordered = sorted(relations, key=lambda rel: rel.chapter)
        return cls(list(entities), mentions, ordered, common, keys, frozenset(starts))

    def occurrences(self, text: str) -> list[int]:
        """Entity positions named in a text of the book (capitals must match, as when the index was built), once
        per occurrence."""
        return list(_scan(_WORD.findall(text), self._keys, self._starts, case=True))

    def find_in_question(self, question: str) -> dict[int, str]:
        """Entity positions named in the question -> the name matched (case-free where the name is no common word)."""
        tokens = _WORD.findall(question)
        found: dict[int, str] = {}
        for e, name in _scan_named(tokens, self._keys, self._starts, self.common_words):
            found.setdefault(e, name)
        return found


def _name_keys(entities: Sequence[EntityRef]) -> tuple[dict[tuple[str, ...], list[_Key]], set[str]]:
    keys: dict[tuple[str, ...], list[_Key]] = {}
    for pos, ent in enumerate(entities):
        for name in {*ent.names, ent.label}:
            tokens = _WORD.findall(name)
            if not tokens or len(tokens) > MAX_NAME_TOKENS:
                continue
            key = tuple(t.lower() for t in tokens)
            if len(key) == 1 and (key[0] in _SKIP or len(key[0]) < 2):
                continue
            entry = _Key(pos, tuple(t[0].isupper() for t in tokens), name)
            bucket = keys.setdefault(key, [])
            if all(k.entity != pos for k in bucket):
                bucket.append(entry)
    return keys, {k[0] for k in keys}


def _scan(tokens: list[str], keys: dict[tuple[str, ...], list[_Key]], starts: set[str] | frozenset[str], *,
          case: bool) -> Iterable[int]:
    for e, _ in _scan_named(tokens, keys, starts, None if case else frozenset()):
        yield e


def _scan_named(tokens: list[str], keys: dict[tuple[str, ...], list[_Key]], starts: set[str] | frozenset[str],
                caseless_unless: frozenset[str] | None) -> Iterable[tuple[int, str]]:
    """Longest matches, left to right, no overlaps. `caseless_unless` None: capitals must match; a set: case is
    ignored except for single-word names in the set (ordinary words of the book)."""
    lowered = [t.lower() for t in tokens]
    i, n = 0, len(tokens)
    while i < n:
        if lowered[i] not in starts:
            i += 1
            continue
        step = 1
        for size in range(min(MAX_NAME_TOKENS, n - i), 0, -1):
            bucket = keys.get(tuple(lowered[i:i + size]))
            if not bucket:
                continue
            span = tokens[i:i + size]
            strict = caseless_unless is None or (size == 1 and lowered[i] in caseless_unless)
            hits = [k for k in bucket if not strict or all(t[0].isupper() or not c for t, c in zip(span, k.caps))]
            if hits:
                for k in hits:
                    yield k.entity, k.name
                step = size
                break
        i += step
