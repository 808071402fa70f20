"""The Graph page of The Call of the Wild in a real browser: the default character network joins Buck to the people
of his story, labels are readable without zooming (screenshot kept in tests/e2e/screenshots/graph_default.png),
Spitz is a character, a click on a node opens its details, and the relationship timeline of Buck and Thornton starts
where they meet: the end of chapter 5, "The Toil of Trace and Trail", where Thornton cuts Buck free of Hal's sled
("John Thornton stood over Buck"), before chapter 6, "For the Love of a Man". The book is imported and its offline
graph built once, into the module's app database, before the browser opens the page."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from tests.conftest import shared_missing
from tests.e2e.conftest import SHOTS, no_exception, open_page, open_selectbox, patience, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
NOVEL = Path(__file__).resolve().parents[3] / "shared" / "data" / "novels" / "txt" / "the_call_of_the_wild_pg215.txt"
TITLE = "The Call of the Wild"
COMPANIONS = ("Manuel", "Thornton", "Spitz", "Perrault", "Francois")  # Buck's people, chapters 1-6
CHARACTER_COLOR = "#4e79a7"
MIN_LABEL_PX = 13.5  # the component keeps labels at 14 px on screen; a little slack for rounding


def _fold(text: str) -> str:
    """"François" -> "francois": compare names without accents or case."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


@pytest.fixture(scope="module")
def wild(module_app) -> int:  # noqa: ANN001
    """The novel imported and its offline graph built in the app's database (the app reads it from there)."""
    if not NOVEL.exists():
        pytest.skip(shared_missing(NOVEL))
    from core.services import kg_service, library
    from storage.repository import SqlStore
    store = SqlStore.from_url(module_app.db_url)
    work_id = library.import_book(store, NOVEL.name, NOVEL.read_bytes()).id
    kg_service.build_graph(store, work_id)
    store.engine.dispose()
    return work_id


@pytest.fixture(scope="module")
def graph_page(module_app, module_page, wild: int):  # noqa: ANN001, ANN201 - the Graph page showing the novel
    page = module_page
    page.goto(f"{module_app.url}/library")
    page.get_by_text(TITLE).first.wait_for(timeout=patience(120_000))  # in the library (no sample: it is not empty)
    wait_idle(page)
    open_page(page, "Graph")
    box = page.get_by_role("combobox", name="Work")
    if not box.input_value().startswith(TITLE):
        _choose(page, "Work", f"{TITLE} (#{wild})")
    page.get_by_role("slider", name="Graph as of chapter").wait_for(timeout=patience(120_000))
    wait_idle(page)
    return page


def _choose(page, label: str, option: str) -> None:  # noqa: ANN001
    """Pick an option of a selectbox by its visible text, as a user does: open it, type, click the option."""
    box = open_selectbox(page, label)
    box.fill(option)
    page.get_by_role("option").filter(has_text=re.compile(rf"^\s*{re.escape(option)}\s*$")).first.click()
    wait_idle(page)
    assert box.input_value() == option


def _drawing(page):  # noqa: ANN001, ANN202 - playwright Frame
    """The graph component's frame, once vis-network has laid the drawing out."""
    for _ in range(240):
        for frame in page.frames:
            if "fabula_graph" in frame.url:
                try:
                    if frame.evaluate("() => Boolean(document.body.dataset.drawn) && nodes.length > 0"):
                        return frame
                except Exception:  # noqa: BLE001 - a frame still loading or being replaced
                    pass
        page.wait_for_timeout(250)
    raise AssertionError("the graph component did not draw")


def _neighbours(frame, label: str) -> set[str]:  # noqa: ANN001
    return set(frame.evaluate("""(label) => {
        const node = nodes.get({filter: n => n.label === label})[0];
        if (!node) return [];
        return network.getConnectedNodes(node.id).map(id => nodes.get(id).label); }""", label))


def _node(frame, name: str) -> dict:  # noqa: ANN001
    """The drawn node whose label contains `name` (accents and case aside), the most mentioned first."""
    drawn = frame.evaluate("() => nodes.get().map(n => ({id: n.id, label: n.label, title: n.title, color: n.color,"
                           " size: n.size}))")
    hits = sorted((n for n in drawn if _fold(name) in _fold(n["label"])), key=lambda n: -n["size"])
    assert hits, f"no node named like {name!r} in the drawing: {sorted(n['label'] for n in drawn)}"
    return hits[0]


