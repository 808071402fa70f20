"""Loops in finished text: a sentence or a word 8-gram that comes back more than twice in a loop is cut, keeping the
first occurrence, and the result says so. Pure functions; used where generated text becomes a result (chapters and
continuations in write_service; summaries and answers call `check_text` the same way).

    checked = check_text(reply.text)
    text = checked.text                    # the text up to where the loop began (the whole text when none)
    if checked.cut:
        notes.append(checked.note)         # "Repetition cut: ..." for the page, next to the result

Three kinds of loop are cut: the same passage (a sentence, or any run of 8 words) written three times in a row; a
sentence or an 8-gram coming back a third time with little between (a loop that varies a word each turn); and a
template loop, sentence after sentence on one pattern ("The dog that was a dog. The man that was a man. ...").
A loop and a refrain differ in what lies between the occurrences: in a loop (a small model writing "The man in the
red sweater." twenty times, or one sentence forty times after three paragraphs) the text between the second and
third occurrence is itself mostly repetition; a refrain ("Bah! Humbug!", a character's catch phrase, a repeated line
of dialogue) comes back among new text. Sentences shorter than SENTENCE_MIN_WORDS count only through 8-grams, so a
short line said three times is a refrain, while the same line forty times in a row (its 8-grams repeat) is a loop.
`repetition_stats` gives the shares bench/degeneration.py reports for generated text and for the books themselves.
"""
from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

NGRAM = 8                 # words in the n-gram unit
MAX_OCCURRENCES = 2       # a unit may come twice; a third time in a loop is cut
SENTENCE_MIN_WORDS = 5    # shorter sentences ("Yes, sir.", "Bah! Humbug!") count only through their 8-grams
LOOP_DENSITY = 0.5        # a loop: at least this share of the units between the 2nd and 3rd occurrence are repeats
# An 8-gram three times within this many words is a loop whatever lies between (a loop varying a word each turn, of
# up to about 30 words a turn). In the 230 chapters of the 11 shared novels no 8-gram comes three times within a
# chapter except in Alice's Lobster Quadrille, 146 words from the first to the third; a song with a shorter verse
# between its choruses (tests/unit/test_textguard.py: 88 words) stays whole too.
NEAR_SPAN = 60

_WORD = re.compile(r"\S+")
_NORMAL = re.compile(r"[^\w']+")
# A sentence ends at . ! ? or … (with closing quotes or brackets) before white space, or at a blank line.
_SENTENCE_END = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019)\]]*(?=\s)|\n\s*\n")

# A template loop: this many sentences (or lines) in a row, each a near-copy of the one before (SequenceMatcher ratio
# of their words at least TEMPLATE_SIMILARITY, TEMPLATE_MIN_WORDS words or more): "The dog that was a dog. The man
# that was a man. The woman that was a woman. ..." (Gemma's summary of The Call of the Wild, chapter 1, with the
# n-gram guard). In the 230 chapters of the 11 shared novels the longest such run is 2.
TEMPLATE_RUN = 3
TEMPLATE_SIMILARITY = 0.6
TEMPLATE_MIN_WORDS = 4
_LINE = re.compile(r"\n")

Kind = Literal["sentence", "8-gram", "pattern"]


@dataclass(frozen=True)
class Repetition:
    """The repeated unit a loop was found on: the sentence or 8-gram as first written, and how often the whole text
    had it."""

    kind: Kind
    unit: str
    occurrences: int


@dataclass(frozen=True)
class CheckedText:
    """`text`: what to show (the original when nothing was cut); `cut_words` of `total_words` were left out."""

    text: str
    total_words: int
    cut_words: int = 0
    repetition: Repetition | None = None

    @property
    def cut(self) -> bool:
        return self.repetition is not None

    @property
    def note(self) -> str:
        """One line for the page next to the result ("" when nothing was cut)."""
        rep = self.repetition
        if rep is None:
            return ""
        unit = rep.unit if len(rep.unit) <= 80 else rep.unit[:77].rstrip() + "…"
        ends = f"so the text ends where the loop began ({self.cut_words:,} of {self.total_words:,} words left out)."
        if rep.kind == "pattern":
            return (f"Repetition cut: the model wrote {rep.occurrences} sentences in a row on one pattern, like "
                    f"“{unit}”, {ends}")
        what = "the sentence" if rep.kind == "sentence" else "the words"
        return f"Repetition cut: the model wrote {what} “{unit}” {rep.occurrences} times in a loop, {ends}"


