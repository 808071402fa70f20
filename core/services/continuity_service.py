"""Continuity use cases (issue 32): keep each chapter's story states, check the work, re-check an edited chapter,
check a draft before it is accepted, mark flags intended, and say what is established about an entity.

    located_states(store, work_id, extraction, revision)         # kg_service: stored with the chapter's graph
    check_work(store, work_id)                                   # kg_service, after a build resolves entities
    recheck_chapter(store, work_id, 12, before=old_states)       # kg_service, after one chapter is re-read
    flags = list_flags(store, work_id)                           # the page and the CLI; intended ones left out
    mark_intended(store, work_id, flag.key)
    check_draft(store, work_id, text)                            # the Write page, before Accept

States come from the offline extractor's parse (core.kg.states), so a graph built by an LLM extractor has none: the
status says so. A chapter's states are stored with the revision they were read from; a chapter whose states are
missing or older than the state extractor is re-read by the next offline build (kg_service asks `stale_chapters`).
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.continuity.checks import check
from core.continuity.locate import locate
from core.continuity.model import Entities, Flag, State
from core.continuity.summary import StateLine, established, prompt_block
from core.ingest.chunking import chunk_text
from core.kg.offline import ChapterText, OfflineExtractor
from core.kg.states import STATES_VERSION
from core.kg.types import ChapterExtraction
from core.store import Store

DRAFT_MAX_WORDS = 20_000
# What an empty list means, said wherever one is shown (the page and the CLI): bench/continuity.py's blind plants.
NO_FLAGS_CAVEAT = ("That is no proof of consistency: the checker reads only facts stated in the plain patterns it "
                   "knows. Of 100 contradictions planted in novels by people who had not seen it, it found 5 "
                   "the first time it read them.")


@dataclass
class CheckReport:
    flags: int
    chapters: list[int]          # the chapters whose flags were (re)computed
    seconds: float


@dataclass(frozen=True)
class FlagView:
    flag: Flag
    intended: bool


@dataclass
class ContinuityStatus:
    chapters: int
    with_states: int
    stale: list[int]             # chapters without current states: the next offline graph build reads them
    flags: int
    intended: int
    by_kind: dict[str, int] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return self.chapters > 0 and not self.stale


# ---- states ------------------------------------------------------------------------------------------------------

def located_states(store: Store, work_id: int, extraction: ChapterExtraction,
                   revision: int | None) -> tuple[str, list[State]] | None:
    """(state extractor version, the extraction's states located in the chapter's text), for kg_replace_chapter to
    store in the chapter's own transaction; None when the extractor gave none (an LLM extractor) or the chapter is
    no longer the revision that was read (kg_replace_chapter then writes nothing either)."""
    if extraction.stats.get("states") != STATES_VERSION:
        return None
    chapter = store.get_chapter(work_id, extraction.chapter_index)
    if revision is not None and chapter.revision != revision:
        return None
    return STATES_VERSION, locate(chapter.index, chapter.text, extraction.states)


def stale_chapters(store: Store, work_id: int) -> set[int]:
    """Chapters whose stored states are missing, from an older revision or from another state extractor."""
    have = store.states_chapters(work_id)
    return {c.index for c in store.list_chapters(work_id) if have.get(c.index) != (c.revision, STATES_VERSION)}


def _counts(store: Store, work_id: int) -> dict[str, int]:
    totals: Counter[str] = Counter()
    for c in store.kg_name_counts(work_id):
        totals[c.name] += c.count
    return dict(totals)


def pinned_states(store: Store, work_id: int) -> list[State]:
    """The states of the facts the writer pinned in the story bible (issue 34): canon, established before chapter 1
    (chapter 0), parsed when they were pinned (core.services.bible_service)."""
    fields = State.__dataclass_fields__
    return [State(**{k: v for k, v in s.items() if k in fields} | {"chapter": 0})
            for e in store.bible_list(work_id) if e.kind == "pin" for s in e.states]


def _states(store: Store, work_id: int) -> list[State]:
    """What the checks read: the pinned facts, then every chapter's stored states."""
    return [*pinned_states(store, work_id), *store.states_list(work_id)]


# ---- checks ------------------------------------------------------------------------------------------------------

def check_work(store: Store, work_id: int, chapters: Iterable[int] | None = None) -> CheckReport:
    """Check the whole work (or only the flags of `chapters`) against the stored states; store the flags."""
    started = time.perf_counter()
    indices = [c.index for c in store.list_chapters(work_id)]
    scope = indices if chapters is None else sorted(set(chapters) & set(indices))
    states = _states(store, work_id)
    flags = check(states, Entities.of(store.kg_entities(work_id)), counts=_counts(store, work_id), chapters=scope)
    store.flags_replace(work_id, scope, flags)
    return CheckReport(len(flags), scope, round(time.perf_counter() - started, 3))


def _fingerprint(states: Iterable[State]) -> set[tuple[str, str, str, str, str]]:
    return {(s.name, s.kind, s.key, s.value, s.cue) for s in states}