def test_default_view_is_buck_and_his_people_readable_at_first_sight(graph_page) -> None:  # noqa: ANN001
    page = graph_page
    assert page.get_by_role("radio", name="Characters").is_checked()
    frame = _drawing(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    frame.frame_element().screenshot(path=str(SHOTS / "graph_default.png"))
    page.screenshot(path=str(SHOTS / "graph_default_page.png"), full_page=True)
    legend = frame.evaluate("() => document.getElementById('legend').textContent")
    assert "character" in legend
    colors = set(frame.evaluate("() => nodes.get().map(n => n.color)"))
    assert colors == {CHARACTER_COLOR}, "the default view is the character network"
    count = frame.evaluate("() => nodes.length")
    assert 5 <= count <= 40, f"{count} characters drawn: few enough to read every name"

    # every label is at least ~14 px high on screen at the initial fit, without zooming
    scale, font = frame.evaluate("() => [network.getScale(), network.body.nodes[nodes.getIds()[0]].options.font.size]")
    assert font * scale >= MIN_LABEL_PX, f"labels are {font * scale:.1f} px on screen"

    buck = _node(frame, "Buck")["label"]
    joined = {_fold(label) for label in _neighbours(frame, buck)}
    missing = [name for name in COMPANIONS if not any(_fold(name) in label for label in joined)]
    assert not missing, f"Buck is not joined to {missing} in the default view (joined: {sorted(joined)})"
    no_exception(page)


def test_spitz_is_a_character(graph_page) -> None:  # noqa: ANN001
    spitz = _node(_drawing(graph_page), "Spitz")
    assert spitz["color"] == CHARACTER_COLOR and spitz["title"].split("\n")[1].startswith("character ·"), spitz


def test_a_click_on_thornton_opens_his_details(graph_page) -> None:  # noqa: ANN001
    page = graph_page
    frame = _drawing(page)
    thornton = _node(frame, "Thornton")
    point = frame.evaluate("""(id) => { const p = network.canvasToDOM(network.getPositions([id])[id]);
        const box = document.getElementById('graph').getBoundingClientRect();
        return {x: box.left + p.x, y: box.top + p.y}; }""", thornton["id"])
    box = frame.frame_element().bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])
    page.get_by_role("heading", name=thornton["label"], level=3, exact=True).wait_for(timeout=patience(30_000))
    wait_idle(page)
    assert page.get_by_role("combobox", name="Entity details").input_value() == thornton["label"]
    caption = page.get_by_text(re.compile(r"· first appears in chapter (\d+) · (\d+) mentions")).first
    assert caption.inner_text().startswith("character ·")
    assert frame.evaluate("() => network.getSelectedNodes()") == [thornton["id"]]  # the open node is selected
    no_exception(page)


def test_the_timeline_of_buck_and_thornton_starts_where_they_meet(graph_page) -> None:  # noqa: ANN001
    page = graph_page
    frame = _drawing(page)
    buck, thornton = _node(frame, "Buck")["label"], _node(frame, "Thornton")["label"]
    page.get_by_role("heading", name="Relationship timeline").scroll_into_view_if_needed()
    if page.get_by_role("combobox", name="Relationship of").input_value() != buck:
        _choose(page, "Relationship of", buck)
    if page.get_by_role("combobox", name="with").input_value() != thornton:
        _choose(page, "with", thornton)
    summary = page.get_by_text(re.compile(r": together from chapter \d+")).first
    summary.wait_for()
    first = int(re.search(r"together from chapter (\d+)", summary.inner_text()).group(1))
    assert first == 5, f"Buck and Thornton meet at the end of chapter 5 (Thornton saves Buck from Hal), not {first}"
    assert "apart" not in summary.inner_text().split(";")[-1] or "never apart" in summary.inner_text()
    # the per-chapter meetings: a bar chart, and the cited sentences of chapter 5 name Thornton
    page.locator('[data-testid="stVegaLiteChart"]').last.wait_for()
    table = page.locator('[data-testid="stDataFrame"]').filter(
        has=page.locator("th", has_text="what the text says")).locator('table[role="grid"]')
    table.locator("td").first.wait_for(state="attached")
    chapters = [int(c) for c in table.locator('td[aria-colindex="1"]').all_text_contents()]
    assert chapters and chapters[0] == 5 and chapters == sorted(chapters) and set(chapters) <= {5, 6, 7}
    no_exception(page)