class _Parsed:
    """The text's sentences (character spans) and words, read once: each word's normalized form, character span and
    sentence; each sentence's comparison key (its normalized words joined) and word count."""

    def __init__(self, text: str) -> None:
        self.sentences: list[tuple[int, int]] = []
        start = 0
        for m in _SENTENCE_END.finditer(text):
            if text[start:m.end()].strip():
                self.sentences.append((start, m.end()))
            start = m.end()
        if text[start:].strip():
            self.sentences.append((start, len(text)))
        self.norms: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.sentence_of: list[int] = []
        self.keys: list[str] = []
        self.sizes: list[int] = []
        for index, (begin, finish) in enumerate(self.sentences):
            first = len(self.norms)
            for m in _WORD.finditer(text, begin, finish):
                norm = _NORMAL.sub("", m.group().lower()).strip("'")
                if norm:
                    self.norms.append(norm)
                    self.starts.append(m.start())
                    self.ends.append(m.end())
                    self.sentence_of.append(index)
            self.keys.append(" ".join(self.norms[first:]))
            self.sizes.append(len(self.norms) - first)


def _long(keys: Sequence[str], sizes: Sequence[int]) -> list[str | None]:
    """The keys of sentences of SENTENCE_MIN_WORDS words or more; None for shorter ones."""
    return [k if n >= SENTENCE_MIN_WORDS else None for k, n in zip(keys, sizes)]


def _first_cycle(keys: Sequence[object], weight: Sequence[int] | None = None, least: int = 0,
                 span: int = 0) -> tuple[int, int, int] | None:
    """(first, second, third) positions of the first unit that comes three times in a row with the same stretch
    between: the passage from its first occurrence to its second, written three times over (an exact loop). With
    `weight` (words per unit), a passage of fewer than `least` words does not count (a short line said three times
    in a row is a refrain). With `span`, three occurrences within `span` units count too, whatever lies between
    them (a loop that varies a word each turn: "so write 10 words. ... so write 3 words. ... so write 2 words.")."""
    seen: dict[object, list[int]] = {}
    for i, key in enumerate(keys):
        places = seen.setdefault(key, [])
        places.append(i)
        if len(places) > MAX_OCCURRENCES:
            first, second = places[-3], places[-2]
            if i - first <= span or (second - first == i - second and keys[first:second] == keys[second:i]
                                     and (weight is None or sum(weight[first:second]) >= least)):
                return first, second, i
    return None


def _first_dense(keys: Sequence[str], sizes: Sequence[int]) -> tuple[int, int, int] | None:
    """(first, second, third) positions of the first sentence of SENTENCE_MIN_WORDS words or more whose third
    occurrence closes a loop with some variation ("A. B. A. C. A."): at least LOOP_DENSITY of the two or more
    sentences from its second occurrence up to the third are ones written before."""
    seen: dict[str, list[int]] = {}
    repeat = [False] * len(keys)
    for i, key in enumerate(keys):
        places = seen.setdefault(key, [])
        repeat[i] = bool(places)
        places.append(i)
        if len(places) > MAX_OCCURRENCES and sizes[i] >= SENTENCE_MIN_WORDS:
            first, second = places[-3], places[-2]
            between = range(second, i)
            if len(between) > 1 and sum(repeat[j] for j in between) >= LOOP_DENSITY * len(between):
                return first, second, i
    return None


