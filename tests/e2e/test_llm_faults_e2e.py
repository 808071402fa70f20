"""In a real browser, against a scripted OpenAI-compatible server (tests/support/llm_server.py): every LLM failure a
user can meet (rate limit, server error, a reply that is not an API response, no reply at all) ends in a plain
message on the page, never a traceback, and the app keeps working; a multi-step job (summaries of several chapters,
an LLM graph build) that fails midway keeps what it finished, says what failed, and resumes on the next click."""
from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.domain import JobStatus, NewChapter, WorkKind
from core.ingest import chunk_text
from tests.e2e.conftest import App, start_app, wait_idle
from tests.support.llm_server import LLMServer, Raw, Reply, Sleep, Status

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

KEY = "sk-fabulatest-e2e-0123456789abcdef"  # a dummy key: it must never show up on a page
TIMEOUT_S = 2
RETRIES = 1  # each failing call is tried RETRIES + 1 times
CHAPTERS = [
    ("The Harbour", "Anna Grey walked to the harbour with Thomas Reed. Anna Grey met Thomas Reed at the gate. "
                    "Thomas Reed gave Anna Grey a letter from London."),
    ("The Voyage", "Captain Hale sailed from London to Lisbon. Anna Grey wrote to Captain Hale about the storm. "
                   "Captain Hale answered Anna Grey from Lisbon."),
    ("The Return", "Thomas Reed waited in Lisbon for Captain Hale. Captain Hale brought Anna Grey home to the "
                   "harbour, and Thomas Reed married Anna Grey in the spring."),
]
GRAPH_REPLY = ("Anna Grey / Anna\nThomas Reed\nCaptain Hale\nLisbon\n"
               "Knowledge graph edges (select up to 15 most important, `subject(s); predicate; [object(s)]` format, "
               "named entities only, predicate: five words max):\n"
               "1. Anna Grey; met; Thomas Reed\n2. Captain Hale; sailed to; Lisbon\n")


class Faults:
    def __init__(self, app: App, server: LLMServer, work_id: int) -> None:
        self.app, self.server, self.work_id = app, server, work_id

    def store(self):  # noqa: ANN201 - storage.repository.SqlStore on the app's database (a second connection)
        from storage.repository import SqlStore
        return SqlStore.from_url(self.app.db_url)

    def sent(self) -> int:
        return len(self.server.requests)


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Faults]:
    from storage.repository import SqlStore
    tmp = tmp_path_factory.mktemp("llm-faults")
    store = SqlStore.from_url(f"sqlite:///{tmp / 'e2e.db'}")  # the file start_app points the app at
    work = store.create_work("Harbour Tales", None, WorkKind.BOOK, {},
                             [NewChapter(title, text, chunk_text(text)) for title, text in CHAPTERS])
    store.engine.dispose()
    with LLMServer() as server:
        app = start_app(tmp, {"FABULA_LLM": "openai:test-model", "FABULA_OPENAI_BASE_URL": server.openai_url,
                              "OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": "",
                              "FABULA_LLM_TIMEOUT_S": str(TIMEOUT_S),
                              "FABULA_LLM_MAX_RETRIES": str(RETRIES)})
        try:
            yield Faults(app, server, work.id)
        finally:
            app.process.terminate()
            try:
                app.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                app.process.kill()


@pytest.fixture(autouse=True)
def clean_server(faults: Faults) -> Iterator[None]:
    """Every test starts with an empty script and the default reply; and must use up what it scripted."""
    with faults.server._lock:
        faults.server._script.clear()
    faults.server.default = Reply("Default reply from the test server.")
    yield
    assert not faults.server._script, "the page made fewer LLM calls than the test scripted"


def _no_traceback(page, app: App) -> None:  # noqa: ANN001
    assert page.locator("[data-testid='stException']").count() == 0, "the page shows a traceback"
    body = page.locator("body").inner_text()
    assert "Traceback" not in body
    assert KEY not in body and KEY not in page.content(), "the API key reached the page"
    log = Path(app.log).read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    assert "database is locked" not in log


def _ask(page, app: App, question: str) -> None:  # noqa: ANN001
    page.goto(f"{app.url}/ask")
    page.get_by_label("Question").fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()
    wait_idle(page)


def _failed_answer(page, faults: Faults, *expected: str) -> str:  # noqa: ANN001
    """The error shown for a question that failed: the status says so and the message names the cause."""
    page.get_by_text("Could not answer").first.wait_for()
    error = page.locator("[data-testid='stAlertContentError']").first.inner_text()
    for text in expected:
        assert text in error, error
    _no_traceback(page, faults.app)
    return error


