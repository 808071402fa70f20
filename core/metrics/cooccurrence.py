"""From one chapter's extraction to resolved characters and relationships, with how often each occurs.

Relationships follow the Remember Me paper: "extracted based on character co-occurrence in text windows and
verb-based dependency recognition". The paper does not give its window size; ours is a parameter
(`window_sentences`, default 3: a sentence and the two after it), and a relationship is an unordered pair of
canonical names.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from core.metrics.extract import PERSON, ChapterMentions

Pair = tuple[str, str]
DEFAULT_WINDOW = 3


def pair(a: str, b: str) -> Pair:
    """The unordered pair as a sorted tuple, so (Darcy, Elizabeth) and (Elizabeth, Darcy) are one relationship."""
    return (a, b) if a <= b else (b, a)


@dataclass
class ChapterCounts:
    """Mentions per character, and evidence per relationship (co-occurring windows plus verb links)."""

    characters: Counter[str] = field(default_factory=Counter)
    relationships: Counter[Pair] = field(default_factory=Counter)
    verb_pairs: set[Pair] = field(default_factory=set)


def count_chapter(extraction: ChapterMentions, resolve: Callable[[str], str | None],
                  window_sentences: int = DEFAULT_WINDOW, verb_links: bool = True,
                  min_pair_count: int = 1) -> ChapterCounts:
    """Resolve every mention and count relationships.

    Co-occurrence: for each sentence s that mentions a character, every other character mentioned in sentences
    s .. s + window_sentences - 1 co-occurs with it once (so window 1 means "in the same sentence"). A verb link
    adds one more. Pairs seen fewer than `min_pair_count` times in the chapter are dropped; 1 keeps all, as the
    paper does.
    """
    if window_sentences < 1:
        raise ValueError("The co-occurrence window is at least one sentence.")
    cache: dict[str, str | None] = {}

    def canonical(surface: str) -> str | None:
        if surface not in cache:
            cache[surface] = resolve(surface)
        return cache[surface]

    out = ChapterCounts()
    by_sentence: dict[int, set[str]] = defaultdict(set)
    for sentence, surface, _ in extraction.mentions:
        name = canonical(surface)
        if name:
            out.characters[name] += 1
            by_sentence[sentence].add(name)
    for s, names in by_sentence.items():
        nearby = set().union(*(by_sentence.get(s + d, set()) for d in range(window_sentences)))
        # each unordered pair once per anchor sentence, whichever of the two is in the anchor
        out.relationships.update({pair(a, b) for a in names for b in nearby if a != b})
    if verb_links:
        for subj, obj in extraction.verb_links:
            a, b = canonical(subj), canonical(obj)
            if a and b and a != b:
                out.relationships[pair(a, b)] += 1
                out.verb_pairs.add(pair(a, b))
    if min_pair_count > 1:
        out.relationships = Counter({p: n for p, n in out.relationships.items() if n >= min_pair_count})
    return out


def surface_counts(extractions: list[ChapterMentions]) -> Counter[str]:
    """How often each raw surface form labelled PERSON is mentioned across a work: the input of the default alias
    resolver (the paper's NER characters)."""
    return Counter(surface for e in extractions for _, surface, label in e.mentions if label == PERSON)
