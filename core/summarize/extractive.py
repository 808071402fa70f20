"""Extractive chapter summaries: the chapter's own sentences, chosen with the knowledge graph and by salience,
fitted to a length and kept in story order. No language model: what the small embedded models cannot do well
(they loop, or copy the chapter's opening), the book's own words do honestly.

    extract = extractive_summary(chapter_text, chapter_signals(data, k), target_words=150)
    extract.text          # the chosen sentences in story order, at most 150 words
    extract.sentences     # each with its index in the chapter, its score and why it was chosen

A sentence scores by two things:
- salience: how much of the chapter's vocabulary it carries (SumBasic: the chapter frequencies of its content words,
  summed over its distinct words, over the square root of its length, so a long sentence is not favoured for length);
- the graph (core.summarize.signals), when the chapter has one: a fact read from the sentence whose subject or object
  is one of the chapter's main characters (an event of theirs), a relationship that starts in this chapter, a death,
  the first sentence that names a character new to the book; and the main characters it names.
The two are scaled to [0, 1] and mixed (GRAPH_SHARE). Sentences are then taken best first while they fit the length,
skipping one that repeats most of the words of one already taken and one cut out of a quotation (core.summarize.quotes:
'I said, "The blockade, sir?' is half a speech), and printed in the order the chapter has them.
"""
from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.ingest.sentences import split_sentences
from core.nlp import clean_for_parsing
from core.summarize.quotes import quoted_sentences
from core.summarize.signals import ChapterSignals


@functools.cache
def _stop_words() -> frozenset[str]:
    """spaCy's English stop words, imported on first use: importing spaCy brings torch, which the packages that
    import core.summarize (the Store protocol, the LLM services) must not pay for."""
    from spacy.lang.en.stop_words import STOP_WORDS
    return frozenset(STOP_WORDS)


TOKENS_PER_WORD = 1.3          # English BPE tokenizers give about 1.3 tokens a word (summary_service's estimate)
GRAPH_SHARE = 0.6              # the graph's part of a sentence's score when the chapter has a graph
W_MAIN_EVENT, W_NEW_RELATION, W_DEATH, W_ARRIVAL, W_MAIN_NAMED = 1.0, 1.5, 2.0, 1.5, 0.25
GRAPH_CAP = 4.0                # one sentence's graph points are capped here (a list of names is not an event)
MIN_WORDS = 5                  # shorter sentences ("Yes.", "He left.") say too little out of their context
LONGEST_SHARE, LONGEST_FLOOR = 4, 40   # a sentence takes at most a quarter of the length asked (at least 40 words)
REDUNDANT = 0.5                # a sentence sharing this share of its content words with a chosen one is skipped
DIALOGUE_FACTOR = 0.8          # a line of dialogue is kept a little less often than narration
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_DEATH = re.compile(r"\b(?:di(?:e|es|ed|ing)|dead|death|kill(?:s|ed|ing)?|murder(?:s|ed)?|drown(?:s|ed)?|buried|"
                    r"bur(?:y|ies)|shot|hanged|perish(?:es|ed)?|slain|slew|funeral|corpse)\b", re.IGNORECASE)
_OPENING_QUOTE = ("“", '"', "‘", "'")


@dataclass(frozen=True)
class Chosen:
    index: int                  # the sentence's position in the chapter (0-based)
    text: str
    score: float
    reasons: tuple[str, ...] = ()


@dataclass
class Extract:
    text: str
    sentences: list[Chosen]
    total_sentences: int
    words: int
    target_words: int
    used_graph: bool
    notes: list[str] = field(default_factory=list)


def target_words(summary_tokens: int) -> int:
    """The most words a summary of `summary_tokens` tokens may have."""
    return max(math.floor(summary_tokens / TOKENS_PER_WORD + 1e-9), 1)


def chapter_sentences(text: str) -> list[str]:
    """The chapter's sentences as the reader sees them (hard-wrapped lines joined, paragraph breaks kept)."""
    return [s for s in split_sentences(clean_for_parsing(text)) if s.strip()]


def _content(sentence: str) -> list[str]:
    return [w for w in (m.group().lower().strip("'’-") for m in _WORD.finditer(sentence))
            if len(w) > 2 and w not in _stop_words()]


def salience(sentences: Sequence[str], content: Callable[[str], list[str]] | None = None) -> list[float]:
    """SumBasic salience of each sentence, scaled so the most salient is 1. `content`: a sentence's content words
    (this module's own by default; the recap brings its stop list)."""
    words = [(content or _content)(s) for s in sentences]
    counts = Counter(w for ws in words for w in ws)
    total = sum(counts.values()) or 1
    raw = [sum(counts[w] / total for w in set(ws)) / math.sqrt(len(ws)) if ws else 0.0 for ws in words]
    top = max(raw, default=0.0)
    return [r / top if top > 0 else 0.0 for r in raw]


def _normalized(text: str) -> str:
    return " ".join(text.split())


class SentenceIndex:
    """The chapter's sentences joined, to find where a fact's sentence lies: the graph's parser may cut sentences
    differently, so a fact's sentence is found in the joined text and mapped to every sentence it overlaps."""

    def __init__(self, sentences: Sequence[str]) -> None:
        self.sentences = sentences
        self.starts: list[int] = []
        pos = 0
        for s in sentences:
            self.starts.append(pos)
            pos += len(s) + 1
        self.joined = " ".join(sentences)

    def locate(self, fact_sentence: str) -> list[int]:
        needle = _normalized(fact_sentence)
        at = self.joined.find(needle) if needle else -1
        if at < 0:
            return []
        end = at + len(needle)
        return [i for i, s in enumerate(self.starts) if s < end and s + len(self.sentences[i]) > at]


