"""The sentences of a work's passages, the entities each names, and their search: the sentence layer of graph mode.

    sentences = SentenceIndex.build(passage_texts, entity_index)   # once per corpus (split, tokenized, scanned)
    sentences.upto(n_passages)          -> how many sentences a view of the first n passages shows (a prefix)
    sentences.bm25(k).scores(question)  -> BM25 of the first k sentences (an index per view, cached by the caller)
    sentences.mentions                   (n_sentences x n_entities) name occurrences, sentence by sentence

LinearRAG (Zhuang et al. 2026) builds its relation-free graph from exactly these pieces: entities, the sentences
that name them and the passages that hold the sentences, with no LLM. A sentence is the unit where an entity and
the words around it belong together: a 240-word passage names a dozen things, a sentence two or three, so the
entities of the sentences a question matches are the ones worth walking from (core.retrieval.walk), and a passage's
best sentences are what a prompt should keep when the whole passage does not fit (core.retrieval.excerpts).

Splitting is the importer's own regex splitter (core.ingest.sentences), so no model is loaded: Pride and
Prejudice's 609 passages split and scan in well under a second.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import sparse

from core.ingest.sentences import split_sentences
from core.retrieval.entities import EntityIndex
from core.retrieval.hybrid import Bm25Index, tokenize

_WORDS = re.compile(r"\S+")


@dataclass
class SentenceIndex:
    texts: list[str]                 # every sentence, passage by passage, in reading order
    passage: np.ndarray              # (n_sentences,) the passage row each sentence belongs to
    starts: np.ndarray               # (n_passages + 1,) first sentence of each passage; starts[-1] = n_sentences
    tokens: list[list[str]]          # bm25s tokens of each sentence (lower-cased, stopwords out, stemmed)
    mentions: sparse.csr_matrix      # (n_sentences, n_entities) occurrences of each entity's names
    words: np.ndarray                # (n_sentences,) white-space words in each sentence
    spans: np.ndarray                # (n_sentences, 2) start and end of each sentence in its passage's own text
    _bm25: dict[int, Bm25Index] = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return len(self.texts)

    @classmethod
    def build(cls, passage_texts: Sequence[str], entities: EntityIndex | None = None) -> SentenceIndex:
        texts: list[str] = []
        owner: list[int] = []
        spans: list[tuple[int, int]] = []
        starts = [0]
        for row, text in enumerate(passage_texts):
            found = split_sentences(text) or ([" ".join(text.split())] if text.strip() else [])
            texts.extend(found)
            owner.extend([row] * len(found))
            starts.append(len(texts))
            spans.extend(_spans(text, found))
        n_entities = entities.size if entities is not None else 0
        rows: list[int] = []
        cols: list[int] = []
        if entities is not None:
            for s, text in enumerate(texts):
                for e in entities.occurrences(text):
                    rows.append(s)
                    cols.append(e)
        mentions = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                                     shape=(len(texts), n_entities), dtype=np.float32)
        mentions.sum_duplicates()
        return cls(texts, np.asarray(owner, dtype=np.int64), np.asarray(starts, dtype=np.int64), tokenize(texts),
                   mentions, np.array([len(t.split()) for t in texts], dtype=np.int64),
                   np.asarray(spans, dtype=np.int64).reshape(-1, 2))

    def upto(self, n_passages: int) -> int:
        """The number of sentences in the first `n_passages` passages (a view's sentences are a prefix)."""
        return int(self.starts[min(max(n_passages, 0), len(self.starts) - 1)])

    def of_passage(self, row: int) -> range:
        return range(int(self.starts[row]), int(self.starts[row + 1]))

    @cached_property
    def postings(self) -> dict[str, np.ndarray]:
        """Each word (bm25s token) -> the sorted ids of the sentences that have it."""
        found: dict[str, list[int]] = {}
        for i, words in enumerate(self.tokens):
            for w in set(words):
                found.setdefault(w, []).append(i)
        return {w: np.asarray(ids, dtype=np.int64) for w, ids in found.items()}

    def having(self, word: str, n_sentences: int) -> np.ndarray:
        """The ids below `n_sentences` of the sentences that have `word`."""
        ids = self.postings.get(word)
        if ids is None:
            return np.zeros(0, dtype=np.int64)
        return ids[:int(np.searchsorted(ids, n_sentences))]

    def bm25(self, n_sentences: int) -> Bm25Index:
        """BM25 over the first `n_sentences` sentences (IDF over those only), built once per size (a view)."""
        index = self._bm25.get(n_sentences)
        if index is None:
            if len(self._bm25) >= 4:  # a handful of reader positions at a time; the oldest goes
                self._bm25.pop(next(iter(self._bm25)))
            index = self._bm25[n_sentences] = Bm25Index(tokens=self.tokens[:n_sentences])
        return index


def _spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int]]:
    """Where each sentence lies in `text`: the splitter cuts only at white space and keeps every word in order, so
    the k-th sentence is the run of words after the words of the sentences before it."""
    words = [(m.start(), m.end()) for m in _WORDS.finditer(text)]
    out, at = [], 0
    for sentence in sentences:
        k = max(len(sentence.split()), 1)
        first, last = words[min(at, len(words) - 1)], words[min(at + k, len(words)) - 1]
        out.append((first[0], last[1]))
        at += k
    return out
