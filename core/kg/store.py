"""KgStore: the persistence the knowledge graph needs, beside core.store.Store (storage.kg_repository implements it).

Per-chapter extraction results are replaced as a unit (one transaction), so a re-extracted chapter replaces exactly
its own mentions, triples and alias evidence. Entities are derived data: resolution rewrites them (keeping ids where
the same names persist). User decisions live in their own table and are never touched by re-extraction.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from core.continuity.model import State
from core.kg.types import (ChapterExtraction, DatedAlias, Decision, EntityName, KgEntity, KgState, NameCount,
                           StoredTriple)


class NewEntity(Protocol):
    """What kg_save_entities needs of a resolved entity (core.kg.resolve.Cluster satisfies it)."""

    label: str
    type: str
    user_label: bool
    names: list[EntityName]


class KgStore(Protocol):
    # extraction results, one chapter at a time
    # `revision`: the chapter revision the extraction read; False (nothing written) when the chapter changed since
    # `states`: the chapter's story states (issue 32) as (state extractor version, located states), written in the
    # same transaction, so a crash never leaves a chapter read without its states (it would be read again)
    def kg_replace_chapter(self, work_id: int, extraction: ChapterExtraction, extractor: str,
                           revision: int | None = None,
                           states: tuple[str, Sequence[State]] | None = None) -> bool: ...
    # chapter index -> (the chapter's revision when it was extracted, extractor name)
    def kg_extracted_chapters(self, work_id: int) -> dict[int, tuple[int, str]]: ...
    # chapter index -> the extractor's counters for that chapter, stored with its extraction
    def kg_chapter_stats(self, work_id: int) -> dict[int, dict[str, Any]]: ...

    # inputs of resolution and views
    def kg_name_counts(self, work_id: int, upto_chapter: int | None = None) -> list[NameCount]: ...
    def kg_name_edges(self, work_id: int, upto_chapter: int | None = None) -> list[tuple[int, str, str]]: ...
    def kg_aliases(self, work_id: int, upto_chapter: int | None = None) -> list[DatedAlias]: ...
    # kind: "all", "edges" (at least one end is a name) or "facts" (neither end is); `names`: either end among them
    def kg_triples(self, work_id: int, upto_chapter: int | None = None, *, kind: str = "all",
                   names: Sequence[str] | None = None, chapter: int | None = None) -> list[StoredTriple]: ...

    # resolved entities
    def kg_save_entities(self, work_id: int, entities: Sequence[tuple[int | None, NewEntity]]) -> list[KgEntity]: ...
    def kg_entities(self, work_id: int) -> list[KgEntity]: ...

    # user decisions
    def kg_add_decision(self, work_id: int, op: str, payload: dict[str, Any]) -> Decision: ...
    def kg_decisions(self, work_id: int) -> list[Decision]: ...

    # build state (extractor, a version bumped on every change: a cache key for views)
    def kg_state(self, work_id: int) -> KgState | None: ...
    def kg_set_state(self, work_id: int, *, extractor: str, llm: str | None, chapters: int,
                     stats: dict[str, Any]) -> KgState: ...