def graph_points(sentences: Sequence[str], signals: ChapterSignals) -> tuple[list[float], list[list[str]]]:
    """Each sentence's graph points and the reasons for them (see the module docstring)."""
    points = [0.0] * len(sentences)
    reasons: list[list[str]] = [[] for _ in sentences]
    main = set(signals.main)
    index = SentenceIndex(sentences)

    def add(i: int, value: float, why: str) -> None:  # each reason counts once per sentence
        if why not in reasons[i]:
            points[i] += value
            reasons[i].append(why)

    for fact in signals.facts:
        at = index.locate(fact.sentence)
        ends = {e for e in (fact.subject, fact.object) if e}
        for i in at:
            if fact.new:
                add(i, W_NEW_RELATION, f"new relationship: {' and '.join(sorted(ends))}")
            elif ends & main and not fact.interaction:
                add(i, W_MAIN_EVENT, f"event of {', '.join(sorted(ends & main))}")
            if ends and _DEATH.search(fact.predicate):
                add(i, W_DEATH, "a death")
    for i, sentence in enumerate(sentences):
        named = [c for c in signals.main if any(_names_in(n, sentence) for n in signals.names.get(c, (c,)))]
        if named:
            points[i] += W_MAIN_NAMED * min(len(named), 2)
        if named and _DEATH.search(sentence) and "a death" not in reasons[i]:
            add(i, W_DEATH, "a death")
    for character in sorted(signals.arrivals):
        first = next((i for i, s in enumerate(sentences)
                      if any(_names_in(n, s) for n in signals.names.get(character, (character,)))), None)
        if first is not None:
            add(first, W_ARRIVAL, f"{character} first appears")
    return [min(p, GRAPH_CAP) for p in points], reasons


def _names_in(name: str, sentence: str) -> bool:
    return bool(name) and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", sentence) is not None


def _is_dialogue(sentence: str) -> bool:
    return sentence.lstrip().startswith(_OPENING_QUOTE)


def extractive_summary(text: str, signals: ChapterSignals | None, target: int) -> Extract:
    """The chapter's best sentences within `target` words, in story order (see the module docstring)."""
    sentences = chapter_sentences(text)
    if not sentences:
        raise ValueError("The chapter has no text to summarize.")
    sal = salience(sentences)
    used_graph = signals is not None and not signals.empty
    if used_graph and signals is not None:
        points, reasons = graph_points(sentences, signals)
        top = max(points, default=0.0)
        graph = [p / top if top > 0 else 0.0 for p in points]
        scores = [(1 - GRAPH_SHARE) * s + GRAPH_SHARE * g for s, g in zip(sal, graph)]
    else:
        reasons = [[] for _ in sentences]
        scores = list(sal)
    scores = [s * (DIALOGUE_FACTOR if _is_dialogue(sentences[i]) else 1.0) for i, s in enumerate(scores)]
    cut = {sentence for sentence, is_cut in quoted_sentences(text) if is_cut}   # half a speech reads wrongly alone
    chosen = choose(sentences, scores, target, skip={i for i, sentence in enumerate(sentences) if sentence in cut})
    chosen = chosen or choose(sentences, scores, target)
    notes = [] if used_graph else ["The chapter has no knowledge graph yet: sentences were chosen by salience alone. "
                                   "Build the graph to prefer the main characters' events."]
    if not chosen:  # every sentence is longer than the length asked: the best one, cut
        best = max(range(len(sentences)), key=lambda i: scores[i])
        words = sentences[best].split()[:max(target - 1, 1)]
        picked = [Chosen(best, " ".join(words) + " …", scores[best], tuple(reasons[best]))]
        notes.append("Every sentence is longer than the length asked: the best one is cut.")
    else:
        picked = [Chosen(i, sentences[i], scores[i], tuple(reasons[i])) for i in chosen]
    body = " ".join(c.text for c in picked)
    return Extract(body, picked, len(sentences), len(body.split()), target, used_graph, notes)


def longest(target: int, lengths: Sequence[int]) -> int:
    """The longest sentence a summary or recap of `target` words takes: a quarter of it, at least LONGEST_FLOOR
    words, unless no sentence of MIN_WORDS or more is that short. Seen in a 250-word recap of The Picture of Dorian
    Gray: one 150-word sentence describing a room took three fifths of it, and two chapters got nothing."""
    cap = max(LONGEST_FLOOR, target // LONGEST_SHARE)
    return cap if any(MIN_WORDS <= n <= cap for n in lengths) else max(lengths, default=cap)


def choose(sentences: Sequence[str], scores: Sequence[float], target: int, skip: set[int] | None = None) -> list[int]:
    """Indices of the sentences taken best first while they fit `target` words, none longer than `longest`, none
    repeating a taken one's words and none in `skip`, in story order."""
    order = sorted((i for i in range(len(sentences)) if i not in (skip or ())), key=lambda i: (-scores[i], i))
    lengths = [len(s.split()) for s in sentences]
    cap = longest(target, [lengths[i] for i in order])
    words = [set(_content(s)) for s in sentences]
    taken: list[int] = []
    used = 0
    for i in order:
        if used + lengths[i] > target or lengths[i] > cap or lengths[i] < MIN_WORDS and len(sentences) > 1:
            continue
        if any(_overlap(words[i], words[j]) >= REDUNDANT for j in taken):
            continue
        taken.append(i)
        used += lengths[i]
        if target - used < MIN_WORDS:
            break
    return sorted(taken)


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0