def recheck_chapter(store: Store, work_id: int, chapter_index: int, before: Sequence[State]) -> CheckReport:
    """After one chapter was re-read: re-check it, and the later chapters where the entities its change touched
    appear (a new death in chapter 5 flags chapter 9's acts; a removed one clears them). `before`: the chapter's
    states before the re-read. Chapters the change cannot touch keep their flags."""
    started = time.perf_counter()
    states = _states(store, work_id)
    entities = Entities.of(store.kg_entities(work_id))
    after = [s for s in states if s.chapter == chapter_index]
    changed = _fingerprint(before) ^ _fingerprint(after)
    touched = {entities.of_name(n) for name, _, _, value, _ in changed for n in (name, value) if n}
    scope = {chapter_index}
    scope |= {s.chapter for s in states if s.chapter > chapter_index and s.name
              and entities.of_name(s.name) in touched}
    scope |= {f.chapter for f in store.flags_list(work_id) if entities.of_name(f.name) in touched
              or f.entity in {entities.label[k] for k in touched}}
    flags = check(states, entities, counts=_counts(store, work_id), chapters=scope)
    store.flags_replace(work_id, sorted(scope), flags)
    return CheckReport(len(flags), sorted(scope), round(time.perf_counter() - started, 3))


def list_flags(store: Store, work_id: int, chapter: int | None = None,
               include_intended: bool = False) -> list[FlagView]:
    """The stored flags (of one chapter), in reading order; those marked intended only with `include_intended`."""
    marks = store.intended_keys(work_id)
    views = [FlagView(f, f.key in marks) for f in store.flags_list(work_id, chapter)]
    return views if include_intended else [v for v in views if not v.intended]


def mark_intended(store: Store, work_id: int, key: str) -> Flag:
    """Dismiss a flag: it stays dismissed across rebuilds until its sentence changes."""
    for f in store.flags_list(work_id):
        if f.key == key:
            store.intended_add(work_id, f)
            return f
    raise ValueError("That flag is no longer there (the chapter was re-checked); reload the list.")


def unmark_intended(store: Store, work_id: int, key: str) -> bool:
    return store.intended_remove(work_id, key)


def status(store: Store, work_id: int) -> ContinuityStatus:
    chapters = store.list_chapters(work_id)
    stale = sorted(stale_chapters(store, work_id))
    views = list_flags(store, work_id, include_intended=True)
    kinds = Counter(v.flag.kind for v in views if not v.intended)
    return ContinuityStatus(len(chapters), len(chapters) - len(stale), stale,
                            sum(kinds.values()), sum(1 for v in views if v.intended), dict(kinds))


# ---- a draft, before it is accepted --------------------------------------------------------------------------------

@dataclass
class DraftCheck:
    chapter: int                 # the chapter the draft would become
    flags: list[Flag]
    established: list[StateLine]  # what the draft's characters carry in from the story
    seconds: float


def check_draft(store: Store, work_id: int, text: str, *, chapter: int | None = None, nlp: Any = None) -> DraftCheck:
    """Check a draft (a model's or the writer's) against the story's states before it is stored: it is read as
    chapter `chapter` (default: the next one) with the same offline parse, and only its own sentences are flagged.
    Offsets are in the draft's text."""
    started = time.perf_counter()
    words = text.split()
    if not words:
        raise ValueError("The draft is empty.")
    if len(words) > DRAFT_MAX_WORDS:
        raise ValueError(f"The draft has {len(words):,} words; the check reads at most {DRAFT_MAX_WORDS:,}.")
    index = chapter or len(store.list_chapters(work_id)) + 1
    stored = [s for s in _states(store, work_id) if s.chapter < index]
    (extraction,) = list(OfflineExtractor(nlp=nlp).extract([ChapterText(index, chunk_text(text))]))
    draft = locate(index, text, extraction.states)
    entities = Entities.of(store.kg_entities(work_id))
    flags = check([*stored, *draft], entities, counts=_counts(store, work_id), chapters=[index], draft=index)
    names = {s.name for s in draft if s.name}
    lines = established(stored, entities, names=names)
    return DraftCheck(index, flags, [line for group in lines.values() for line in group],
                      round(time.perf_counter() - started, 3))


# ---- what is established -------------------------------------------------------------------------------------------

def entity_states(store: Store, work_id: int, names: Sequence[str], as_of: int | None = None) -> list[StateLine]:
    """The established states of the entity with these names, as of a chapter (the Graph page's details)."""
    lines = established(store.states_list(work_id, as_of), Entities.of(store.kg_entities(work_id)), as_of, names)
    return [line for group in lines.values() for line in group]


def states_by_name(store: Store, work_id: int, as_of: int | None = None) -> dict[str, list[dict[str, object]]]:
    """Every entity's established states as of a chapter, under each of its names (the exports)."""
    entities = Entities.of(store.kg_entities(work_id))
    lines = established(store.states_list(work_id, as_of), entities, as_of)
    out: dict[str, list[dict[str, object]]] = {}
    for name, key in entities.key.items():
        if key in lines:
            out[name] = [line.as_dict() for line in lines[key]]
    return out


def states_by_label(store: Store, work_id: int) -> dict[str, list[str]]:
    """Each entity's established states as lines ("Spitz is dead (since chapter 3)"), by label (the bible's cards)."""
    entities = Entities.of(store.kg_entities(work_id))
    lines = established(store.states_list(work_id), entities)
    return {entities.label[key]: [f"{line.text} (since chapter {line.chapter})" for line in group]
            for key, group in lines.items()}


def prompt_states(store: Store, work_id: int, names: Iterable[str], as_of: int | None = None) -> str:
    """The established states of the characters in play, as lines for a writer's prompt ("" when none)."""
    entities = Entities.of(store.kg_entities(work_id))
    return prompt_block(established(store.states_list(work_id, as_of), entities, as_of, list(names)))
