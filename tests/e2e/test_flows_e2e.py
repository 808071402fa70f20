"""What a user does, in a real browser against `streamlit run app.py`, in order and in one browser session: import a
novel on the Library page; build its graph and step it through the chapters, opening an entity; ask a question and
follow a citation into the reader; summarize a chapter and continue one with the local models; read the retention
dashboard. The tests share one app process, one browser page and the imported work (they build on each other)."""
from __future__ import annotations

import csv
import io
import re
import time
from pathlib import Path

import pytest

from tests.conftest import shared_missing
from tests.e2e.conftest import (
    ANSWER_HEADING, download, no_exception, open_page, open_selectbox, patience, upload, wait_for_outcome, wait_idle)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
NOVEL = Path(__file__).resolve().parents[3] / "shared" / "data" / "novels" / "txt" / "the_call_of_the_wild_pg215.txt"
TITLE = "The Call of the Wild"
MODEL_RUN = 300_000  # ms: a local model loads and reads a few thousand tokens on 2 busy cores
GRAPH_CAPTION = re.compile(r"(\d+) of (\d+) entities and (\d+) relations shown \(chapters 1-(\d+);")
NOT_CAPTION = "not(.//*[@data-testid='stCaptionContainer'])"
TEXT = f"div[@data-testid='stMarkdown'][{NOT_CAPTION}]"  # xpath: a markdown element that is not a caption
flow: dict[str, int] = {}  # what earlier tests established: the imported work's id


@pytest.fixture
def ui(module_app, module_page):  # noqa: ANN001, ANN201 - the shared page, once the novel is in the library
    if "work_id" not in flow:
        pytest.skip("the novel was not imported (see test_import_a_novel)")
    return module_page


def picked_work(page) -> str:  # noqa: ANN001
    return page.get_by_role("combobox", name="Work").input_value()


def open_options(page, label: str) -> list[str]:  # noqa: ANN001
    """Open a selectbox's list; the options it shows first (the list is virtual: long ones are cut)."""
    open_selectbox(page, label)
    page.get_by_role("listbox").first.wait_for()
    return [o.inner_text().strip() for o in page.get_by_role("option").all()]


def choose(page, label: str, option: str) -> None:  # noqa: ANN001
    """Pick an option of a selectbox by its visible text, as a user does: open it, type, click the option."""
    open_options(page, label)
    page.get_by_role("combobox", name=label).fill(option)
    page.get_by_role("option").filter(has_text=re.compile(rf"^\s*{re.escape(option)}\s*$")).first.click()
    wait_idle(page)
    assert page.get_by_role("combobox", name=label).input_value() == option


def set_number(page, label: str, value: int) -> None:  # noqa: ANN001
    field = page.get_by_role("spinbutton", name=label, exact=True)
    field.fill(str(value))
    field.press("Enter")
    wait_idle(page)


def graph_counts(page) -> tuple[int, int, int, int]:  # noqa: ANN001
    """(entities shown, entities as of the chapter, relations shown, chapter) from the caption above the graph."""
    caption = page.get_by_text(GRAPH_CAPTION).first
    caption.wait_for()
    shown, total, relations, chapter = map(int, GRAPH_CAPTION.search(caption.inner_text()).groups())
    return shown, total, relations, chapter