def _first_template(text: str, parsed: _Parsed) -> tuple[int, int, str] | None:
    """(where the second sentence of the first template loop starts, how many sentences the run has, its first
    sentence), or None. Sentences are split at line ends too (a model's looping lines end in commas)."""
    pieces: list[list[int]] = []  # word indices of each sentence or line
    for i in range(len(parsed.norms)):
        if not pieces or parsed.sentence_of[i] != parsed.sentence_of[i - 1] or \
                "\n" in text[parsed.ends[i - 1]:parsed.starts[i]]:
            pieces.append([])
        pieces[-1].append(i)
    words = [[parsed.norms[i] for i in piece] for piece in pieces]

    def alike(j: int) -> bool:  # piece j a near-copy of piece j - 1 (the cheap upper bounds first)
        a, b = words[j - 1], words[j]
        if min(len(a), len(b)) < TEMPLATE_MIN_WORDS:
            return False
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        return (matcher.real_quick_ratio() >= TEMPLATE_SIMILARITY and matcher.quick_ratio() >= TEMPLATE_SIMILARITY
                and matcher.ratio() >= TEMPLATE_SIMILARITY)
    run = 0
    for j in range(1, len(pieces)):
        run = run + 1 if alike(j) else 0
        if run >= TEMPLATE_RUN:
            first, end = j - run, j + 1
            while end < len(pieces) and alike(end):
                end += 1
            head = pieces[first]
            unit = " ".join(text[parsed.starts[head[0]]:parsed.ends[head[-1]]].split())
            return parsed.starts[pieces[first + 1][0]], end - first, unit
    return None


def _ngram_keys(norms: Sequence[str]) -> list[tuple[str, ...]]:
    return [tuple(norms[i:i + NGRAM]) for i in range(len(norms) - NGRAM + 1)]


def check_text(text: str) -> CheckedText:
    """`text` with its first loop cut (see the module's docstring), or as it is. The cut keeps the first
    occurrence and everything before the second; where the second starts a sentence of its own (or inside one that
    begins after the first occurrence) the cut falls at that sentence's start, else at the word."""
    parsed = _Parsed(text)
    sentences, keys, sizes = parsed.sentences, parsed.keys, parsed.sizes
    cuts: list[tuple[int, Repetition]] = []
    if (found := _first_cycle(keys, sizes, SENTENCE_MIN_WORDS)) is not None:
        first, second, _ = found  # the passage from the first to the second occurrence, written three times
        unit = " ".join(text[sentences[first][0]:sentences[second][0]].split())
        cuts.append((sentences[second][0], Repetition("sentence", unit, keys.count(keys[first]))))
    if (found := _first_dense(keys, sizes)) is not None:
        first, second, _ = found
        unit = " ".join(text[sentences[first][0]:sentences[first][1]].split())
        cuts.append((sentences[second][0], Repetition("sentence", unit, keys.count(keys[first]))))
    grams = _ngram_keys(parsed.norms)
    if (found := _first_cycle(grams, span=NEAR_SPAN)) is not None:
        first, second, _ = found
        begins = sentences[parsed.sentence_of[second]][0]
        cut = begins if begins > parsed.starts[first] else parsed.starts[second]
        unit = " ".join(text[parsed.starts[first]:parsed.ends[first + NGRAM - 1]].split())
        cuts.append((cut, Repetition("8-gram", unit, grams.count(grams[first]))))
    if (template := _first_template(text, parsed)) is not None:
        at, length, unit = template
        cuts.append((at, Repetition("pattern", unit, length)))
    total = len(parsed.norms)
    if not cuts:
        return CheckedText(text, total)
    cut, repetition = min(cuts, key=lambda c: c[0])
    dropped = total - bisect.bisect_left(parsed.starts, cut)
    return CheckedText(text[:cut].rstrip(), total, dropped, repetition)


@dataclass(frozen=True)
class RepetitionStats:
    """What bench/degeneration.py counts in one text: 8-gram positions whose 8-gram came earlier in the text, and
    sentences (of SENTENCE_MIN_WORDS words or more) whose text the whole text has more than twice."""

    ngrams: int
    repeated_ngrams: int
    sentences: int
    repeated_sentences: int

    @property
    def ngram_share(self) -> float:
        return self.repeated_ngrams / self.ngrams if self.ngrams else 0.0

    @property
    def sentence_share(self) -> float:
        return self.repeated_sentences / self.sentences if self.sentences else 0.0


def repetition_stats(text: str) -> RepetitionStats:
    parsed = _Parsed(text)
    grams = _ngram_keys(parsed.norms)
    keys = [k for k in _long(parsed.keys, parsed.sizes) if k is not None]
    counts: dict[str, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    looped = sum(1 for key in keys if counts[key] > MAX_OCCURRENCES)
    return RepetitionStats(len(grams), len(grams) - len(set(grams)), len(keys), looped)
