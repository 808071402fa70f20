"""The access rules of sign-in (core.services.access): owner, read-only reader, stranger, works made in local mode."""
from __future__ import annotations

import inspect

import pytest

from core.domain import WorkSharing
from core.services import access
from core.services.access import Access, ReadOnly
from core.store import NotFound, Store

MINE = WorkSharing(1, "ann@example.com", ("bob@example.com",))
LEGACY = WorkSharing(2, None, ())


def test_owner_writes_reader_reads_stranger_sees_nothing() -> None:
    assert access.access_level("ann@example.com", MINE) is Access.WRITE
    assert access.access_level("bob@example.com", MINE) is Access.READ
    assert access.access_level("eve@example.com", MINE) is Access.NONE


def test_a_work_made_in_local_mode_belongs_to_the_admin_only() -> None:
    assert access.access_level("ann@example.com", LEGACY) is Access.NONE
    assert access.access_level("ann@example.com", LEGACY, legacy_owner="Ann@Example.com") is Access.WRITE
    assert access.access_level("bob@example.com", LEGACY, legacy_owner="ann@example.com") is Access.NONE
    # the admin owns only the works nobody owns: another user's work stays theirs
    assert access.access_level("eve@example.com", MINE, legacy_owner="eve@example.com") is Access.NONE


def test_require_refuses_a_stranger_as_if_the_work_did_not_exist() -> None:
    with pytest.raises(NotFound, match="No work with id 1"):
        access.require("eve@example.com", MINE, Access.READ)
    with pytest.raises(NotFound, match="No work with id 1"):
        access.require("eve@example.com", MINE, Access.WRITE)


def test_require_lets_a_reader_read_and_refuses_a_change_with_the_title() -> None:
    assert access.require("bob@example.com", MINE, Access.READ) is Access.READ
    with pytest.raises(ReadOnly, match="“Dune” is shared with you read-only"):
        access.require("bob@example.com", MINE, Access.WRITE, title="Dune")
    assert access.require("ann@example.com", MINE, Access.WRITE) is Access.WRITE


@pytest.mark.parametrize("raw, key", [("  Bob@Example.COM ", "bob@example.com"), ("auth0|AbC123", "auth0|AbC123")])
def test_users_are_emails_lower_cased_or_subjects_as_given(raw: str, key: str) -> None:
    assert access.normalise_user(raw) == key


@pytest.mark.parametrize("bad", ["", "   ", None, "bob smith@example.com", "bob@example", "@example.com",
                                 "bob\x00@example.com", "x" * 400])
def test_bad_user_names_are_refused_with_a_message(bad: str | None) -> None:
    with pytest.raises(ValueError, match="email|subject"):
        access.normalise_user(bad)


def test_signed_in_user_is_their_email_else_their_subject() -> None:
    assert access.user_of("Ann@Example.com", "sub-1") == "ann@example.com"
    assert access.user_of(None, "sub-1") == "sub-1"
    assert access.user_of("  ", "sub-1") == "sub-1"


def test_sharing_with_oneself_is_refused() -> None:
    with pytest.raises(ValueError, match="That is you"):
        access.check_share_target("ann@example.com", "ANN@example.com")
    assert access.check_share_target("ann@example.com", "Bob@example.com") == "bob@example.com"


def _store_methods() -> set[str]:
    names: set[str] = set()
    for cls in Store.__mro__:
        if cls.__module__.startswith("core") and cls.__name__.endswith("Store"):
            names |= {n for n, v in vars(cls).items() if not n.startswith("_") and inspect.isfunction(v)}
    return names


def test_every_store_method_says_what_it_needs_exactly_once() -> None:
    tables = [access.READS, access.CHANGES, access.UNSCOPED]
    methods = _store_methods()
    assert "delete_work" in methods and "kg_triples" in methods and "claim_task" in methods
    unlisted = {m for m in methods if not any(m in t for t in tables)}
    assert not unlisted, f"say in core.services.access what these need: {sorted(unlisted)}"
    twice = {m for m in methods if sum(m in t for t in tables) > 1}
    assert not twice
    assert access.needs("kg_triples") is Access.READ and access.needs("delete_work") is Access.WRITE
    assert access.needs("some_new_method") is Access.WRITE  # unknown: refused to readers until listed
