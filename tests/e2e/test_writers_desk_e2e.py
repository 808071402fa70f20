"""The writer's desk in a real browser (issue 34), against a local OpenAI-compatible fake: start a story, write
chapter 1 by hand, edit chapter 2's plan and write it (the edited beat reaches the model), pin a fact on a character
card, rewrite a chosen paragraph and keep it, and see the manuscript with both chapters and their word counts.
Screenshots of the rewrite and the manuscript are kept in tests/e2e/screenshots/writers_desk_*.png."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import SHOTS, App, no_exception, patience, start_app, stop_app, wait_idle
from tests.support.llm_server import LLMServer, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
TITLE = "The Egg"
ONE = "Elena Voss found the dragon egg in her field.\n\nShe carried it home to Millbrook through the rain."
TWO = "The egg cracked at midnight.\n\nElena Voss named the dragon Ash and hid him in the barn."
BEAT = "Elena names the dragon Ash"
SHORTER = "She ran home with it."
GRAPH = json.dumps({"nodes": [{"id": "Elena_Voss", "label": "Elena Voss", "type": "character"}], "edges": []})


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[App, LLMServer]]:
    with LLMServer() as server:
        server.default = Reply(GRAPH)
        running = start_app(tmp_path_factory.mktemp("desk"), {
            "FABULA_LLM": "openai:test-model", "FABULA_OPENAI_BASE_URL": server.openai_url,
            "OPENAI_API_KEY": "sk-test-desk", "ANTHROPIC_API_KEY": ""})
        try:
            yield running, server
        finally:
            stop_app(running)


def _type(page, name: str, text: str) -> None:  # noqa: ANN001
    """Fill a text box and commit it (Ctrl+Enter commits a text area, and a text input too)."""
    box = page.get_by_role("textbox", name=name, exact=True)
    box.fill(text)
    box.press("Control+Enter")
    wait_idle(page)


def _choose(page, key: str, option: str) -> None:  # noqa: ANN001
    """Choose `option` (its text) in the selectbox with widget key `key`."""
    page.locator(f".st-key-{key}").get_by_role("combobox").click()
    page.get_by_role("option").filter(has_text=option).first.click()
    wait_idle(page)


def _view(page, label: str) -> None:  # noqa: ANN001
    page.locator(".st-key-desk_view").get_by_text(label, exact=True).click()
    wait_idle(page)


def _bodies(server: LLMServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests if r.method == "POST"]


def test_plan_write_pin_rewrite_and_see_the_manuscript(desk, page) -> None:  # noqa: ANN001
    app, server = desk
    from storage.repository import SqlStore
    store = SqlStore.from_url(app.db_url)
    page.goto(f"{app.url}/write")
    page.get_by_role("heading", name="Write", level=1).wait_for(timeout=patience(120_000))
    wait_idle(page)
    if not page.get_by_role("button", name="Start", exact=True).is_visible():
        page.get_by_text("Start a story", exact=True).click()
    page.get_by_role("textbox", name="Title").first.fill(TITLE)
    page.get_by_role("spinbutton", name="At most chapters").fill("3")
    wait_idle(page)   # the boxes' reruns end before Start is clicked (a click during one was lost under load)
    page.get_by_role("button", name="Start", exact=True).click()
    page.get_by_text(f"Started “{TITLE}”").wait_for(timeout=patience(120_000))
    wait_idle(page)
    work = next(w for w in store.list_works() if w.title == TITLE)

    # chapter 1, by hand (its graph read by the grapher: the fake names Elena Voss)
    page.get_by_text("Write a chapter yourself").click()
    _type(page, "Chapter", ONE)
    page.get_by_role("button", name="Save my chapter").click()
    page.locator(".st-key-desk_ms_rows").get_by_text("accepted").first.wait_for(timeout=patience(120_000))
    wait_idle(page)
    no_exception(page)

    # chapter 2's plan, edited, then chapter 2 written from it
    _view(page, "Plan")
    _type(page, "Beats, one per line, in story order", f"The egg cracks\n{BEAT}")
    _type(page, "Characters in it (separated by commas)", "Elena Voss")
    page.get_by_role("button", name="Save the plan").click()
    page.get_by_text("The plan of chapter 2 is saved").wait_for()
    wait_idle(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(Path(SHOTS) / "writers_desk_plan.png"))
    assert store.plan_get(work.id, 2).beats == ("The egg cracks", BEAT)
    server.default = Reply(TWO + "\nSTORY STATUS: CONTINUE")
    page.get_by_role("button", name="Generate next chapter").click()
    page.get_by_role("textbox", name="Draft (edit before accepting)").wait_for(timeout=patience(120_000))
    wait_idle(page)
    assert any(BEAT in b and "PLAN FOR THIS CHAPTER" in b for b in _bodies(server)), "the beat reached the writer"
    server.default = Reply(GRAPH)
    page.get_by_role("button", name="Accept chapter").click()
    page.get_by_role("textbox", name="Draft (edit before accepting)").wait_for(state="detached",
                                                                             timeout=patience(120_000))
    wait_idle(page)
    assert [c.index for c in store.list_chapters(work.id)] == [1, 2]

    # a fact pinned on Elena Voss's card
    _view(page, "Story bible")
    page.get_by_role("textbox", name="Pin a new fact").wait_for()
    _type(page, "Pin a new fact", "Elena Voss has green eyes.")
    page.get_by_role("button", name="Pin", exact=True).click()
    page.get_by_text("Pinned on Elena Voss.").wait_for()
    wait_idle(page)
    assert [e.text for e in store.bible_list(work.id) if e.kind == "pin"] == ["Elena Voss has green eyes."]

    # chapter 1's second paragraph, shortened, kept as revision 2
    _view(page, "Rewrite a passage")
    _choose(page, f"desk_rw_chapter_{work.id}", "1.")
    _choose(page, f"desk_rw_from_{work.id}_1", "¶2")
    _choose(page, f"desk_rw_to_{work.id}_1", "¶2")
    page.locator(".st-key-desk_rw_kind").get_by_text("Shorten", exact=True).click()
    wait_idle(page)
    _type(page, "Instruction", "keep the rain out")
    server.default = Reply(SHORTER)
    page.get_by_role("button", name="Ask for the rewrite").click()
    new = page.get_by_role("textbox", name="New (edit it before keeping)")
    new.wait_for(timeout=patience(120_000))
    wait_idle(page)
    assert new.input_value() == SHORTER
    new.scroll_into_view_if_needed()
    page.screenshot(path=str(Path(SHOTS) / "writers_desk_rewrite.png"))   # old and new side by side
    asked = _bodies(server)[-1]
    assert "She carried it home to Millbrook through the rain." in asked and "keep the rain out" in asked
    page.get_by_role("button", name="Keep as a new revision").click()
    page.get_by_text("Kept: chapter 1 is now revision 2").wait_for()
    wait_idle(page)
    assert store.get_chapter(work.id, 1).text.endswith(SHORTER)

    # the manuscript: both chapters, their word counts
    _view(page, "Manuscript")
    rows = page.locator(".st-key-desk_ms_rows")
    rows.get_by_text("accepted").nth(1).wait_for()
    no_exception(page)
    for chapter in store.list_chapters(work.id):
        row = rows.locator("tr").filter(has_text=chapter.title).first.inner_text()
        assert str(chapter.word_count) in row.split() and "accepted" in row, row
    assert page.get_by_role("button", name="Word (.docx)").is_visible()
    rows.scroll_into_view_if_needed()
    page.screenshot(path=str(Path(SHOTS) / "writers_desk_manuscript.png"), full_page=False)
    store.engine.dispose()
