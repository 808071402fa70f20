"""ContinuityStore: what continuity needs from persistence (storage.continuity_repository implements it).

A chapter's states are replaced as a unit and marked with the chapter revision and the state extractor's version
they were read from; flags are replaced per chapter (a re-check of some chapters leaves the others' flags alone);
"intended" marks are kept by flag key and never touched by a rebuild.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from core.continuity.model import Flag, State


class ContinuityStore(Protocol):
    # states, one chapter at a time; False (nothing written) when the chapter is no longer at `revision`
    def states_replace_chapter(self, work_id: int, chapter_index: int, revision: int, version: str,
                               states: Sequence[State]) -> bool: ...
    # chapter index -> (revision, version) the stored states were read from
    def states_chapters(self, work_id: int) -> dict[int, tuple[int, str]]: ...
    def states_list(self, work_id: int, upto_chapter: int | None = None, *, chapter: int | None = None,
                    names: Sequence[str] | None = None) -> list[State]: ...

    # flags of the last check, per chapter
    def flags_replace(self, work_id: int, chapters: Sequence[int], flags: Sequence[Flag]) -> None: ...
    def flags_list(self, work_id: int, chapter: int | None = None) -> list[Flag]: ...

    # "intended" marks, by flag key
    def intended_add(self, work_id: int, flag: Flag) -> None: ...
    def intended_remove(self, work_id: int, key: str) -> bool: ...
    def intended_keys(self, work_id: int) -> set[str]: ...
