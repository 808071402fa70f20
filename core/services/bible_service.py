"""The story bible (issue 34): a card per character, place and thing, built from the work's graph (type, other
names, relationships with their chapters, the continuity states established about it), with the writer's own note
and pinned facts on it.

    for card in cards(store, work_id): ...                   # characters first, then places, then things
    set_note(store, work_id, "Mara Quill", "Secretly the egg's first owner.")
    pin(store, work_id, "Mara Quill", "Mara Quill has green eyes.")       # canon from now on
    seed_from(store, book_id, story_id)                      # a book's bible starts a sequel's or fan fiction's

A pin is canon: desk_context puts it in the writer's prompt for every chapter its entity is in, and the continuity
checker reads its states (parsed once, here, when it is pinned) as established before chapter 1, so a draft that
gives Mara blue eyes is flagged. A pin that does not name its entity ("Her eyes are green.") is read with the
entity's name in place of its first pronoun. Entries are kept by the entity's label and names: a graph rebuild
keeps them.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from core.kg.types import KgEntity
from core.services import continuity_service
from core.store import Store
from core.write.bible import BibleEntry, NewEntry, named_in

TYPE_ORDER = {"character": 0, "organization": 1, "location": 2}   # then every other type (things)
RELATIONSHIPS = 12
SEED_CARDS = 25
_PRONOUN = re.compile(r"^(he|she|they|it|his|her|their|its)\b", re.IGNORECASE)
_POSSESSIVE = {"his", "her", "their", "its"}


@dataclass
class Card:
    """One entity's page of the bible."""

    label: str
    type: str
    aliases: list[str]
    first_chapter: int | None
    mentions: int
    chapters: list[int]
    relationships: list[tuple[int, str]]            # (chapter, "Tomas Voss brother of Elena Voss")
    states: list[str]                               # "Spitz is dead (since chapter 3)"
    note: BibleEntry | None = None
    pins: list[BibleEntry] = field(default_factory=list)

    @property
    def in_graph(self) -> bool:
        return self.first_chapter is not None


def _owner(entities: Sequence[KgEntity]) -> dict[str, KgEntity]:
    return {n: e for e in entities for n in (e.label, *e.aliases)}


def _relationships(store: Store, work_id: int, entities: Sequence[KgEntity]) -> dict[str, list[tuple[int, str]]]:
    owner = _owner(entities)
    out: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for t in store.kg_triples(work_id, kind="edges"):
        a, b = owner.get(t.subject_name or ""), owner.get(t.object_name or "")
        text = " ".join(f"{a.label if a else t.subject} {t.predicate} {b.label if b else t.object}".split())
        for e in {x.label: x for x in (a, b) if x is not None}.values():
            out[e.label].append((t.chapter_index, text))
    return {k: sorted(set(v))[:RELATIONSHIPS] for k, v in out.items()}


def cards(store: Store, work_id: int, query: str = "") -> list[Card]:
    """The bible's cards: every entity of the graph, and every entity the bible names that the graph has not met
    (seeded ones), characters first, most mentioned first. `query` keeps the cards whose names contain it."""
    entities = store.kg_entities(work_id)
    chapters: dict[str, set[int]] = defaultdict(set)
    owner = _owner(entities)
    for c in store.kg_name_counts(work_id):
        if c.name in owner and c.count > 0:
            chapters[owner[c.name].label].add(c.chapter_index)
    relations = _relationships(store, work_id, entities)
    states = continuity_service.states_by_label(store, work_id)
    entries = store.bible_list(work_id)
    out: dict[str, Card] = {}
    for e in entities:
        out[e.label] = Card(e.label, e.type, [a for a in e.aliases if a != e.label], e.first_chapter, e.mentions,
                            sorted(chapters.get(e.label, ())), relations.get(e.label, []), states.get(e.label, []))
    for entry in entries:
        label = entry.entity if entry.entity in out else next(
            (owner[n].label for n in entry.all_names if n in owner), entry.entity)
        card = out.setdefault(label, Card(label, entry.entity_type or "character", list(entry.names), None, 0, [],
                                          [], []))
        if entry.kind == "note":
            card.note = entry
        else:
            card.pins.append(entry)
    wanted = query.strip().lower()
    shown = [c for c in out.values() if not wanted or any(wanted in n.lower() for n in (c.label, *c.aliases))]
    return sorted(shown, key=lambda c: (TYPE_ORDER.get(c.type, 3), -c.mentions, c.label))


def card(store: Store, work_id: int, label: str) -> Card | None:
    return next((c for c in cards(store, work_id) if c.label == label), None)


