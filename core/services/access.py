"""Who may do what with a work once sign-in is configured: the rules, in one place, with no I/O.

    level = access_level("bob@example.com", store.work_sharing(7), legacy_owner=settings.admin)
    level is Access.WRITE   # the owner: read, ask, export, change, rebuild, share, delete
    level is Access.READ    # shared with them read-only: read, ask, export; nothing that changes the work
    level is Access.NONE    # not theirs: the work does not exist as far as they can tell (NotFound)

Without sign-in configured Fabula is the single-user local app and none of this runs (the entry points hand the
services the plain Store). With it, they hand in core.services.guarded_store.GuardedStore, which applies these rules
to every Store call: `STORE_METHODS` says what each call needs.

Works made before sign-in was configured have no owner (works.owner is NULL). They keep all their data and, while
sign-in is on, belong to the admin named in FABULA_ADMIN (`legacy_owner`); with no admin named nobody sees them until
one is (or the app runs in local mode again). Nothing is moved or deleted either way.
"""
from __future__ import annotations

import re
import unicodedata
from enum import IntEnum

from core.domain import WorkSharing
from core.store import NotFound

MAX_USER_CHARS = 320  # an email address's longest legal form


class Access(IntEnum):
    NONE = 0
    READ = 1
    WRITE = 2


class ReadOnly(PermissionError):
    """The work is shared with the user read-only (or the change is an admin's): nothing was changed."""


class SignInRequired(PermissionError):
    """Sign-in is configured but no user is given (the CLI without --user or FABULA_USER)."""


def normalise_user(text: str | None) -> str:
    """A user's key as stored in works.owner and shares: an email address lower-cased, or an OIDC subject as given.
    ValueError with a message for empty text, spaces or control characters inside, or an over-long name."""
    user = unicodedata.normalize("NFC", (text or "").strip())
    if not user:
        raise ValueError("Give the other user's email address (or their sign-in subject).")
    if len(user) > MAX_USER_CHARS or re.search(r"\s", user) or any(unicodedata.category(c)[0] == "C" for c in user):
        raise ValueError(f"“{user[:80]}” is not an email address or a sign-in subject.")
    if "@" in user:
        local, _, domain = user.rpartition("@")
        if not local or "." not in domain or domain.startswith(".") or domain.endswith("."):
            raise ValueError(f"“{user[:80]}” is not an email address.")
        return user.lower()
    return user


def user_of(email: str | None, subject: str | None) -> str:
    """The key of a signed-in user from their OIDC claims: the email when the provider gives one (shares are made by
    email), else the subject."""
    return normalise_user(email) if email and email.strip() else normalise_user(subject)


def owner_of(sharing: WorkSharing, legacy_owner: str | None) -> str | None:
    """Who owns a work: its owner, or for a work made in local mode the admin (None when no admin is named)."""
    return sharing.owner or (normalise_user(legacy_owner) if legacy_owner else None)


def access_level(user: str, sharing: WorkSharing, legacy_owner: str | None = None) -> Access:
    owner = owner_of(sharing, legacy_owner)
    if owner is not None and owner == user:
        return Access.WRITE
    if user in sharing.readers:
        return Access.READ
    return Access.NONE


def require(user: str, sharing: WorkSharing, need: Access, legacy_owner: str | None = None,
            title: str | None = None) -> Access:
    """The user's access to the work, or the refusal: NotFound (worded as for a missing work, so an id tried by URL
    tells nothing) when they may not open it, ReadOnly when they may read it but the call changes it."""
    level = access_level(user, sharing, legacy_owner)
    if level is Access.NONE and need > Access.NONE:
        raise NotFound(f"No work with id {sharing.work_id}.")
    if level < need:
        name = f"“{title}”" if title else f"Work {sharing.work_id}"
        raise ReadOnly(f"{name} is shared with you read-only: only its owner can change it.")
    return level


def check_share_target(owner: str, other: str | None) -> str:
    """The user to share with, normalised; ValueError for a bad one or the owner themself."""
    user = normalise_user(other)
    if user == owner:
        raise ValueError("That is you: a work is always open to its owner.")
    return user


# What each Store call needs. A call named in neither table but taking a work id needs WRITE (a new Store method is
# refused to readers until it is put here); tests/unit/test_access.py checks every Store method is listed.
READS = frozenset({
    "get_work", "list_chapters", "get_chapter", "chapter_revisions", "list_chunks", "get_analyses", "latest_job",
    "kg_extracted_chapters", "kg_chapter_stats", "kg_name_counts", "kg_name_edges", "kg_aliases", "kg_triples",
    "kg_entities", "kg_decisions", "kg_state", "narco_edges", "narco_built", "chunk_vectors", "qa_signature",
    "sentence_vector_chunks",   # which passages' sentences are embedded (issue 31)
    "summary_history", "get_task", "work_sharing",
    "states_chapters", "states_list", "flags_list", "intended_keys",   # continuity (issue 32)
    # a reader's own place in a work (issue 33): the guarded store stamps the signed-in user on both
    "position_get", "position_set",
    "plan_get", "plans_list", "bible_list",   # the writer's desk (issue 34)
    # caches a reader's own reading fills: per-revision analyses (Retention), LLM usage of their questions
    "put_analysis", "record_llm_usage",
})
CHANGES = frozenset({
    "rename_work", "update_work_settings", "delete_work", "add_chapter", "update_chapter", "open_job", "update_job",
    "kg_replace_chapter", "kg_save_entities", "kg_add_decision", "kg_set_state", "narco_replace_edges",
    "summary_add", "claim_task", "beat_task", "finish_task", "request_stop", "share_work", "unshare_work",
    "states_replace_chapter", "flags_replace", "intended_add", "intended_remove",   # continuity (issue 32)
    "plan_put", "plan_delete", "bible_add", "bible_update", "bible_delete",   # the writer's desk (issue 34)
})
# Not about one work: the guard narrows or stamps them (works listed, owner of a new work) or lets them through
# (embedding caches keyed by text, the app's metadata, which only the admin may change).
UNSCOPED = frozenset({
    "create_work", "list_works", "find_works_by_content", "works_shared_with", "list_tasks", "get_job", "llm_usage",
    "get_meta", "set_meta", "put_chunk_vectors", "text_vectors", "put_text_vectors",
    "sentence_vectors", "put_sentence_vectors",
})


def needs(method: str) -> Access:
    """What a Store call about one work needs (READ for the READS table, else WRITE)."""
    return Access.READ if method in READS else Access.WRITE
