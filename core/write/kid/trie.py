"""The knowledge trie of KID (Liu et al. 2022, section 3.2 and A.2), built from the book's own triples.

Keys are stemmed subject words; values are the relation and object words of the triples (the released code drops the
relation; here its content words steer too). The trie is over whole words: a key is a path of stems, so "cat" never
matches "category" (the released code's character-prefix lookup does). A query takes h_max hops: the values found
at hop h are looked up as keys for hop h+1 ("influence of drugs" -> next-hop key "drug").

    trie = KnowledgeTrie.build([("Mr Darcy", "loves", "Elizabeth Bennet"), ("Elizabeth", "lives at", "Longbourn")])
    trie.query("Darcy's", hops=2)   # -> Demo("loves", ..., 1), Demo("Elizabeth", ..., 1), Demo("Longbourn", ..., 2)
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from core.stopwords import ENGLISH

_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*[A-Za-z]|[A-Za-z]")
STOPWORDS = ENGLISH | {"said", "says", "say"}


def words(text: str) -> list[str]:
    """The words of `text` at word boundaries, possessive "'s" removed ("Darcy's" -> "Darcy")."""
    out = []
    for w in _WORD.findall(text):
        w = re.sub(r"['\u2019]s?$", "", w)
        if w:
            out.append(w)
    return out


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem.snowball import SnowballStemmer  # nltk takes seconds to import: only when a trie is used
    return SnowballStemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball stem of a word, lower-cased, possessive removed ("Darcy's", "darcys" -> "darci")."""
    return _stemmer().stem(re.sub(r"['\u2019]s?$", "", word.lower()))


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w.lower() not in STOPWORDS and len(w) > 1]


@dataclass(frozen=True)
class Demo:
    """One knowledge demonstration: a value word, the fact it comes from, and the hop it was reached at."""

    word: str
    fact: str
    hop: int


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    values: list[tuple[str, str]] = field(default_factory=list)   # (value word, fact text)


class KnowledgeTrie:
    def __init__(self) -> None:
        self._root = _Node()
        self.facts: list[str] = []

    @classmethod
    def build(cls, triples: Iterable[tuple[str, str, str]]) -> KnowledgeTrie:
        trie = cls()
        for subject, relation, obj in triples:
            trie.add(subject, relation, obj)
        return trie

    def add(self, subject: str, relation: str, obj: str) -> None:
        """Key the triple by its subject's stemmed content words: the whole phrase and each word alone, so that
        "Darcy" finds the facts of "Mr Darcy"."""
        fact = " ".join(p.strip() for p in (subject, relation, obj) if p and p.strip())
        key = [stem(w) for w in content_words(subject)]
        values = [w for w in content_words(relation) + content_words(obj) if stem(w) not in key]
        if not key or not values:
            return
        self.facts.append(fact)
        paths = {tuple(key)} | {(k,) for k in key}
        for path in paths:
            node = self._root
            for part in path:
                node = node.children.setdefault(part, _Node())
            node.values.extend((v, fact) for v in values)

    def __len__(self) -> int:
        return len(self.facts)

    def _lookup(self, stems: Sequence[str]) -> list[tuple[str, str]]:
        """Values of the longest key path that `stems` spells from its start (whole stems only)."""
        node: _Node | None = self._root
        found: list[tuple[str, str]] = []
        for part in stems:
            node = node.children.get(part) if node is not None else None
            if node is None:
                break
            found = node.values
        return found

    def is_key(self, word: str) -> bool:
        return stem(word) in self._root.children

    def query(self, entity: str, hops: int = 1) -> list[Demo]:
        """Demonstrations for `entity` over `hops` hops, nearest first, each value word once."""
        frontier = [stem(w) for w in content_words(entity)]
        seen_keys: set[str] = set()
        seen_words: set[str] = set()
        out: list[Demo] = []
        keys = [tuple(frontier)] + [(s,) for s in frontier]
        for hop in range(1, hops + 1):
            next_keys: list[tuple[str, ...]] = []
            for key in keys:
                if not key or " ".join(key) in seen_keys:
                    continue
                seen_keys.add(" ".join(key))
                for word, fact in self._lookup(key):
                    if word.lower() not in seen_words:
                        seen_words.add(word.lower())
                        out.append(Demo(word, fact, hop))
                        next_keys.append((stem(word),))
            keys = [k for k in next_keys if " ".join(k) not in seen_keys]
        return out
