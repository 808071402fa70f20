"""Sign-in on a real SQLite file: migration 0009 keeps every work, GuardedStore keeps users apart, a read-only share
reads but changes nothing, and the CLI acts as --user / FABULA_USER with the same checks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text

import cli
import cli_commands
from core.config import get_settings
from core.domain import NewChapter, WorkKind
from core.services import background, guarded_store, library
from core.services.access import Access, ReadOnly
from core.store import NotFound
from storage.db import alembic_config, make_engine, migrate
from storage.repository import SqlStore

ANN, BOB, EVE = "ann@example.com", "bob@example.com", "eve@example.com"
STORY = ("CHAPTER I.\n\n" + "Anna walked to the harbour and watched the boats come in. " * 40 +
         "\n\nCHAPTER II.\n\n" + "The storm came in the night and Anna lit the lamp for them. " * 40).encode()


def _chapters(n: int = 2) -> list[NewChapter]:
    return [NewChapter(f"C{i}", f"Text of chapter {i} about Anna.", [f"Text of chapter {i} about Anna."])
            for i in range(1, n + 1)]


def test_upgrade_from_0008_keeps_every_work_and_leaves_them_unowned(db_url: str) -> None:
    engine = make_engine(db_url)
    command.upgrade(alembic_config(db_url), "0008")
    with engine.begin() as conn:
        conn.execute(text("insert into works (title, kind, settings, created_at) values "
                          "('Old book', 'book', '{}', CURRENT_TIMESTAMP)"))
        conn.execute(text("insert into chapters (work_id, \"index\", title, text, word_count, source, revision, "
                          "updated_at) values (1, 1, 'One', 'Once upon a time.', 4, 'uploaded', 1, CURRENT_TIMESTAMP)"))
    assert "owner" not in {c["name"] for c in inspect(engine).get_columns("works")}
    migrate(engine)
    assert "owner" in {c["name"] for c in inspect(engine).get_columns("works")}
    assert "work_shares" in inspect(engine).get_table_names()
    store = SqlStore(engine)
    [work] = store.list_works()
    assert (work.title, work.owner, work.chapter_count) == ("Old book", None, 1)
    assert store.get_chapter(work.id, 1).text == "Once upon a time."
    # while sign-in is on it belongs to the admin, and to nobody else; the data is untouched either way
    assert [w.id for w in guarded_store.guarded(store, ANN, legacy_owner=ANN).list_works()] == [work.id]
    assert guarded_store.guarded(store, BOB, legacy_owner=ANN).list_works() == []
    assert guarded_store.guarded(store, BOB).list_works() == []
    assert store.get_chapter(work.id, 1).text == "Once upon a time."
    engine.dispose()


def test_each_user_sees_and_opens_only_their_own_works(store: SqlStore) -> None:
    ann, bob = guarded_store.guarded(store, ANN), guarded_store.guarded(store, BOB)
    mine = library.import_book(ann, "harbour.txt", STORY, title="Harbour")
    theirs = bob.create_work("Bob's story", None, WorkKind.STORY, {}, _chapters(), owner=ANN)  # owner is ignored
    assert (mine.owner, store.get_work(theirs.id).owner) == (ANN, BOB)
    assert [w.id for w in ann.list_works()] == [mine.id]
    assert [w.id for w in bob.list_works()] == [theirs.id]
    for call in (lambda: bob.get_work(mine.id), lambda: bob.list_chapters(mine.id),
                 lambda: bob.get_chapter(mine.id, 1), lambda: bob.kg_triples(mine.id), lambda: bob.list_chunks(mine.id),
                 lambda: bob.delete_work(mine.id), lambda: bob.rename_work(mine.id, "Mine now")):
        with pytest.raises(NotFound, match=f"No work with id {mine.id}"):
            call()
    # the same file imported by Bob is his own copy, not a link to Ann's work
    assert bob.find_works_by_content(library.content_hash(STORY)) == []
    copy = library.import_book(bob, "harbour.txt", STORY, allow_copy=False)
    assert copy.owner == BOB and copy.id != mine.id
    assert store.get_work(mine.id).title == "Harbour"


def test_a_read_only_share_reads_and_exports_but_changes_nothing(store: SqlStore) -> None:
    ann, bob = guarded_store.guarded(store, ANN), guarded_store.guarded(store, BOB)
    work = library.import_book(ann, "harbour.txt", STORY, title="Harbour")
    assert guarded_store.share(ann, work.id, " Bob@Example.com ") == [BOB]
    assert guarded_store.access_of(bob, work.id) is Access.READ and guarded_store.is_read_only(bob, work.id)
    assert [w.id for w in bob.list_works()] == [work.id]
    assert "harbour" in bob.get_chapter(work.id, 1).text
    before = store.table_counts()
    chapter = store.get_chapter(work.id, 1)
    for change in (lambda: bob.delete_work(work.id), lambda: library.rename_work(bob, work.id, "Bob's"),
                   lambda: library.edit_chapter(bob, work.id, 1, "New text.", chapter.revision),
                   lambda: bob.add_chapter(work.id, _chapters(1)[0]), lambda: bob.open_job(work.id, "kg", 2),
                   lambda: background.submit(bob, work.id, "kg_build", {}),
                   lambda: bob.update_work_settings(work.id, {"x": 1}),
                   lambda: guarded_store.share(bob, work.id, EVE)):
        with pytest.raises(ReadOnly, match="“Harbour” is shared with you read-only"):
            change()
    assert store.table_counts() == before
    assert store.get_work(work.id).title == "Harbour" and store.work_sharing(work.id).readers == (BOB,)
    # revoked: gone again for Bob, at once
    assert guarded_store.unshare(ann, work.id, BOB) == []
    with pytest.raises(NotFound):
        bob.get_work(work.id)
    with pytest.raises(ValueError, match="not shared with"):
        guarded_store.unshare(ann, work.id, BOB)


def test_bad_shares_get_a_message_and_change_nothing(store: SqlStore) -> None:
    ann, eve = guarded_store.guarded(store, ANN), guarded_store.guarded(store, EVE)
    work = ann.create_work("Harbour", None, WorkKind.BOOK, {}, _chapters())
    for bad, message in (("", "email"), ("not an address@", "email"), (ANN.upper(), "That is you")):
        with pytest.raises(ValueError, match=message):
            guarded_store.share(ann, work.id, bad)
    with pytest.raises(NotFound):  # a stranger cannot share someone else's work with themself
        guarded_store.share(eve, work.id, EVE)
    with pytest.raises(ValueError, match="needs sign-in"):
        guarded_store.share(store, work.id, BOB)
    guarded_store.share(ann, work.id, BOB)
    guarded_store.share(ann, work.id, BOB)  # twice is one share
    assert store.work_sharing(work.id).readers == (BOB,)
    assert guarded_store.shares(ann, work.id) == [BOB]


def test_only_the_admin_changes_the_app_settings_on_a_shared_server(store: SqlStore) -> None:
    with pytest.raises(ReadOnly, match="Only the admin"):
        guarded_store.guarded(store, BOB, legacy_owner=ANN).set_meta("llm_roles", "{}")
    guarded_store.guarded(store, ANN, legacy_owner=ANN).set_meta("k", "v")
    assert store.get_meta("k") == "v" and store.get_meta("llm_roles") is None


# ---- the CLI ---------------------------------------------------------------------------------------------------

@pytest.fixture
def signed_in_cli(store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db_url: str,
                  fresh_settings) -> SqlStore:  # noqa: ANN001
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('[auth]\nredirect_uri = "http://localhost:8501/oauth2callback"\ncookie_secret = "x"\n'
                       'client_id = "fabula"\nclient_secret = "s"\n'
                       'server_metadata_url = "http://localhost:1/.well-known/openid-configuration"\n')
    monkeypatch.setenv("FABULA_SECRETS_FILE", str(secrets))
    monkeypatch.setenv("FABULA_DB_URL", db_url)
    monkeypatch.delenv("FABULA_USER", raising=False)
    monkeypatch.setattr(cli_commands, "_store", None)
    monkeypatch.setattr(cli_commands, "_user", None)
    return store


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    cli_commands.act_as(None)  # each run opens the store for its own user, as a new process does
    cli_commands._store = None
    status = cli.main(list(args))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_with_sign_in_acts_as_the_given_user(signed_in_cli: SqlStore, capsys, monkeypatch) -> None:  # noqa: ANN001
    work = guarded_store.guarded(signed_in_cli, ANN).create_work("Harbour", None, WorkKind.BOOK, {}, _chapters())
    status, _, err = _cli(capsys, "works", "--json")
    assert status == 1 and "--user EMAIL or FABULA_USER" in err
    status, out, _ = _cli(capsys, "--user", ANN, "works", "--json")
    assert status == 0 and [w["work_id"] for w in json.loads(out)] == [work.id]
    status, out, _ = _cli(capsys, "--user", BOB, "works", "--json")
    assert status == 0 and json.loads(out) == []
    for args in (("chapter", str(work.id), "1"), ("delete", str(work.id)), ("rename", str(work.id), "Bob's"),
                 ("kg", "export", str(work.id), "--format", "json"), ("summaries", "list", str(work.id))):
        status, out, err = _cli(capsys, "--user", BOB, *args)
        assert status == 1 and f"No work with id {work.id}" in err, (args, out, err)
    monkeypatch.setenv("FABULA_USER", BOB)
    get_settings.cache_clear()
    status, _, err = _cli(capsys, "delete", str(work.id))
    assert status == 1 and f"No work with id {work.id}" in err
    status, out, err = _cli(capsys, "--user", ANN, "share", str(work.id), "Bob@Example.com", "--json")
    assert status == 0 and json.loads(out) == {"work_id": work.id, "shared_with": [BOB]}, err
    status, out, err = _cli(capsys, "--user", ANN, "share", str(work.id), "not an address@")
    assert status == 1 and "not an email address" in err
    status, _, err = _cli(capsys, "share", str(work.id), EVE)  # Bob (FABULA_USER) may not share Ann's work on
    assert status == 1 and "read-only" in err
    assert signed_in_cli.work_sharing(work.id).readers == (BOB,)
    status, out, _ = _cli(capsys, "chapter", str(work.id), "1")
    assert status == 0 and "Text of chapter 1" in out
    status, _, err = _cli(capsys, "delete", str(work.id))
    assert status == 1 and "read-only" in err
    assert signed_in_cli.get_work(work.id).title == "Harbour"
    status, out, _ = _cli(capsys, "--user", ANN, "rename", str(work.id), "Harbour Lights")
    assert status == 0 and signed_in_cli.get_work(work.id).title == "Harbour Lights"
    status, out, _ = _cli(capsys, "--user", ANN, "unshare", str(work.id), BOB, "--json")
    assert status == 0 and json.loads(out)["shared_with"] == []
    status, _, err = _cli(capsys, "chapter", str(work.id), "1")
    assert status == 1 and f"No work with id {work.id}" in err


def test_cli_without_sign_in_works_as_before(store: SqlStore, monkeypatch, capsys, db_url, fresh_settings,  # noqa: ANN001
                                             tmp_path: Path) -> None:
    monkeypatch.setenv("FABULA_SECRETS_FILE", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("FABULA_DB_URL", db_url)
    monkeypatch.setattr(cli_commands, "_store", None)
    work = store.create_work("Harbour", None, WorkKind.BOOK, {}, _chapters())
    status, out, _ = _cli(capsys, "works", "--json")
    assert status == 0 and [w["work_id"] for w in json.loads(out)] == [work.id]
    status, _, err = _cli(capsys, "share", str(work.id), BOB)
    assert status == 1 and "Sharing needs sign-in" in err
    status, out, _ = _cli(capsys, "delete", str(work.id))
    assert status == 0 and store.list_works() == []
