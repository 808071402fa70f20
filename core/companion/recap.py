"""The "Previously…" recap: what happened in chapters a..b, in the book's own sentences, each with its chapter.

    picked = recap([(k, store.get_chapter(w, k).text) for k in range(a, b + 1)], data, target_words=300)
    picked.sentences[0].chapter, picked.sentences[0].text, picked.sentences[0].reasons

No language model: each chapter's sentences are scored as the extractive chapter summaries score them
(as core.summarize.extractive does: SumBasic salience mixed with the graph's points for the main characters' events, new
relationships, deaths and arrivals), with two changes for a recap of many chapters:
- the main characters are those of the whole range (the most named in chapters a..b), not of each chapter, so the
  recap follows the story's people rather than each chapter's passing ones;
- the story states of issue 32 add their points: a death the state layer established (W_DEATH) and a family or
  social tie first stated (W_NEW_RELATION), located at their sentence.
Sentences are then taken best first across the range while they fit the length (none over a quarter of it, as the
summaries: core.summarize.extractive.longest), each further sentence of a chapter
counting CHAPTER_DECAY times less (so a long range is covered rather than its busiest chapter), none repeating a taken
one and none cut out of a quotation (quoted_sentences: half a speech), and printed in story order. The graph of
each chapter k reads only chapters up to k (chapter_signals), and the sentences come from chapters a..b: nothing
after b can enter.
"""
from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from core.continuity.summary import NOT_STATED
from core.kg.characters import is_character
from core.kg.graph import GraphData
from core.stopwords import ENGLISH
from core.summarize.extractive import (DIALOGUE_FACTOR, GRAPH_SHARE, MIN_WORDS, REDUNDANT, W_DEATH, W_NEW_RELATION,
                                       SentenceIndex, chapter_sentences, graph_points, longest)
from core.summarize.extractive import salience as extractive_salience   # with this module's content words
from core.summarize.quotes import quoted_sentences
from core.summarize.signals import chapter_signals

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_OPENING_QUOTE = ("“", '"', "‘", "'")
MAIN_CHARACTERS = 5          # the range's main characters: the most named in chapters a..b
CHAPTER_DECAY = 0.6          # each further sentence of one chapter counts this much less than the one before
GRAPH_CAP = 4.0              # as core.summarize.extractive: a sentence's graph points are capped here


@dataclass(frozen=True)
class RecapSentence:
    chapter: int
    index: int                    # its position among the chapter's sentences (0-based)
    text: str
    score: float
    reasons: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {"sentence": self.text, "chapter": self.chapter, "index": self.index, "score": round(self.score, 4),
                "reasons": list(self.reasons)}


@dataclass
class Recap:
    first: int
    last: int
    target_words: int
    sentences: list[RecapSentence]
    words: int
    used_graph: bool
    main: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)


def range_main(data: GraphData, first: int, last: int, k: int = MAIN_CHARACTERS) -> tuple[str, ...]:
    """The `k` characters (entity labels) most named in chapters first..last."""
    mentions: Counter[str] = Counter()
    for name, by_chapter in data.counts.items():
        entity = data.name_to_entity.get(name)
        if entity is not None and is_character(entity.type):
            mentions[entity.label] += sum(n for c, n in by_chapter.items() if first <= c <= last)
    return tuple(label for label, n in sorted(mentions.items(), key=lambda ln: (-ln[1], ln[0]))[:k] if n > 0)


def _content(sentence: str) -> list[str]:
    """Content words: lower-cased, longer than two letters, no function word (core.stopwords; the extractive
    summaries use spaCy's list, whose import would cost a reader's first recap a second or more)."""
    return [w for w in (m.group().lower().strip("'’-") for m in _WORD.finditer(sentence))
            if len(w) > 2 and w not in ENGLISH]


def salience(sentences: Sequence[str]) -> list[float]:
    """SumBasic salience (core.summarize.extractive.salience) over this module's content words."""
    return extractive_salience(sentences, _content)


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _is_dialogue(sentence: str) -> bool:
    return sentence.lstrip().startswith(_OPENING_QUOTE)


def _state_points(data: GraphData, chapter: int, sentences: Sequence[str]) -> tuple[list[float], list[list[str]]]:
    """Points for the sentences that establish a death or a tie (the state layer's, chapter `chapter` only)."""
    points = [0.0] * len(sentences)
    reasons: list[list[str]] = [[] for _ in sentences]
    index = SentenceIndex(sentences)
    for s in data.states:
        if s.chapter != chapter or s.kind not in ("dead", "tie") or s.cues & NOT_STATED:
            continue
        why, value = ("a death", W_DEATH) if s.kind == "dead" else (f"{s.name}: {s.key} of {s.value}",
                                                                    W_NEW_RELATION)
        for i in index.locate(s.sentence):
            if why not in reasons[i]:
                points[i] += value
                reasons[i].append(why)
    return points, reasons