def _works_after(page, faults: Faults) -> None:  # noqa: ANN001
    """The app still answers once the server behaves again (an answer the book supports: one it does not is
    withheld as "not supported by the chapters you have read")."""
    faults.server.script(Reply("Thomas Reed"))
    before = faults.sent()
    _ask(page, faults.app, "Who did Anna Grey meet at the gate?")
    page.get_by_text("Thomas Reed", exact=True).first.wait_for()
    assert faults.sent() == before + 1
    assert page.locator("[data-testid='stAlertContentError']").count() == 0
    _no_traceback(page, faults.app)


def test_rate_limit_says_so_and_the_app_still_works(faults: Faults, page) -> None:  # noqa: ANN001
    faults.server.script(*[Status(429, "Rate limit reached", headers={"retry-after": "0"})] * (RETRIES + 1))
    before = faults.sent()
    _ask(page, faults.app, "Who met Thomas Reed?")
    _failed_answer(page, faults, "rate limited", "429")
    assert faults.sent() == before + RETRIES + 1, "every allowed attempt was made"
    _works_after(page, faults)


def test_server_error_says_so(faults: Faults, page) -> None:  # noqa: ANN001
    faults.server.script(*[Status(500, "model crashed")] * (RETRIES + 1))
    _ask(page, faults.app, "Where did Captain Hale sail?")
    _failed_answer(page, faults, "server error", "500")
    _works_after(page, faults)


@pytest.mark.parametrize("body", ["garbage{not json", '{"object": "something else", "data": [1, 2]}'],
                         ids=["malformed-json", "wrong-shape"])
def test_unreadable_reply_says_so(faults: Faults, page, body: str) -> None:  # noqa: ANN001
    faults.server.script(Raw(body))
    _ask(page, faults.app, "Who married Anna Grey?")
    _failed_answer(page, faults, "openai", "OpenAI-compatible")
    _works_after(page, faults)


def test_a_hang_ends_in_a_timeout_message(faults: Faults, page) -> None:  # noqa: ANN001
    faults.server.script(*[Sleep(TIMEOUT_S * 10)] * (RETRIES + 1))
    _ask(page, faults.app, "Who waited in Lisbon?")
    _failed_answer(page, faults, "no reply", f"within {TIMEOUT_S} s")
    _works_after(page, faults)


def _choose(page, option: str) -> None:  # noqa: ANN001 - a radio option by its label
    page.locator("[data-testid='stRadio']").get_by_text(option, exact=True).click()
    wait_idle(page)


def _pick_chapters(page, wanted: list[str]) -> None:  # noqa: ANN001
    box = page.locator("[data-testid='stMultiSelect']").first
    for title in wanted:
        box.click()
        page.get_by_role("option", name=title).click()
    page.keyboard.press("Escape")
    wait_idle(page)


def test_summaries_keep_the_finished_chapters_and_resume(faults: Faults, page) -> None:  # noqa: ANN001
    store = faults.store()
    page.goto(f"{faults.app.url}/summaries")
    _choose(page, "Model, chapter text only")
    _pick_chapters(page, ["2. The Voyage", "3. The Return"])
    faults.server.script(Reply("Anna and Thomas meet at the harbour."), Reply("Captain Hale sails to Lisbon."),
                         *[Status(500, "model crashed")] * (RETRIES + 1))
    before = faults.sent()
    page.get_by_role("button", name="Summarize").click()
    wait_idle(page)
    page.get_by_text("Stopped; finished summaries are saved").first.wait_for()
    error = page.locator("[data-testid='stAlertContentError']").first.inner_text()
    assert "server error" in error and "500" in error, error
    _no_traceback(page, faults.app)
    assert faults.sent() == before + 2 + RETRIES + 1
    # stored: the two finished chapters, not the third; the job remembers where it stopped
    shown = {i: [s.text for s in store.summary_history(faults.work_id, i, "no_kg")] for i in (1, 2, 3)}
    assert shown == {1: ["Anna and Thomas meet at the harbour."], 2: ["Captain Hale sails to Lisbon."], 3: []}
    job = store.latest_job(faults.work_id, "summaries")
    task = store.get_task(faults.work_id)  # the page's record of the run: failed, with the server's error
    assert job is not None and job.status == JobStatus.FAILED and job.done == 2
    assert task is not None and task.status is JobStatus.FAILED and "500" in (task.error or "")
    # the finished part is on the page, and the page says a rerun resumes
    page.reload()
    page.get_by_text("An earlier run stopped after 2 of 3").first.wait_for()
    page.get_by_text("Anna and Thomas meet at the harbour.").first.wait_for()  # chapter 1's, shown below
    # retry: only the missing chapter is asked for
    faults.server.script(Reply("Thomas marries Anna in the spring."))
    before = faults.sent()
    _choose(page, "Model, chapter text only")
    _pick_chapters(page, ["2. The Voyage", "3. The Return"])
    page.get_by_role("button", name="Summarize").click()
    wait_idle(page)
    page.get_by_text("1 written, 2 already up to date").first.wait_for()
    assert faults.sent() == before + 1
    assert "Thomas Reed waited in Lisbon" in str(faults.server.requests[-1].body)
    shown = {i: [s.text for s in store.summary_history(faults.work_id, i, "no_kg")] for i in (1, 2, 3)}
    assert shown == {1: ["Anna and Thomas meet at the harbour."], 2: ["Captain Hale sails to Lisbon."],
                     3: ["Thomas marries Anna in the spring."]}
    assert store.latest_job(faults.work_id, "summaries").status == JobStatus.DONE
    _no_traceback(page, faults.app)
    store.engine.dispose()


