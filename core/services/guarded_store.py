"""The Store as one signed-in user sees it: every call about a work is checked by core.services.access first.

    store = guarded(SqlStore.from_url(url), "bob@example.com", legacy_owner=settings.admin)
    store.list_works()          # Bob's works and the works shared with him
    store.get_work(7)           # NotFound unless Bob may open work 7
    store.delete_work(7)        # ReadOnly when work 7 is only shared with him; nothing changed

The entry points (pages/_shared.get_store, cli_commands.open_store) hand this to the services when sign-in is
configured, so a work id from a URL, session state, a form or the command line meets the same check whatever page or
command it reaches. Also here: the owner's sharing use cases (share, unshare, list).
"""
from __future__ import annotations

import inspect
from typing import Any, cast

from core.companion.store import ReadingPosition
from core.domain import Job, NewChapter, Work, WorkKind, WorkSharing
from core.services import access
from core.services.access import Access, ReadOnly
from core.store import Store
from core.tasks import WorkTask


class GuardedStore:
    """A Store wrapper for one user: calls named in access.READS need read access to their work, any other call
    taking a work id needs write access, and the unscoped ones are narrowed here."""

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

    def _level_of(self, work: Work, shared: set[int]) -> Access:
        return access.access_level(self.user, WorkSharing(work.id, work.owner, (self.user,) if work.id in shared
                                                          else ()), self.legacy_owner)

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._inner, name)
        if name.startswith("_") or name in access.UNSCOPED or not callable(target):
            return target  # the unscoped calls not narrowed below (embedding caches, metadata) go straight through
        if name not in access.READS and name not in access.CHANGES:
            try:
                takes_work = "work_id" in inspect.signature(target).parameters
            except (TypeError, ValueError):
                takes_work = False
            if not takes_work:
                return target  # not about a work (the session, the engine): as it is
        need = access.needs(name)

        def checked(*args: Any, **kwargs: Any) -> Any:
            work_id = kwargs["work_id"] if "work_id" in kwargs else args[0] if args else None
            if work_id is not None:
                self.require(work_id, need)
            return target(*args, **kwargs)
        return checked

    # ---- unscoped calls, narrowed -----------------------------------------------------------------------------
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

    def list_tasks(self) -> list[WorkTask]:
        return [t for t in self._inner.list_tasks() if self.access(t.work_id) > Access.NONE]

    def get_job(self, job_id: int) -> Job:
        job = self._inner.get_job(job_id)
        self.require(job.work_id, Access.READ)
        return job

    def update_job(self, job_id: int, **changes: Any) -> Job:
        self.require(self._inner.get_job(job_id).work_id, Access.WRITE)
        return self._inner.update_job(job_id, **changes)

    def llm_usage(self, work_id: int | None = None, job_id: int | None = None) -> dict[str, int]:
        if work_id is not None:
            self.require(work_id, Access.READ)
        if job_id is not None:
            self.get_job(job_id)
        return self._inner.llm_usage(work_id, job_id)

    def position_get(self, work_id: int, user: str | None = None) -> ReadingPosition | None:
        """The signed-in user's own place in a work (`user` is ignored: one never reads another's place)."""
        self.require(work_id, Access.READ)
        return self._inner.position_get(work_id, self.user)

    def position_set(self, work_id: int, chapter: int, passage: int, user: str | None = None,
                     **when: Any) -> ReadingPosition:
        """Move the signed-in user's own place (a reader of a shared work has one too: reading changes nothing)."""
        self.require(work_id, Access.READ)
        return self._inner.position_set(work_id, chapter, passage, self.user, **when)

    def set_meta(self, key: str, value: str) -> None:
        if not self.is_admin:
            raise ReadOnly("Only the admin (FABULA_ADMIN) can change Fabula's settings on a shared server.")
        self._inner.set_meta(key, value)

    @property
    def is_admin(self) -> bool:
        return bool(self.legacy_owner) and access.normalise_user(self.legacy_owner) == self.user


def guarded(store: Store, user: str, legacy_owner: str | None = None) -> Store:
    """`store` as `user` may use it (a Store: the services take it as they take the plain one)."""
    return cast(Store, GuardedStore(store, user, legacy_owner))


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