def score_chapter(data: GraphData | None, chapter: int, text: str,
                  main: tuple[str, ...]) -> tuple[list[str], list[float], list[tuple[str, ...]]]:
    """(sentences, scores in [0, 1], reasons) of one chapter for a recap whose main characters are `main`."""
    sentences = chapter_sentences(text)
    if not sentences:
        return [], [], []
    sal = salience(sentences)
    reasons: list[tuple[str, ...]] = [() for _ in sentences]
    scores = list(sal)
    if data is not None and data.chapters >= chapter:
        signals = chapter_signals(data, chapter)
        signals = replace(signals, main=tuple(c for c in main if c in signals.names))
        points, why = graph_points(sentences, signals)
        extra, extra_why = _state_points(data, chapter, sentences)
        points = [min(p + e, GRAPH_CAP) for p, e in zip(points, extra)]
        top = max(points, default=0.0)
        if top > 0:
            scores = [(1 - GRAPH_SHARE) * s + GRAPH_SHARE * p / top for s, p in zip(sal, points)]
        reasons = [tuple(dict.fromkeys([*a, *b])) for a, b in zip(why, extra_why)]
    scores = [s * (DIALOGUE_FACTOR if _is_dialogue(sentences[i]) else 1.0) for i, s in enumerate(scores)]
    top = max(scores, default=0.0)
    return sentences, [s / top if top > 0 else 0.0 for s in scores], reasons


def recap(chapters: Sequence[tuple[int, str]], data: GraphData | None, target_words: int,
          decay: float = CHAPTER_DECAY) -> Recap:
    """The recap of `chapters` ((index, text) in story order) within `target_words` words (see the module)."""
    if not chapters:
        raise ValueError("No chapters to recap.")
    if target_words < MIN_WORDS:
        raise ValueError(f"A recap needs at least {MIN_WORDS} words.")
    first, last = chapters[0][0], chapters[-1][0]
    used_graph = data is not None and data.chapters >= first
    main = range_main(data, first, last) if data is not None else ()
    pool: list[tuple[int, int, str, float, tuple[str, ...]]] = []     # chapter, index, text, score, reasons
    cut: set[tuple[int, str]] = set()
    for k, text in chapters:
        sentences, scores, reasons = score_chapter(data, k, text, main)
        pool.extend((k, i, s, sc, reasons[i]) for i, (s, sc) in enumerate(zip(sentences, scores)))
        cut.update((k, s) for s, is_cut in quoted_sentences(text) if is_cut)
    if not pool:
        raise ValueError("These chapters have no text to recap.")
    whole = [p for p in pool if (p[0], p[2]) not in cut]   # half a speech is no recap sentence, unless all are
    pool = whole or pool
    chosen = _choose(pool, target_words, decay)
    notes = [] if used_graph else ["No knowledge graph covers these chapters yet: sentences were chosen by salience "
                                   "alone. Build the graph to prefer the main characters' events."]
    if not chosen:
        best = max(pool, key=lambda p: p[3])
        words = best[2].split()[:max(target_words - 1, 1)]
        picked = [RecapSentence(best[0], best[1], " ".join(words) + " …", best[3], best[4])]
        notes.append("Every sentence is longer than the length asked: the best one is cut.")
    else:
        picked = [RecapSentence(k, i, " ".join(s.split()), sc, r) for k, i, s, sc, r in chosen]
    return Recap(first, last, target_words, picked, sum(len(p.text.split()) for p in picked), used_graph, main, notes)


def _choose(pool: list[tuple[int, int, str, float, tuple[str, ...]]], target: int,
            decay: float) -> list[tuple[int, int, str, float, tuple[str, ...]]]:
    """Best first while they fit; a chapter's n-th sentence counts decay**n of its score (lazy greedy: a popped
    sentence whose chapter gained a sentence since it was pushed is pushed again at its new value)."""
    lengths = [len(p[2].split()) for p in pool]
    cap = longest(target, lengths)
    words = [set(_content(p[2])) for p in pool]
    taken_in: Counter[int] = Counter()
    heap = [(-p[3], i, 0) for i, p in enumerate(pool)]
    heapq.heapify(heap)
    taken: list[int] = []
    used = 0
    while heap and target - used >= MIN_WORDS:
        _, i, seen = heapq.heappop(heap)
        chapter = pool[i][0]
        if seen != taken_in[chapter]:
            heapq.heappush(heap, (-pool[i][3] * decay ** taken_in[chapter], i, taken_in[chapter]))
            continue
        if used + lengths[i] > target or lengths[i] > cap or (lengths[i] < MIN_WORDS and len(pool) > 1):
            continue
        if any(_overlap(words[i], words[j]) >= REDUNDANT for j in taken):
            continue
        taken.append(i)
        used += lengths[i]
        taken_in[chapter] += 1
    return [pool[i] for i in sorted(taken, key=lambda i: (pool[i][0], pool[i][1]))]
