"""The knowledge trie of KID (Liu et al. 2022, section 3.2 and A.2), built from the book's own triples.

Keys are stemmed subject words; values are the object's words that carry the fact (nouns and names, see "fact words"
below: "Buck saw something white" steers toward nothing, "Thornton saved Buck's life" toward "Buck" and "life"). The
trie is over whole words: a key is a path of stems, so "cat" never matches "category" (the released code's
character-prefix lookup does). A query takes h_max hops: the values found at hop h are looked up as keys for hop h+1
("influence of drugs" -> next-hop key "drug").

    trie = KnowledgeTrie.build([("Mr Darcy", "loves", "Elizabeth Bennet"), ("Elizabeth", "lives at", "Longbourn")])
    trie.query("Darcy's", hops=2)   # -> Demo("Elizabeth", ..., 1), Demo("Bennet", ..., 1), Demo("Longbourn", ..., 2)
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from core.stopwords import ENGLISH

_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*[A-Za-z]|[A-Za-z]")
STOPWORDS = ENGLISH | {"said", "says", "say"}


def word_spans(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) of the words of `text` at word boundaries, possessive "'s" removed ("Darcy's" -> "Darcy")."""
    out = []
    for match in _WORD.finditer(text):
        w = re.sub(r"['\u2019]s?$", "", match.group())
        if w:
            out.append((w, match.start(), match.start() + len(w)))
    return out


def words(text: str) -> list[str]:
    """The words of `text` at word boundaries, possessive "'s" removed ("Darcy's" -> "Darcy")."""
    return [w for w, _, _ in word_spans(text)]


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


# ---- fact words (issue 37) ----------------------------------------------------------------------------------------
# The paper builds its trie from OpenIE end nodes (subject and object) and steers toward their words; taken word by
# word from a book's triples that let filler through ("something", "like", "white" were steered), so a word carries a
# fact only when spaCy tags it a noun or a proper noun in the verbalized triple ("Buck saw something white." keeps
# "Buck"; "saw", "something" and "white" steer nothing), it is not a stop word, a vague noun ("thing", "way", "lot")
# or a title ("Mr"), and it has at least two letters. The subject's fact words are the keys, the object's the
# demonstrations ("Thornton saved Buck's life." -> key Thornton; values Buck, life): the paper's end nodes; the
# relation, a verb phrase the small tagger sometimes calls a noun ("haunts"), steers nothing (as in the released code).

FACT_POS = frozenset({"NOUN", "PROPN"})
# nouns that stand for no particular thing, and titles that name no one by themselves
VAGUE = frozenset({
    "thing", "things", "something", "anything", "nothing", "everything", "someone", "anyone", "everyone", "nobody",
    "somebody", "anybody", "everybody", "one", "ones", "way", "ways", "lot", "lots", "kind", "sort", "bit", "deal",
    "fact", "matter", "manner", "part", "sake", "time", "times", "while", "moment", "other", "others", "rest", "side",
    "mr", "mrs", "ms", "miss", "sir", "madam", "dr", "st", "mister", "missus"})
Tagger = Callable[[Sequence[str]], list[list[tuple[int, int, str]]]]   # texts -> per text (start, end, POS) tokens


@dataclass(frozen=True)
class FactWords:
    fact: str
    keys: tuple[str, ...]
    values: tuple[str, ...]


def carries_fact(word: str, tags: Iterable[str]) -> bool:
    """A word that can carry a fact: tagged noun / proper noun, not a stop word, vague noun or title, 2+ letters."""
    low = word.lower()
    return len(word) > 1 and low not in STOPWORDS and low not in VAGUE and any(t in FACT_POS for t in tags)


def spacy_tagger(texts: Sequence[str]) -> list[list[tuple[int, int, str]]]:
    """(start, end, coarse POS) of every token of each text, by the shared spaCy pipeline (tagger only)."""
    from core.nlp import load_spacy
    nlp = load_spacy()
    skip = [p for p in ("parser", "ner", "lemmatizer") if p in nlp.pipe_names]
    return [[(t.idx, t.idx + len(t), t.pos_) for t in doc] for doc in nlp.pipe(list(texts), disable=skip)]


def fact_words(triples: Iterable[tuple[str, str, str]], tag: Tagger | None = None) -> list[FactWords]:
    """The fact words of each triple, tagged in the sentence the triple makes (subject relation object.). A triple
    without an object (a fact split from its text: subject, the rest) has the rest read as its object."""
    parts = [(s, "", r) if not o.strip() else (s, r, o)
             for s, r, o in ([" ".join(p.split()) for p in triple] for triple in triples)]
    sentences = [" ".join(p for p in triple if p) + "." for triple in parts]
    tagged = (tag or spacy_tagger)(sentences) if sentences else []
    out = []
    for (subject, relation, obj), sentence, tokens in zip(parts, sentences, tagged):
        subject_end, object_start = len(subject), len(sentence) - 1 - len(obj)
        keys: list[str] = []
        values: list[str] = []
        for word, start, end in word_spans(sentence):
            tags = [pos for s, e, pos in tokens if s < end and e > start]
            if carries_fact(word, tags) and (end <= subject_end or start >= object_start):
                (keys if end <= subject_end else values).append(word)
        fact = sentence[:-1]
        out.append(FactWords(fact, tuple(dict.fromkeys(keys)), tuple(dict.fromkeys(values))))
    return out


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
    def build(cls, triples: Iterable[tuple[str, str, str]], tag: Tagger | None = None) -> KnowledgeTrie:
        """The trie of `triples`, keyed and valued by their fact words (`tag`: the POS tagger, default spaCy)."""
        trie = cls()
        for found in fact_words(triples, tag):
            trie.add(found.fact, found.keys, found.values)
        return trie

    def add(self, fact: str, keys: Sequence[str], values: Sequence[str]) -> None:
        """Key the fact by its subject's stemmed fact words: the whole phrase and each word alone, so that "Darcy"
        finds the facts of "Darcy Fitzwilliam"; a value that is the subject itself steers nothing."""
        key = [stem(w) for w in keys]
        values = [w for w in values if stem(w) not in key]
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
