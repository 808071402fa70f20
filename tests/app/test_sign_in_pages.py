"""AppTest with sign-in configured (at.secrets [auth], at.user as the signed-in user): the sign-in screen, each
user's own library, read-only marks, sharing from the Library, and work ids tampered into state or URLs refused."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.services import guarded_store
from views._state import PendingDelete
from tests.app.conftest import ROOT, page

ANN, BOB = "ann@example.com", "bob@example.com"
AUTH = {"auth": {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "secret",
                 "client_id": "fabula", "client_secret": "s",
                 "server_metadata_url": "http://localhost:1/.well-known/openid-configuration"}}


def _store():  # noqa: ANN202 - the plain SqlStore (no sign-in outside a page run)
    from views._shared import raw_store
    return raw_store()


def _work(owner: str, title: str) -> int:
    chapters = [NewChapter(f"Chapter {i}", f"{title}: the text of chapter {i}.", [f"{title} {i}."]) for i in (1, 2)]
    return guarded_store.guarded(_store(), owner).create_work(title, None, WorkKind.BOOK, {}, chapters).id


def _as(user: str | None, file: str, **state) -> AppTest:  # noqa: ANN003
    at = AppTest.from_file(str(ROOT / "app.py") if file == "app.py" else page(file), default_timeout=60)
    at.secrets = AUTH
    at.user = ({"is_logged_in": True, "email": user, "name": user.split("@")[0].title(), "sub": f"sub-{user}"}
               if user else {"is_logged_in": False})
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def test_a_visitor_sees_only_the_sign_in_screen(app_db: str) -> None:
    _work(ANN, "Harbour")
    at = _as(None, "app.py")
    assert not at.exception, at.exception
    assert [b.label for b in at.button] == ["Sign in"]
    assert "Harbour" not in " ".join(m.value for m in at.markdown)
    at = _as(None, "library.py")  # a page reached directly stops at the same screen
    assert [b.label for b in at.button] == ["Sign in"] and not at.exception


def test_signed_in_the_menu_names_the_user_and_signs_out(app_db: str) -> None:
    at = _as(ANN, "app.py")
    assert not at.exception, at.exception
    assert any("Signed in as **Ann**" in c.value for c in at.sidebar.caption)
    assert at.sidebar.button(key="sign_out").label == "Sign out"


def test_each_user_lists_only_their_works_and_a_shared_one_read_only(app_db: str) -> None:
    ann_work, bob_work = _work(ANN, "Harbour"), _work(BOB, "Bob's Tale")
    at = _as(BOB, "library.py")
    assert not at.exception, at.exception
    shown = " ".join(m.value for m in at.markdown)
    assert "Bob's Tale" in shown and "Harbour" not in shown
    guarded_store.share(guarded_store.guarded(_store(), ANN), ann_work, BOB)
    at = _as(BOB, "library.py")
    assert "Harbour" in " ".join(m.value for m in at.markdown)
    assert any("Read-only: shared with you by ann@example" in c.value for c in at.caption)
    assert [b.key for b in at.button if b.label == "Delete"] == [f"delete_{bob_work}"]  # none on Ann's
    at = _as(BOB, "read.py", work_id=ann_work)
    assert any("Shared with you read-only by ann@example" in c.value for c in at.caption)
    assert not [t for t in at.toggle if t.label == "Edit chapter"]
    # the other pages offer a reader nothing that changes the work
    at = _as(BOB, "summaries.py", work_id=ann_work)
    assert not at.exception and at.button(key="sum_run").disabled
    at = _as(BOB, "ask.py", work_id=ann_work)
    assert not at.exception and at.button(key="narco_build").disabled
    at = _as(BOB, "write.py", work_id=ann_work)
    assert not at.exception and not [b for b in at.button if b.key in ("write_next", "cont_go", "cont_save")]
    assert any("Shared with you read-only" in c.value for c in at.caption)


def test_the_owner_shares_and_revokes_from_the_library(app_db: str) -> None:
    work = _work(ANN, "Harbour")
    at = _as(ANN, "library.py")
    at.text_input(key=f"share_user_{work}").input("Bob@Example.com")
    [b for b in at.button if b.label == "Share read-only"][0].click().run()
    assert not at.exception, at.exception
    assert any("Shared read-only with Bob" in s.value for s in at.success)
    assert _store().work_sharing(work).readers == (BOB,)
    at.text_input(key=f"share_user_{work}").input("not an address@")
    [b for b in at.button if b.label == "Share read-only"][0].click().run()
    assert any("not an email address" in e.value for e in at.error)
    assert _store().work_sharing(work).readers == (BOB,)
    at.button(key=f"revoke_{work}_{BOB}").click().run()
    assert _store().work_sharing(work).readers == ()


def test_only_the_admin_changes_the_shared_settings(app_db: str, monkeypatch) -> None:  # noqa: ANN001
    from core.config import get_settings
    monkeypatch.setenv("FABULA_ADMIN", ANN)
    get_settings.cache_clear()
    at = _as(BOB, "app.py")
    at.switch_page("views/settings.py").run()
    assert not at.exception, at.exception
    assert any("only its admin can change them" in i.value for i in at.info)
    changes = ("Save", "Save prices", "Restore default prices")
    assert all(b.disabled for b in at.button if b.label in changes) and len([b for b in at.button
                                                                             if b.label in changes]) == 3
    at = _as(ANN, "app.py")
    at.switch_page("views/settings.py").run()
    assert not any("only its admin" in i.value for i in at.info)
    [b for b in at.button if b.label == "Restore default prices"][0].click().run()
    assert not at.exception and _store().get_meta("price_table") is not None


def test_tampered_work_ids_are_refused(app_db: str) -> None:
    ann_work, bob_work = _work(ANN, "Harbour"), _work(BOB, "Bob's Tale")
    # another user's work put into session state: every page opens the user's own work instead, nothing of Ann's
    for file in ("read.py", "ask.py", "summaries.py", "graph.py", "write.py", "dashboard.py"):
        at = _as(BOB, file, work_id=ann_work)
        assert not at.exception, (file, at.exception)
        picker = [s for s in at.selectbox if s.label == "Work"][0]
        assert picker.options == ["Bob's Tale (#2)"] and picker.value == bob_work, file
        assert at.session_state["work_id"] == bob_work, file
        shown = " ".join([m.value for m in at.markdown] + [c.value for c in at.caption])
        assert "Harbour" not in shown and "Harbour: the text" not in shown, file
    # ... or into a ?work= link
    at = AppTest.from_file(page("read.py"), default_timeout=60)
    at.secrets, at.user = AUTH, {"is_logged_in": True, "email": BOB}
    at.query_params["work"] = str(ann_work)
    at.run()
    assert any(f"No work with id {ann_work}" in w.value for w in at.warning)
    assert "Harbour: the text" not in " ".join(m.value for m in at.markdown)
    # ... or into the Library's pending delete, confirmed: refused, nothing deleted, for a stranger and a reader
    for share in (False, True):
        if share:
            guarded_store.share(guarded_store.guarded(_store(), ANN), ann_work, BOB)
        at = _as(BOB, "app.py", pending_delete=PendingDelete(ann_work, "Harbour"))
        at.switch_page("views/library.py").run()
        at.button(key="confirm_delete").click().run()
        assert not at.exception, at.exception
        assert _store().get_work(ann_work).title == "Harbour"
    assert any("“Harbour” is shared with you read" in e.value for e in at.error)
