"""The Store as one signed-in user sees it: every call about a work is checked by core.services.access first.

    store = guarded(SqlStore.from_url(url), "bob@example.com", legacy_owner=settings.admin)
    store.list_works()          # Bob's works and the works shared with him
    store.get_work(7)           # NotFound unless Bob may open work 7
    store.delete_work(7)        # ReadOnly when work 7 is only shared with him; nothing changed

The entry points (views/_shared.get_store, cli_commands.open_store) hand this to the services when sign-in is
configured, so a work id from a URL, session state, a form or the command line meets the same check whatever page or
command it reaches. Also here: the owner's sharing use cases (share, unshare, list).

GuardedStore implements every Store method itself, with the protocol's own signature (it subclasses Store, so mypy
checks each method against the part it comes from, and `guarded()` refuses to type-check while one is missing). A
call about one work takes its `work_id` parameter to `_guard(call, work_id)`, which asks access.needs(call) of the
user before the inner store is reached; the unscoped calls are narrowed (works listed, jobs by their work, the
user's own reading place) or passed through as access.UNSCOPED says. tests/unit/test_guarded_store.py holds every
method to this.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from core.companion.store import LOCAL_READER, ReadingPosition
from core.continuity.model import Flag, State
from core.domain import (Chapter, ChapterInfo, ChapterSource, Chunk, Job, JobStatus, NewChapter, Work, WorkKind,
                         WorkSharing)
from core.kg.store import NewEntity
from core.kg.types import ChapterExtraction, DatedAlias, Decision, KgEntity, KgState, NameCount, StoredTriple
from core.narco.types import NewQuestionEdge, QuestionEdge
from core.services import access
from core.services.access import Access, ReadOnly
from core.store import Store
from core.summarize.store import NewSummary, StoredSummary
from core.tasks import WorkTask
from core.write.bible import BibleEntry, NewEntry
from core.write.plan import ChapterPlan


class GuardedStore(Store):
    """A Store for one user: calls named in access.READS need read access to their work, any other call taking a
    work id needs write access, and the unscoped ones are narrowed here."""

    def __init__(self, inner: Store, user: str, legacy_owner: str | None = None) -> None:
        self._inner = inner
        self.user = access.normalise_user(user)
        self.legacy_owner = legacy_owner
        self._owned: dict[int, WorkSharing] = {}

    # ---- the checks -------------------------------------------------------------------------------------------
    def _sharing(self, work_id: int) -> WorkSharing:
        """The work's owner and readers. Kept only for the works the user owns (an owner never changes; a share can
        be revoked at any moment, so a reader's access is looked up on every call)."""
        if (mine := self._owned.get(work_id)) is not None:
            return mine
        sharing = self._inner.work_sharing(work_id)
        if access.owner_of(sharing, self.legacy_owner) == self.user:
            self._owned[work_id] = sharing
        return sharing

    def access(self, work_id: int) -> Access:
        """The user's access to a work (NONE for one that does not exist)."""
        try:
            return access.access_level(self.user, self._sharing(int(work_id)), self.legacy_owner)
        except LookupError:
            return Access.NONE

    def require(self, work_id: int, need: Access) -> Access:
        sharing = self._sharing(int(work_id))
        level = access.access_level(self.user, sharing, self.legacy_owner)
        title = self._inner.get_work(sharing.work_id).title if Access.NONE < level < need else None
        return access.require(self.user, sharing, need, self.legacy_owner, title)

    def _guard(self, call: str, work_id: int) -> Store:
        """The inner store, once the user may make `call` on the work (access.needs: READ or WRITE); else NotFound
        or ReadOnly, before anything is read or written."""
        self.require(work_id, access.needs(call))
        return self._inner

    def _level_of(self, work: Work, shared: set[int]) -> Access:
        return access.access_level(self.user, WorkSharing(work.id, work.owner, (self.user,) if work.id in shared
                                                          else ()), self.legacy_owner)

    @property
    def is_admin(self) -> bool:
        return bool(self.legacy_owner) and access.normalise_user(self.legacy_owner) == self.user

    @property
    def engine(self) -> object:
        """The inner store's database engine (None for a store without one), which core.services.imports and
        qa_corpus read to key their per-database registries and locks, as they do for a plain store. Nothing here
        runs SQL with it."""
        return getattr(self._inner, "engine", None)

    # ---- LibraryStore: works (listed and created as the user's own) -----------------------------------------------
    def create_work(self, title: str, author: str | None, kind: WorkKind, settings: dict[str, Any],
                    chapters: list[NewChapter], content_sha256: str | None = None, owner: str | None = None) -> Work:
        """A new work is always the signed-in user's own (`owner` is ignored)."""
        return self._inner.create_work(title, author, kind, settings, chapters, content_sha256, owner=self.user)

    def list_works(self) -> list[Work]:
        shared = set(self._inner.works_shared_with(self.user))
        return [w for w in self._inner.list_works() if self._level_of(w, shared) > Access.NONE]

    def find_works_by_content(self, content_sha256: str) -> list[Work]:
        shared = set(self._inner.works_shared_with(self.user))
        return [w for w in self._inner.find_works_by_content(content_sha256) if self._level_of(w, shared) > Access.NONE]

    def works_shared_with(self, user: str) -> list[int]:
        return self._inner.works_shared_with(self.user)  # only ever one's own

    # ---- LibraryStore: one work, its sharing, chapters and derived data -------------------------------------------
    def get_work(self, work_id: int) -> Work:
        return self._guard("get_work", work_id).get_work(work_id)
    def rename_work(self, work_id: int, title: str) -> Work:
        return self._guard("rename_work", work_id).rename_work(work_id, title)
    def update_work_settings(self, work_id: int, settings: dict[str, Any]) -> Work:
        return self._guard("update_work_settings", work_id).update_work_settings(work_id, settings)
    def delete_work(self, work_id: int) -> None:
        self._guard("delete_work", work_id).delete_work(work_id)
    def work_sharing(self, work_id: int) -> WorkSharing:
        return self._guard("work_sharing", work_id).work_sharing(work_id)
    def share_work(self, work_id: int, user: str) -> None:
        self._guard("share_work", work_id).share_work(work_id, user)
    def unshare_work(self, work_id: int, user: str) -> bool:
        return self._guard("unshare_work", work_id).unshare_work(work_id, user)
    def list_chapters(self, work_id: int) -> list[ChapterInfo]:
        return self._guard("list_chapters", work_id).list_chapters(work_id)
    def get_chapter(self, work_id: int, index: int) -> Chapter:
        return self._guard("get_chapter", work_id).get_chapter(work_id, index)
    def add_chapter(self, work_id: int, chapter: NewChapter) -> Chapter:
        return self._guard("add_chapter", work_id).add_chapter(work_id, chapter)
    def update_chapter(self, work_id: int, index: int, text: str, chunks: list[str], expected_revision: int,
                       title: str | None = None, source: ChapterSource | None = None) -> Chapter:
        return self._guard("update_chapter", work_id).update_chapter(work_id, index, text, chunks, expected_revision,
                                                                     title, source)
    def chapter_revisions(self, work_id: int, index: int) -> list[tuple[int, str, str]]:
        return self._guard("chapter_revisions", work_id).chapter_revisions(work_id, index)
    def list_chunks(self, work_id: int, upto_chapter: int | None = None) -> list[Chunk]:
        return self._guard("list_chunks", work_id).list_chunks(work_id, upto_chapter)
    def get_analyses(self, work_id: int, kind: str) -> dict[int, tuple[int, dict[str, Any]]]:
        return self._guard("get_analyses", work_id).get_analyses(work_id, kind)
    def put_analysis(self, work_id: int, chapter_index: int, kind: str, revision: int, payload: dict[str, Any]) -> None:
        self._guard("put_analysis", work_id).put_analysis(work_id, chapter_index, kind, revision, payload)

    # ---- LibraryStore: jobs (one by id: checked on its work) ------------------------------------------------------
    def open_job(self, work_id: int, kind: str, total: int) -> Job:
        return self._guard("open_job", work_id).open_job(work_id, kind, total)
    def latest_job(self, work_id: int, kind: str) -> Job | None:
        return self._guard("latest_job", work_id).latest_job(work_id, kind)

    def get_job(self, job_id: int) -> Job:
        job = self._inner.get_job(job_id)
        self.require(job.work_id, Access.READ)
        return job

    def update_job(self, job_id: int, *, done: int | None = None, total: int | None = None,
                   state: dict[str, Any] | None = None, status: str | None = None) -> Job:
        self._guard("update_job", self._inner.get_job(job_id).work_id)
        return self._inner.update_job(job_id, done=done, total=total, state=state, status=status)

    # ---- LibraryStore: app metadata (the admin's to change) and LLM usage (checked on its work and job) -----------
    def get_meta(self, key: str) -> str | None:
        return self._inner.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        if not self.is_admin:
            raise ReadOnly("Only the admin (FABULA_ADMIN) can change Fabula's settings on a shared server.")
        self._inner.set_meta(key, value)

    def record_llm_usage(self, *, work_id: int | None, job_id: int | None, role: str, provider: str, model: str,
                         input_tokens: int, output_tokens: int, seconds: float) -> None:
        if work_id is not None:
            self._guard("record_llm_usage", work_id)
        if job_id is not None:
            self._guard("record_llm_usage", self._inner.get_job(job_id).work_id)
        self._inner.record_llm_usage(work_id=work_id, job_id=job_id, role=role, provider=provider, model=model,
                                     input_tokens=input_tokens, output_tokens=output_tokens, seconds=seconds)

    def llm_usage(self, work_id: int | None = None, job_id: int | None = None) -> dict[str, int]:
        if work_id is not None:
            self.require(work_id, Access.READ)
        if job_id is not None:
            self.get_job(job_id)
        return self._inner.llm_usage(work_id, job_id)

    # ---- KgStore --------------------------------------------------------------------------------------------------
    def kg_replace_chapter(self, work_id: int, extraction: ChapterExtraction, extractor: str,
                           revision: int | None = None, states: tuple[str, Sequence[State]] | None = None) -> bool:
        return self._guard("kg_replace_chapter", work_id).kg_replace_chapter(work_id, extraction, extractor, revision,
                                                                             states)
    def kg_extracted_chapters(self, work_id: int) -> dict[int, tuple[int, str]]:
        return self._guard("kg_extracted_chapters", work_id).kg_extracted_chapters(work_id)
    def kg_chapter_stats(self, work_id: int) -> dict[int, dict[str, Any]]:
        return self._guard("kg_chapter_stats", work_id).kg_chapter_stats(work_id)
    def kg_name_counts(self, work_id: int, upto_chapter: int | None = None) -> list[NameCount]:
        return self._guard("kg_name_counts", work_id).kg_name_counts(work_id, upto_chapter)
    def kg_name_edges(self, work_id: int, upto_chapter: int | None = None) -> list[tuple[int, str, str]]:
        return self._guard("kg_name_edges", work_id).kg_name_edges(work_id, upto_chapter)
    def kg_aliases(self, work_id: int, upto_chapter: int | None = None) -> list[DatedAlias]:
        return self._guard("kg_aliases", work_id).kg_aliases(work_id, upto_chapter)
    def kg_triples(self, work_id: int, upto_chapter: int | None = None, *, kind: str = "all",
                   names: Sequence[str] | None = None, chapter: int | None = None) -> list[StoredTriple]:
        return self._guard("kg_triples", work_id).kg_triples(work_id, upto_chapter, kind=kind, names=names,
                                                             chapter=chapter)
    def kg_save_entities(self, work_id: int, entities: Sequence[tuple[int | None, NewEntity]]) -> list[KgEntity]:
        return self._guard("kg_save_entities", work_id).kg_save_entities(work_id, entities)
    def kg_entities(self, work_id: int) -> list[KgEntity]:
        return self._guard("kg_entities", work_id).kg_entities(work_id)
    def kg_add_decision(self, work_id: int, op: str, payload: dict[str, Any]) -> Decision:
        return self._guard("kg_add_decision", work_id).kg_add_decision(work_id, op, payload)
    def kg_decisions(self, work_id: int) -> list[Decision]:
        return self._guard("kg_decisions", work_id).kg_decisions(work_id)
    def kg_state(self, work_id: int) -> KgState | None:
        return self._guard("kg_state", work_id).kg_state(work_id)
    def kg_set_state(self, work_id: int, *, extractor: str, llm: str | None, chapters: int,
                     stats: dict[str, Any]) -> KgState:
        return self._guard("kg_set_state", work_id).kg_set_state(work_id, extractor=extractor, llm=llm,
                                                                 chapters=chapters, stats=stats)

    # ---- NarcoStore (the embedding caches, keyed by chunk id or text, pass through: access.UNSCOPED) --------------
    def narco_replace_edges(self, work_id: int, to_chunk_ids: Sequence[int], edges: Sequence[NewQuestionEdge], *,
                            window: int, model: str) -> None:
        self._guard("narco_replace_edges", work_id).narco_replace_edges(work_id, to_chunk_ids, edges, window=window,
                                                                        model=model)
    def narco_edges(self, work_id: int, upto_chapter: int | None = None, *, to_chapter: int | None = None,
                    with_embeddings: bool = False) -> list[QuestionEdge]:
        return self._guard("narco_edges", work_id).narco_edges(work_id, upto_chapter, to_chapter=to_chapter,
                                                               with_embeddings=with_embeddings)
    def narco_built(self, work_id: int) -> dict[int, tuple[int, str]]:
        return self._guard("narco_built", work_id).narco_built(work_id)
    def chunk_vectors(self, work_id: int, model: str) -> dict[int, np.ndarray]:
        return self._guard("chunk_vectors", work_id).chunk_vectors(work_id, model)
    def qa_signature(self, work_id: int) -> tuple[int, ...]:
        return self._guard("qa_signature", work_id).qa_signature(work_id)

    def put_chunk_vectors(self, model: str, vectors: Mapping[int, np.ndarray]) -> None:
        self._inner.put_chunk_vectors(model, vectors)

    def text_vectors(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        return self._inner.text_vectors(model, keys)

    def put_text_vectors(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        self._inner.put_text_vectors(model, vectors)

    def sentence_vectors(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        return self._inner.sentence_vectors(model, keys)

    def put_sentence_vectors(self, model: str, vectors: Mapping[int, Sequence[tuple[str, np.ndarray]]]) -> None:
        self._inner.put_sentence_vectors(model, vectors)

    def sentence_vector_chunks(self, work_id: int, model: str) -> set[int]:
        return self._guard("sentence_vector_chunks", work_id).sentence_vector_chunks(work_id, model)

    # ---- SummaryStore ---------------------------------------------------------------------------------------------
    def summary_add(self, work_id: int, chapter_index: int, summary: NewSummary) -> StoredSummary:
        return self._guard("summary_add", work_id).summary_add(work_id, chapter_index, summary)
    def summary_history(self, work_id: int, chapter_index: int | None = None,
                        mode: str | None = None) -> list[StoredSummary]:
        return self._guard("summary_history", work_id).summary_history(work_id, chapter_index, mode)

    # ---- TaskStore (its get_work is LibraryStore's, above) --------------------------------------------------------
    def claim_task(self, work_id: int, kind: str, owner: str, params: dict[str, Any], stale_before: datetime,
                   dead_owner: str | None = None) -> WorkTask | None:
        return self._guard("claim_task", work_id).claim_task(work_id, kind, owner, params, stale_before, dead_owner)
    def get_task(self, work_id: int) -> WorkTask | None:
        return self._guard("get_task", work_id).get_task(work_id)
    def beat_task(self, work_id: int, owner: str, *, done: int | None = None, total: int | None = None,
                  message: str | None = None) -> bool:
        return self._guard("beat_task", work_id).beat_task(work_id, owner, done=done, total=total, message=message)
    def request_stop(self, work_id: int) -> bool:
        return self._guard("request_stop", work_id).request_stop(work_id)
    def finish_task(self, work_id: int, owner: str, status: JobStatus, message: str | None = None,
                    error: str | None = None) -> None:
        self._guard("finish_task", work_id).finish_task(work_id, owner, status, message, error)

    def list_tasks(self) -> list[WorkTask]:
        return [t for t in self._inner.list_tasks() if self.access(t.work_id) > Access.NONE]

    # ---- ContinuityStore ------------------------------------------------------------------------------------------
    def states_replace_chapter(self, work_id: int, chapter_index: int, revision: int, version: str,
                               states: Sequence[State]) -> bool:
        return self._guard("states_replace_chapter", work_id).states_replace_chapter(work_id, chapter_index, revision,
                                                                                     version, states)
    def states_chapters(self, work_id: int) -> dict[int, tuple[int, str]]:
        return self._guard("states_chapters", work_id).states_chapters(work_id)
    def states_list(self, work_id: int, upto_chapter: int | None = None, *, chapter: int | None = None,
                    names: Sequence[str] | None = None) -> list[State]:
        return self._guard("states_list", work_id).states_list(work_id, upto_chapter, chapter=chapter, names=names)
    def flags_replace(self, work_id: int, chapters: Sequence[int], flags: Sequence[Flag]) -> None:
        self._guard("flags_replace", work_id).flags_replace(work_id, chapters, flags)
    def flags_list(self, work_id: int, chapter: int | None = None) -> list[Flag]:
        return self._guard("flags_list", work_id).flags_list(work_id, chapter)
    def intended_add(self, work_id: int, flag: Flag) -> None:
        self._guard("intended_add", work_id).intended_add(work_id, flag)
    def intended_remove(self, work_id: int, key: str) -> bool:
        return self._guard("intended_remove", work_id).intended_remove(work_id, key)
    def intended_keys(self, work_id: int) -> set[str]:
        return self._guard("intended_keys", work_id).intended_keys(work_id)

    # ---- PositionStore: the signed-in user's own place (`user` is ignored: one never reads or moves another's) ----
    def position_get(self, work_id: int, user: str = LOCAL_READER) -> ReadingPosition | None:
        return self._guard("position_get", work_id).position_get(work_id, self.user)

    def position_set(self, work_id: int, chapter: int, passage: int, user: str = LOCAL_READER, *,
                     visit_chapter: int | None = None, visit_at: datetime | None = None,
                     now: datetime | None = None) -> ReadingPosition:
        """A reader of a shared work has a place too (access.READS): reading changes nothing in the work."""
        return self._guard("position_set", work_id).position_set(work_id, chapter, passage, self.user,
                                                                 visit_chapter=visit_chapter, visit_at=visit_at,
                                                                 now=now)

    # ---- DeskStore ------------------------------------------------------------------------------------------------
    def plan_get(self, work_id: int, chapter: int) -> ChapterPlan | None:
        return self._guard("plan_get", work_id).plan_get(work_id, chapter)
    def plans_list(self, work_id: int) -> list[ChapterPlan]:
        return self._guard("plans_list", work_id).plans_list(work_id)
    def plan_put(self, work_id: int, plan: ChapterPlan) -> ChapterPlan:
        return self._guard("plan_put", work_id).plan_put(work_id, plan)
    def plan_delete(self, work_id: int, chapter: int) -> bool:
        return self._guard("plan_delete", work_id).plan_delete(work_id, chapter)
    def bible_list(self, work_id: int, entity: str | None = None) -> list[BibleEntry]:
        return self._guard("bible_list", work_id).bible_list(work_id, entity)
    def bible_add(self, work_id: int, entry: NewEntry) -> BibleEntry:
        return self._guard("bible_add", work_id).bible_add(work_id, entry)
    def bible_update(self, work_id: int, entry_id: int, text: str,
                     states: list[dict[str, Any]] | None = None) -> BibleEntry:
        return self._guard("bible_update", work_id).bible_update(work_id, entry_id, text, states)
    def bible_delete(self, work_id: int, entry_id: int) -> bool:
        return self._guard("bible_delete", work_id).bible_delete(work_id, entry_id)


def guarded(store: Store, user: str, legacy_owner: str | None = None) -> Store:
    """`store` as `user` may use it (a Store: the services take it as they take the plain one). No cast: mypy checks
    here that GuardedStore defines every Store method (one it lacks is an abstract attribute it cannot instantiate)."""
    return GuardedStore(store, user, legacy_owner)


def access_of(store: Store, work_id: int) -> Access:
    """The current user's access to a work: WRITE on a plain store (local mode: one user, who owns everything)."""
    return store.access(work_id) if isinstance(store, GuardedStore) else Access.WRITE


def is_read_only(store: Store, work_id: int) -> bool:
    return access_of(store, work_id) is Access.READ


def can_change_settings(store: Store) -> bool:
    """Whether the current user may change the app-wide settings: always in local mode; signed in, the admin only."""
    return store.is_admin if isinstance(store, GuardedStore) else True


# ---- the owner's sharing use cases ---------------------------------------------------------------------------------

def _owner_store(store: Store, work_id: int) -> GuardedStore:
    if not isinstance(store, GuardedStore):
        raise ValueError("Sharing needs sign-in: configure [auth] in .streamlit/secrets.toml (README).")
    store.require(work_id, Access.WRITE)
    return store


def share(store: Store, work_id: int, other: str | None) -> list[str]:
    """Share a work read-only with another user (owner only); the users it is shared with now."""
    guard = _owner_store(store, work_id)
    user = access.check_share_target(guard.user, other)
    guard.share_work(work_id, user)
    return shares(store, work_id)


def unshare(store: Store, work_id: int, other: str) -> list[str]:
    """Revoke a read-only share (owner only); ValueError when the work was not shared with them."""
    guard = _owner_store(store, work_id)
    user = access.normalise_user(other)
    if not guard.unshare_work(work_id, user):
        raise ValueError(f"The work is not shared with {user}.")
    return shares(store, work_id)


def shares(store: Store, work_id: int) -> list[str]:
    """Who a work is shared with, for its owner (an empty list in local mode)."""
    if not isinstance(store, GuardedStore):
        return []
    return list(_owner_store(store, work_id).work_sharing(work_id).readers)


__all__ = ["GuardedStore", "guarded", "access_of", "is_read_only", "can_change_settings", "share", "unshare",
           "shares"]
