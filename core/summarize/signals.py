"""What the book's knowledge graph says about one chapter, in the form extractive summaries choose sentences by: the
chapter's main characters, its facts with the sentence each was read from, the relationships that start in it, and
the characters that arrive in it.

    signals = chapter_signals(load_graph_data(store, work_id), 3)
    signals.main          # ("Scrooge", "Marley's Ghost"): the most mentioned characters of chapter 3, entity labels
    signals.facts[0]      # SentenceFact("Scrooge saw the ghost.", "Scrooge", "Marley's Ghost", "see", new=True)

Facts, mentions and relationships come from chapters up to k only; which names are one entity (and the label it is
shown by) is the book's resolution, as on the Graph page.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from core.kg.graph import GraphData
from core.kg.types import INTERACTION_RELATIONS

MAIN_CHARACTERS = 3            # at most this many main characters per chapter...
MAIN_SHARE = 0.25              # ...each with at least this share of the most mentioned one's mentions
ARRIVAL_MIN_MENTIONS = 2       # a character first named in the chapter "arrives" if named at least this often


@dataclass(frozen=True)
class SentenceFact:
    """A graph fact of the chapter: its sentence (as the extractor read it), its ends as entity labels (None where
    the end is not an entity), its predicate, and whether it joins two entities joined by nothing before."""

    sentence: str
    subject: str | None
    object: str | None
    predicate: str
    new: bool = False
    interaction: bool = False   # "appears with", "speaks to": who is with whom, not what happens


@dataclass(frozen=True)
class ChapterSignals:
    chapter: int
    main: tuple[str, ...] = ()
    facts: tuple[SentenceFact, ...] = ()
    arrivals: frozenset[str] = frozenset()
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)   # entity label -> its names in the chapter

    @property
    def empty(self) -> bool:
        return not self.facts and not self.main


def chapter_signals(data: GraphData, chapter: int) -> ChapterSignals:
    """The signals of `chapter` from a work's graph (core.services.kg_views.load_graph_data)."""
    mentions: dict[str, int] = defaultdict(int)
    names: dict[str, set[str]] = defaultdict(set)
    types: dict[str, str] = {}
    for name, by_chapter in data.counts.items():
        entity = data.name_to_entity.get(name)
        if entity is not None and by_chapter.get(chapter, 0) > 0:
            mentions[entity.label] += by_chapter[chapter]
            names[entity.label].add(name)
            types[entity.label] = entity.type
    characters = sorted((label for label in mentions if types[label] == "character"),
                        key=lambda label: (-mentions[label], label))
    top = mentions[characters[0]] if characters else 0
    main = tuple(c for c in characters[:MAIN_CHARACTERS] if mentions[c] >= MAIN_SHARE * top)
    first_chapter = {e.label: e.first_chapter for e in data.entities}
    arrivals = frozenset(c for c in characters if first_chapter.get(c) == chapter
                         and mentions[c] >= ARRIVAL_MIN_MENTIONS)

    def label(name: str | None) -> str | None:
        entity = data.name_to_entity.get(name) if name else None
        return entity.label if entity is not None else None

    joined_before: set[frozenset[str]] = set()
    for t in data.edges:
        if t.chapter_index < chapter:
            ends = {label(t.subject_name), label(t.object_name)} - {None}
            if len(ends) == 2:
                joined_before.add(frozenset(e for e in ends if e))
    facts: list[SentenceFact] = []
    for t in data.edges:
        if t.chapter_index != chapter:
            continue
        subject, obj = label(t.subject_name), label(t.object_name)
        pair = frozenset(e for e in (subject, obj) if e)
        interaction = t.relation in INTERACTION_RELATIONS
        facts.append(SentenceFact(" ".join(t.sentence.split()), subject, obj, t.predicate,
                                  new=len(pair) == 2 and pair not in joined_before and not interaction,
                                  interaction=interaction))
    return ChapterSignals(chapter, main, tuple(facts), arrivals, {k: tuple(sorted(v)) for k, v in names.items()})