def set_note(store: Store, work_id: int, entity: str, text: str, *, names: Sequence[str] = (),
             entity_type: str = "") -> BibleEntry | None:
    """The writer's note on an entity, replacing the one before; an empty text removes it (None)."""
    current = next((e for e in store.bible_list(work_id, entity) if e.kind == "note"), None)
    if not text.strip():
        if current is not None:
            store.bible_delete(work_id, current.id)
        return None
    if current is not None:
        NewEntry(entity, "note", text)   # the same checks as a new note (length)
        return store.bible_update(work_id, current.id, text)
    return store.bible_add(work_id, NewEntry(entity, "note", text, tuple(names), entity_type))


def _as_read(entity: str, text: str, names: Sequence[str]) -> str:
    """The pin as the state parser reads it: with the entity's name in place of a leading pronoun when the pin does
    not name the entity."""
    text = " ".join(text.split())
    if named_in(text, (entity, *names)):
        return text
    pronoun = _PRONOUN.match(text)
    if pronoun:
        subject = f"{entity}'s" if pronoun.group(1).lower() in _POSSESSIVE else entity
        return subject + text[pronoun.end():]
    return text


def pin_states(entity: str, texts: Sequence[str], names: Sequence[str] = ()) -> list[list[dict[str, Any]]]:
    """Each pin's story states, as the offline parse reads them (chapter 0: before the story begins)."""
    from core.continuity.locate import locate
    from core.ingest.chunking import chunk_text
    from core.kg.offline import ChapterText, OfflineExtractor
    read = [_as_read(entity, t, names) for t in texts]
    extracted = list(OfflineExtractor().extract([ChapterText(k, chunk_text(t)) for k, t in enumerate(read)]))
    return [[asdict(s) | {"chapter": 0} for s in locate(k, read[k], x.states)] for k, x in enumerate(extracted)]


def pin(store: Store, work_id: int, entity: str, text: str, *, names: Sequence[str] = (),
        entity_type: str = "") -> BibleEntry:
    """Pin a fact on an entity: canon for the writer's prompt and the continuity checker."""
    entry = NewEntry(entity, "pin", text, tuple(names), entity_type)
    (states,) = pin_states(entity, [text], names)
    return store.bible_add(work_id, NewEntry(entry.entity, "pin", entry.text, entry.names, entry.entity_type,
                                             tuple(states)))


def edit_pin(store: Store, work_id: int, entry_id: int, text: str) -> BibleEntry:
    entry = next((e for e in store.bible_list(work_id) if e.id == entry_id and e.kind == "pin"), None)
    if entry is None:
        raise ValueError("That pin is no longer there; reload the bible.")
    NewEntry(entry.entity, "pin", text)
    (states,) = pin_states(entry.entity, [text], entry.names)
    return store.bible_update(work_id, entry_id, text, states)


def remove(store: Store, work_id: int, entry_id: int) -> bool:
    return store.bible_delete(work_id, entry_id)


def seed_from(store: Store, source_id: int, target_id: int, limit: int = SEED_CARDS) -> int:
    """Start the bible of `target_id` (a new story) from `source_id`'s (a book): its `limit` most mentioned
    characters, places and things, each with a note (type, names, first relationships, where it came from) and its
    established states and the book's own pins as pins. Entities the target already has entries for are skipped.
    The number of cards seeded."""
    source = store.get_work(source_id)
    have = {e.entity for e in store.bible_list(target_id)}
    seeded = 0
    for c in cards(store, source_id):
        if seeded >= limit:
            break
        if c.label in have or (not c.in_graph and not c.pins and c.note is None):
            continue
        lines = [f"From “{source.title}”: {c.type}" + (f", also called {', '.join(c.aliases[:6])}" if c.aliases
                                                        else "") + "."]
        lines += [f"- {text} (ch. {chapter})" for chapter, text in c.relationships[:6]]
        if c.note is not None:
            lines.append(c.note.text)
        store.bible_add(target_id, NewEntry(c.label, "note", "\n".join(lines)[:2000], tuple(c.aliases), c.type))
        facts = [s.split(" (since chapter")[0] for s in c.states] + [p.text for p in c.pins]
        facts = list(dict.fromkeys(facts))
        for text, states in zip(facts, pin_states(c.label, facts, c.aliases) if facts else []):
            store.bible_add(target_id, NewEntry(c.label, "pin", text, tuple(c.aliases), c.type, tuple(states)))
        seeded += 1
    return seeded


def lore(store: Store, work_id: int) -> dict[str, dict[str, list[str]]]:
    """Every name -> {"notes": [...], "pins": [...]} of its entity (the lorebook export's extra lines)."""
    out: dict[str, dict[str, list[str]]] = {}
    for c in cards(store, work_id):
        if c.note is None and not c.pins:
            continue
        entry = {"notes": [c.note.text] if c.note else [], "pins": [p.text for p in c.pins]}
        for name in (c.label, *c.aliases):
            out.setdefault(name, entry)
    return out
