"""Sign-in in a real browser against a local OpenID Connect provider (oidc-provider-mock, started here): Ann imports
a book; Bob signs in and can neither see it nor open it by URL, nor reach it through the CLI as --user bob; Ann
shares it read-only; Bob then reads it, asks about it and exports its graph, but cannot build, correct, edit or
delete it; Ann revokes the share and it is gone for Bob. Screenshots of each step land in tests/e2e/screenshots/."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import (
    ANSWER_HEADING, ROOT, SHOTS, download, no_exception, patience, start_app, stop_app, upload, wait_idle, watch_console)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ANN, BOB = "ann@example.com", "bob@example.com"
STORY = ("CHAPTER I.\n\n" + "Anna walked to the harbour with Tom, and Tom showed Anna the boats. " * 30 +
         "\n\nCHAPTER II.\n\n" + "The storm came in the night. Anna lit the lamp and Tom rang the bell. " * 30)


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """A local OIDC provider that knows Ann and Bob (its login form has a button for each)."""
    from oidc_provider_mock import User, run_server_in_thread
    users = [User(sub=ANN, claims={"email": ANN, "name": "Ann Owner"}),
             User(sub=BOB, claims={"email": BOB, "name": "Bob Reader"})]
    with run_server_in_thread(user_claims=users) as server:
        yield f"http://localhost:{server.server_port}"


@pytest.fixture(scope="module")
def signed_app(provider: str, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201 - (App, secrets file)
    tmp = tmp_path_factory.mktemp("signin")
    secrets = tmp / "secrets.toml"
    secrets.write_text(
        "[auth]\n"
        'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        'cookie_secret = "e2e-cookie-secret-not-for-production"\n'
        'client_id = "fabula-e2e"\nclient_secret = "fabula-e2e-secret"\n'
        f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n')
    app = start_app(tmp, {"STREAMLIT_SECRETS_FILES": str(secrets), "FABULA_SECRETS_FILE": str(secrets),
                          "FABULA_LLM": "fake:echo", "FABULA_WARM_UP": "0"})
    yield app, secrets
    stop_app(app)


def _shot(page, name: str) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"sign_in_{name}.png"), full_page=True)


def _sign_in(browser, url: str, user: str):  # noqa: ANN001, ANN202 - a Playwright page signed in as `user`
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(patience(60_000))
    watch_console(page)
    page.goto(url)
    page.get_by_role("button", name="Sign in").click()
    page.locator(f'button[name="sub"][value="{user}"]').click()  # the provider's form: this predefined user
    page.locator('[data-testid="stSidebar"]').get_by_text("Signed in as").wait_for()
    wait_idle(page)
    return page


def _goto(page, url: str) -> None:  # noqa: ANN001
    page.goto(url)
    page.locator('[data-testid="stSidebar"]').get_by_text("Signed in as").wait_for()
    wait_idle(page)


def _cli(app, secrets: Path, *args: str) -> subprocess.CompletedProcess[str]:  # noqa: ANN001
    env = {**os.environ, "FABULA_DB_URL": app.db_url, "FABULA_SECRETS_FILE": str(secrets), "FABULA_LLM": "fake:echo"}
    env.pop("FABULA_USER", None)
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=patience(120))


def _work_id(app, title: str) -> int:  # noqa: ANN001
    from storage.repository import SqlStore
    store = SqlStore.from_url(app.db_url)
    try:
        return next(w.id for w in store.list_works() if w.title == title)
    finally:
        store.engine.dispose()


def _build_graph_as(app, user: str, work_id: int) -> None:  # noqa: ANN001
    from core.services.guarded_store import guarded
    from core.services.kg_service import build_graph
    from storage.repository import SqlStore
    store = SqlStore.from_url(app.db_url)
    try:
        build_graph(guarded(store, user), work_id)
    finally:
        store.engine.dispose()


def test_two_users_a_read_only_share_and_no_way_round_it(signed_app, browser) -> None:  # noqa: ANN001
    app, secrets = signed_app
    # a visitor sees only the sign-in screen
    visitor = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    visitor.goto(f"{app.url}/library")
    visitor.get_by_role("button", name="Sign in").wait_for()
    wait_idle(visitor)
    assert visitor.get_by_role("heading", name="Library").count() == 0
    assert visitor.locator("input[type=file]").count() == 0
    _shot(visitor, "1_visitor")
    visitor.context.close()

    # Ann signs in and imports a book: it is hers
    ann = _sign_in(browser, app.url, ANN)
    _goto(ann, f"{app.url}/library")
    assert ann.get_by_text("Signed in as Ann Owner").count() == 1
    upload(ann, [{"name": "harbour.txt", "mimeType": "text/plain", "buffer": STORY.encode()}])
    ann.get_by_label("Title (optional: taken from the book when empty)").fill("Harbour")
    ann.get_by_role("button", name="Import").click()
    ann.get_by_text("Harbour", exact=True).first.wait_for()
    wait_idle(ann)
    work = _work_id(app, "Harbour")
    _build_graph_as(app, ANN, work)  # offline extractor, as Ann: her graph, for Bob's export later
    _shot(ann, "2_ann_library")

    # Bob signs in: no Harbour in his library, and no way to it by URL on any page
    bob = _sign_in(browser, app.url, BOB)
    _goto(bob, f"{app.url}/library")
    bob.get_by_text("No works yet").wait_for()
    assert bob.get_by_text("Harbour").count() == 0
    _shot(bob, "3_bob_library_empty")
    _goto(bob, f"{app.url}/read?work={work}&chapter=1")
    bob.get_by_text(f"No work with id {work}.").first.wait_for()
    assert bob.get_by_text("Anna walked to the harbour").count() == 0
    _shot(bob, "4_bob_read_by_url")
    for path in ("ask", "graph", "summaries", "write", "retention"):
        _goto(bob, f"{app.url}/{path}?work={work}")
        assert bob.get_by_text("Harbour").count() == 0, path
        assert bob.get_by_text("Anna walked").count() == 0, path
        no_exception(bob)

    # ... nor through the CLI as Bob, nor as nobody
    for args in (("delete", str(work)), ("kg", "export", str(work), "--format", "json"),
                 ("ask", str(work), "Who is Anna?", "--dry-run"), ("chapter", str(work), "1")):
        done = _cli(app, secrets, "--user", BOB, *args)
        assert done.returncode == 1 and f"No work with id {work}" in done.stderr, (args, done.stdout, done.stderr)
    done = _cli(app, secrets, "works")
    assert done.returncode == 1 and "--user EMAIL or FABULA_USER" in done.stderr
    done = _cli(app, secrets, "--user", ANN, "works", "--json")
    assert done.returncode == 0 and '"Harbour"' in done.stdout

    # Ann shares it read-only with Bob
    _goto(ann, f"{app.url}/library")
    ann.get_by_role("button", name="Share read-only with…").click()
    ann.get_by_label("Their email address (or sign-in subject)").fill("Bob@Example.com")
    ann.get_by_role("button", name="Share read-only", exact=True).click()
    ann.get_by_text("Shared read-only with:").wait_for()
    wait_idle(ann)
    assert ann.get_by_text(BOB, exact=True).count() >= 1
    _shot(ann, "5_ann_shares")

    # Bob now sees it, marked read-only, with nothing that changes it
    _goto(bob, f"{app.url}/library")
    bob.get_by_text("Read-only: shared with you by ann@example.com").wait_for()
    assert bob.get_by_role("button", name="Delete").count() == 0
    assert bob.get_by_role("button", name="Rename").count() == 0
    assert bob.get_by_role("button", name="Share read-only with…").count() == 0
    _shot(bob, "6_bob_library_shared")
    bob.get_by_role("button", name="Open").click()
    bob.get_by_role("heading", name="Read", level=1).wait_for()
    bob.get_by_text("Anna walked to the harbour").first.wait_for()
    bob.get_by_text("Shared with you read-only by ann@example.com").wait_for()
    assert bob.get_by_text("Edit chapter").count() == 0
    _shot(bob, "7_bob_reads")

    # he asks about it (the fake model answers at once) ...
    _goto(bob, f"{app.url}/ask")
    bob.get_by_label("Question").fill("Where did Anna walk?")
    bob.get_by_role("button", name="Ask").click()
    bob.get_by_role("heading", name=ANSWER_HEADING).wait_for(timeout=patience(120_000))
    wait_idle(bob, timeout=patience(120_000))
    no_exception(bob)
    _shot(bob, "8_bob_asks")

    # ... exports its graph, but cannot build it
    _goto(bob, f"{app.url}/graph")
    bob.get_by_text("Shared with you read-only by ann@example.com").wait_for()
    got = download(bob, bob.locator('[data-testid="stDownloadButton"] button').last)
    assert Path(got.path()).read_text().lstrip().startswith("{")
    bob.get_by_text("Build or update the graph").click()
    assert bob.get_by_role("button", name="Build graph").is_disabled()
    assert bob.get_by_text("Correct this entity").count() == 0
    no_exception(bob)
    _shot(bob, "9_bob_graph")

    # the CLI as Bob reads the shared work and still cannot delete or rename it
    done = _cli(app, secrets, "--user", BOB, "chapter", str(work), "1")
    assert done.returncode == 0 and "Anna walked to the harbour" in done.stdout
    for args in (("delete", str(work)), ("rename", str(work), "Bob's now")):
        done = _cli(app, secrets, "--user", BOB, *args)
        assert done.returncode == 1 and "read-only" in done.stderr, (args, done.stderr)
    assert _work_id(app, "Harbour") == work

    # Ann revokes the share: gone for Bob
    _goto(ann, f"{app.url}/library")
    ann.get_by_role("button", name="Share read-only with…").click()
    ann.get_by_role("button", name="Revoke").click()
    wait_idle(ann)
    _goto(bob, f"{app.url}/library")
    bob.get_by_text("No works yet").wait_for()
    assert bob.get_by_text("Harbour").count() == 0
    no_exception(ann)
    no_exception(bob)
    # signing out leaves the sign-in screen, and nothing of the library
    bob.get_by_role("button", name="Sign out").click()
    bob.get_by_role("button", name="End session").click()  # the provider's end-session page, back to Fabula after
    bob.get_by_role("button", name="Sign in").wait_for()
    wait_idle(bob)
    assert bob.get_by_text("Signed in as").count() == 0
    _shot(bob, "10_bob_signed_out")
    for page in (ann, bob):
        page.context.close()