def _build_graph(page, faults: Faults) -> None:  # noqa: ANN001 - with the LLM extractor
    _choose(page, "llm")
    page.get_by_role("button", name="Build graph").click()
    wait_idle(page)


def test_llm_graph_build_keeps_the_finished_chapters_and_resumes(faults: Faults, page) -> None:  # noqa: ANN001
    store = faults.store()
    page.goto(f"{faults.app.url}/graph")
    faults.server.script(Reply(GRAPH_REPLY), *[Status(500, "model crashed")] * (RETRIES + 1))
    before = faults.sent()
    _build_graph(page, faults)
    page.get_by_text("The build stopped; finished chapters are saved").first.wait_for()
    error = page.locator("[data-testid='stAlertContentError']").first.inner_text()
    assert "server error" in error and "500" in error, error
    _no_traceback(page, faults.app)
    assert faults.sent() == before + 1 + RETRIES + 1
    assert store.kg_extracted_chapters(faults.work_id) == {1: (1, "llm")}
    job = store.latest_job(faults.work_id, "kg_build")
    assert job.status == JobStatus.FAILED and job.state["next_chapter"] == 2
    # the graph of the finished chapter is shown, and the page says the rest will follow
    page.reload()
    page.get_by_text("2 of 3 chapters are not in the graph yet (an earlier build stopped midway and will resume)"
                     ).first.wait_for()
    page.get_by_text("Anna Grey").first.wait_for()
    # retry: only chapters 2 and 3 are read
    faults.server.script(Reply(GRAPH_REPLY), Reply(GRAPH_REPLY))
    before = faults.sent()
    _build_graph(page, faults)
    page.get_by_text("This build used 2 LLM calls").first.wait_for()
    sent = [str(r.body) for r in faults.server.requests[before:]]
    assert len(sent) == 2 and "Captain Hale sailed" in sent[0] and "Thomas Reed waited" in sent[1]
    assert not any("Thomas Reed gave Anna Grey a letter" in b for b in sent)
    assert store.kg_extracted_chapters(faults.work_id) == {i: (1, "llm") for i in (1, 2, 3)}
    assert store.latest_job(faults.work_id, "kg_build").status == JobStatus.DONE
    _no_traceback(page, faults.app)
    page.reload()
    page.get_by_text("Graph as of chapter").first.wait_for()
    assert page.get_by_text("not in the graph yet").count() == 0
    store.engine.dispose()


def test_an_llm_that_cannot_be_built_is_a_message(faults: Faults, page) -> None:  # noqa: ANN001
    """The extraction role set (as on the Settings page) to a provider with no key: a message, no traceback."""
    from core.services import llm_service
    store = faults.store()
    llm_service.save_role_assignment(store, None, {"extraction": "anthropic:claude-haiku-4-5"})
    try:
        page.goto(f"{faults.app.url}/graph")
        if not page.get_by_role("button", name="Build graph").is_visible():  # the graph is up to date: closed
            page.get_by_text("Build or update the graph").first.click()
        before = faults.sent()
        _build_graph(page, faults)
        page.get_by_text("The build stopped").first.wait_for()
        error = page.locator("[data-testid='stAlertContentError']").first.inner_text()
        assert "anthropic" in error and "ANTHROPIC_API_KEY" in error, error
        assert faults.sent() == before
        _no_traceback(page, faults.app)
    finally:
        llm_service.clear_role_assignment(store)
        store.engine.dispose()