def eventually(check, what: str, timeout: float = 30.0) -> None:  # noqa: ANN001 - check() -> bool
    """Poll a condition on what the page shows (a redraw may land a moment after the run ends)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.25)


def move_slider(page, name: str, key: str, expected: int) -> None:  # noqa: ANN001
    """Move a slider with the keyboard (Home / End) and wait until the page shows the new value."""
    slider = page.get_by_role("slider", name=name)
    slider.focus()
    slider.press(key)
    page.wait_for_function(
        "([name, v]) => { const s = document.querySelector(`input[type=range][aria-label=\"${name}\"]`);"
        " return s && s.value === String(v); }", arg=[name, expected])
    wait_idle(page)


def test_import_a_novel(module_app, module_page) -> None:  # noqa: ANN001
    if not NOVEL.exists():
        pytest.skip(shared_missing(NOVEL))
    page = module_page
    page.goto(f"{module_app.url}/library")
    page.get_by_text("A Christmas Carol").first.wait_for(timeout=patience(120_000))  # the sample, seeded on first start
    wait_idle(page)
    page.get_by_text("Import a book").click()
    upload(page, str(NOVEL))
    page.get_by_role("button", name="Import").click()
    done = page.get_by_text(re.compile(r"Imported “The Call of the Wild”: (\d+) chapters, ([\d,]+) words"))
    wait_for_outcome(page, done, timeout=patience(120_000))
    chapters, words = re.search(r"(\d+) chapters, ([\d,]+) words", done.inner_text()).groups()
    assert int(chapters) == 7 and int(words.replace(",", "")) > 25_000
    page.get_by_text(TITLE, exact=True).first.wait_for()  # listed with its stats and id
    listing = page.get_by_text(re.compile(r"book · 7 chapters · [\d,]+ words · #(\d+)")).first
    listing.wait_for()
    flow["work_id"] = int(re.search(r"#(\d+)", listing.inner_text()).group(1))
    no_exception(page)


def test_graph_build_step_through_chapters_and_open_an_entity(ui) -> None:  # noqa: ANN001
    page = ui
    open_page(page, "Graph")
    assert picked_work(page).startswith(TITLE), "the imported work is the one selected on every page"
    page.get_by_text("No graph yet").wait_for()
    assert page.get_by_role("radio", name="offline").is_checked()
    page.get_by_role("button", name="Build graph").click()
    built = page.get_by_text(re.compile(r"\d+ entities, \d+ edges, \d+ facts in [\d.]+ s"))
    wait_for_outcome(page, built, timeout=MODEL_RUN)
    entities = int(re.match(r"(\d+) entities", built.inner_text()).group(1))
    assert entities > 20

    page.get_by_role("slider", name="Graph as of chapter").wait_for()
    shown_all, total_all, relations_all, chapter = graph_counts(page)
    assert chapter == 7 and 0 < shown_all <= total_all and relations_all > 0
    page.locator("iframe").first.wait_for(state="visible")  # the drawing may land a moment after the caption

    move_slider(page, "Graph as of chapter", "Home", 1)
    page.get_by_text(re.compile(r"entities and \d+ relations shown \(chapters 1-1;")).wait_for()
    shown_1, total_1, relations_1, _ = graph_counts(page)
    assert total_1 < total_all, "the graph as of chapter 1 knows fewer entities than as of chapter 7"
    assert shown_1 > 0

    # open a node: the entity picker lists the drawn entities, most connected first; pick another than the first
    details = re.compile(r"· first appears in chapter (\d+) · (\d+) mentions · (\d+) links")
    listed = open_options(page, "Entity details")
    assert len(listed) >= 2 and "Buck" in listed, listed
    other = listed[1]
    choose(page, "Entity details", other)
    page.get_by_role("heading", name=other, level=3, exact=True).wait_for()
    first, mentions, _ = map(int, details.search(page.get_by_text(details).first.inner_text()).groups())
    assert first == 1 and mentions > 0, "as of chapter 1, everything shown first appears in chapter 1"
    page.get_by_text("Correct this entity").wait_for()

    # Buck, the hero of chapter 1: his mentions and facts grow when the graph moves on to chapter 7
    choose(page, "Entity details", "Buck")
    page.get_by_role("heading", name="Buck", level=3, exact=True).wait_for()
    caption = page.get_by_text(details).first
    first, mentions_1, links_1 = map(int, details.search(caption.inner_text()).groups())
    assert first == 1 and mentions_1 > 0 and links_1 > 0
    assert page.locator('[data-testid="stVegaLiteChart"]').count() >= 1  # the mentions-by-chapter chart
    facts = page.locator('[data-testid="stDataFrame"]').filter(  # css: roles skip the grid's hidden a11y table
        has=page.locator("th", has_text="source sentence")).locator('table[role="grid"]')
    facts.locator("td").first.wait_for(state="attached")  # the grid draws on a canvas; its table is for a11y
    eventually(lambda: all("Buck" in t for t in facts.locator('td[aria-colindex="2"]').all_text_contents()),
               "the facts shown are Buck's")  # the grid redraws a moment after the caption
    facts_1 = int(facts.get_attribute("aria-rowcount")) - 1  # the header row counts
    cited = facts.locator('td[aria-colindex="1"]').all_text_contents()
    assert facts_1 >= 1 and set(cited) == {"1"}, f"as of chapter 1, facts come from chapter 1 only: {cited}"

    move_slider(page, "Graph as of chapter", "End", 7)
    page.get_by_text(re.compile(r"relations shown \(chapters 1-7;")).wait_for()
    assert page.get_by_role("combobox", name="Entity details").input_value() == "Buck"
    eventually(lambda: int(details.search(page.get_by_text(details).first.inner_text()).group(2)) > mentions_1,
               "as of chapter 7, Buck has more mentions than as of chapter 1")
    eventually(lambda: int(facts.get_attribute("aria-rowcount")) - 1 > facts_1, "and more facts")
    no_exception(page)


def test_ask_and_follow_a_citation_into_the_reader(ui) -> None:  # noqa: ANN001
    page = ui
    open_page(page, "Ask the book")
    assert picked_work(page).startswith(TITLE)
    page.get_by_role("textbox", name="Question").fill("Who is Buck and what happens to him?")
    upto = page.get_by_role("spinbutton", name="I have read up to chapter")
    upto.fill("3")
    page.get_by_role("button", name="Ask").click()
    answer = page.get_by_role("heading", name=ANSWER_HEADING, level=3)
    wait_for_outcome(page, answer, timeout=MODEL_RUN)
    no_exception(page)
    page.get_by_text("Sources (up to chapter 3)").wait_for()
    body = page.locator(f"xpath=//h3[normalize-space()='Answer' or normalize-space()='Closest passage']"
                        f"/following::{TEXT}[1]")
    assert body.inner_text().strip(), "the model's answer is shown"

    link = "a[contains(@href, 'read?')]"
    cite = f".//{link} and .//*[@data-testid='stCaptionContainer']"  # a block with a source's caption and link
    cards = page.locator(f"xpath=//div[@data-testid='stVerticalBlock'][{cite}]"
                         f"[not(.//div[@data-testid='stVerticalBlock'][{cite}])]")  # the innermost: one citation
    cards.first.locator(f"xpath=.//{link}").wait_for()  # every answer cites (a link's code loads lazily)
    cited = []
    for i in range(cards.count()):
        caption = cards.nth(i).locator('[data-testid="stCaptionContainer"]').first.inner_text()
        linked = cards.nth(i).locator(f"xpath=.//{link}").inner_text()
        number = int(re.search(r"chapter (\d+), passage \d+", caption).group(1))
        assert f"Chapter {number}, passage" in linked, (caption, linked)
        href = cards.nth(i).locator(f"xpath=.//{link}").get_attribute("href")
        assert f"work={flow['work_id']}" in href and f"chapter={number}" in href, href
        cited.append(number)
    assert max(cited) <= 3, f"nothing past the reader's chapter is cited: {cited}"
    pick = max(range(len(cited)), key=lambda i: (cited[i] != 1, -i))  # a chapter other than the reader's default
    chapter, card = cited[pick], cards.nth(pick)
    quote = card.locator(f"xpath=.//{TEXT}").first.inner_text().strip().splitlines()[0]
    snippet = " ".join(quote.rstrip("…").split()[:6])
    assert snippet

    card.locator(f"xpath=.//{link}").click()
    page.get_by_role("heading", name="Read", level=1).wait_for()
    wait_idle(page)
    no_exception(page)
    assert re.search(r"/read", page.url)
    assert picked_work(page).startswith(TITLE)
    shown = page.get_by_role("combobox", name="Chapter").input_value()
    assert shown.startswith(f"{chapter}. "), f"the reader opened {shown!r}, the citation was chapter {chapter}"
    page.get_by_text(snippet).first.wait_for()  # the cited passage is in the chapter shown

    # the other affordance: "Show in reader" opens the chapter with the cited paragraph highlighted
    open_page(page, "Ask the book")
    page.get_by_role("heading", name=ANSWER_HEADING, level=3).wait_for()
    cards.nth(pick).get_by_role("button", name="Show in reader").click()
    page.get_by_role("heading", name="Read", level=1).wait_for()
    wait_idle(page)
    assert page.get_by_role("combobox", name="Chapter").input_value().startswith(f"{chapter}. ")
    highlighted = page.locator('[data-testid="stAlert"]').filter(has_text=snippet)
    highlighted.first.wait_for()
    no_exception(page)


def test_summarize_a_chapter_with_the_local_model(ui) -> None:  # noqa: ANN001
    page = ui
    open_page(page, "Summaries")
    assert picked_work(page).startswith(TITLE)
    # offline, the default is the book's own words: no model, sentences chosen with the graph, marked as such
    page.get_by_text(re.compile(r"No model writes this: the chapter's own sentences")).first.wait_for()
    assert not page.get_by_text(re.compile(r"Estimate with")).count()
    page.get_by_role("button", name="Summarize").click()
    extractive = page.get_by_text(re.compile(r"extractive: \d+ of \d+ sentences chosen with the graph, in story order"))
    wait_for_outcome(page, extractive, timeout=MODEL_RUN)
    no_exception(page)
    page.get_by_text("Against the chapter itself", exact=False).first.wait_for(timeout=MODEL_RUN)  # KGScore shown
    assert page.get_by_role("columnheader", name="F_KG").count() or page.get_by_text("F_KG").count()
    # the embedded model's own summary stays one click away, with its honest note
    page.locator('[data-testid="stRadio"]').filter(has_text="Model, both side by side").get_by_text(
        "Model, chapter text only").click()
    wait_idle(page)
    page.get_by_text(re.compile(r"Written by a small embedded model \(local:gemma3-270m\)")).first.wait_for()
    set_number(page, "Longest summary (tokens)", 32)
    estimate = page.get_by_text(re.compile(r"Estimate with local:gemma3-270m: 1 summaries, .* \+ 32 output tokens"))
    estimate.wait_for()
    page.get_by_role("button", name="Summarize").click()
    column = page.locator('[data-testid="stColumn"]').filter(
        has=page.get_by_role("heading", name="Chapter text only", level=3))
    wait_for_outcome(page, column.get_by_text(re.compile(r"written by local:gemma3-270m · .* · 1 version")),
                     timeout=MODEL_RUN)
    no_exception(page)
    text = column.locator(f"xpath=.//{TEXT}").first.inner_text().strip()
    assert text and text != "No summary yet.", "the summary's text is shown"
    assert column.get_by_text(re.compile(r"rough draft")).count(), "an honest note beside the embedded model's text"
    kg_column = page.locator('[data-testid="stColumn"]').filter(
        has=page.get_by_role("heading", name="With knowledge graph", level=3))
    assert kg_column.get_by_text("No summary yet.").is_visible(), "only the chosen mode was written"


def test_continue_a_chapter_with_smollm2(ui) -> None:  # noqa: ANN001
    page = ui
    open_page(page, "Write")
    assert picked_work(page).startswith(TITLE)
    page.get_by_role("heading", name="Continue from the cursor").wait_for()
    set_number(page, "Max new tokens", 16)
    assert page.get_by_role("radio", name="Text only").is_checked()  # the plain mode, in plain words
    revisions = page.get_by_text(re.compile(r"Chapter 7 has 1 revision\."))
    revisions.wait_for()
    page.get_by_role("button", name="Continue", exact=True).click()
    prompt = page.get_by_text(re.compile(r"Prompt \(Text only, [\d.]+ s, [\d.]+ tokens/s\)"))  # tokens/s for every mode
    wait_for_outcome(page, prompt, timeout=MODEL_RUN)
    no_exception(page)
    generated = page.locator("xpath=(//*[@data-testid='stExpander']"
                             "[contains(normalize-space(), 'Prompt (Text only')])[1]"
                             f"/preceding::{TEXT}[1]")
    text = generated.inner_text().strip()
    assert text and text != "(nothing generated)", "the continuation is shown"
    assert len(text.split()) <= 40, "no more than the 16 tokens asked for"
    assert page.get_by_text(text, exact=True).count() == 1, "shown once: the streamed copy gives way to the result"
    assert page.get_by_role("button", name="Stop").count() == 0, "no Stop button once the generation is done"

    page.get_by_role("button", name="Save as a new revision").click()
    page.get_by_text(re.compile(r"Chapter 7 has 2 revisions\.")).wait_for()
    wait_idle(page)
    no_exception(page)


def test_retention_dashboard(ui) -> None:  # noqa: ANN001
    page = ui
    open_page(page, "Retention", timeout=MODEL_RUN)
    assert picked_work(page).startswith(TITLE)
    page.get_by_role("heading", name="Presence", level=3).wait_for(timeout=MODEL_RUN)
    wait_idle(page, timeout=MODEL_RUN)
    no_exception(page)
    assert page.get_by_role("tab", name="Characters").is_visible()  # the per-chapter metric charts, by kind
    assert page.get_by_role("tab", name="Relationships").is_visible()
    heatmap = page.locator("xpath=//h3[normalize-space()='Presence']/following::*[@data-testid='stVegaLiteChart'][1]")
    heatmap.wait_for()
    eventually(lambda: heatmap.bounding_box()["height"] > 300,  # vega lays the chart out after it arrives
               "the presence heatmap has a row for each of the 20 most present characters")
    tall = heatmap.bounding_box()["height"]
    move_slider(page, "How many", "Home", 5)  # the fewest threads: the heatmap shrinks to 5 rows
    eventually(lambda: heatmap.bounding_box()["height"] < tall * 0.7, "the heatmap shows fewer threads")
    page.get_by_role("heading", name="Dropped threads").wait_for()
    dropped = page.locator('[data-testid="stDataFrame"]').count() + page.get_by_text(
        re.compile(r"No prominent characters went missing")).count()
    assert dropped >= 1, "the dropped-threads table (or its all-clear) is shown"

    got = download(page, page.get_by_role("button", name="Download per-chapter metrics (CSV)"))
    rows = list(csv.DictReader(io.StringIO(Path(got.path()).read_text())))
    assert [int(r["chapter"]) for r in rows] == list(range(1, 8)), "one row of metrics per chapter"
    assert "Buck" in rows[0]["characters_names"], "the hero is a character of chapter 1"
