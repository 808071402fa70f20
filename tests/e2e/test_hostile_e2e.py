"""Hostile books in a real browser. The script-laden EPUB, a file named like an HTML tag, a book whose characters are
called `<img src=x onerror=...>` and a rejected file named like a Markdown javascript: link go through the Library
page; the last book gets an offline graph on the Graph page, whose view (an iframe with same-origin access to the app)
is inspected, and the Read page shows the books. Every payload would set window.__fabula_pwned and call alert(): no
dialog may open and no frame may have the flag. The app runs with canary API keys in its environment; they must not
reach the page (Settings included) or the Streamlit log.

Run under the shared lock, other browser tests use the same two cores:
    flock /tmp/fabula-e2e.lock .venv/bin/python -m pytest tests/e2e/test_hostile_e2e.py -q -x
"""
from __future__ import annotations

import re
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import App, patience, start_app, upload, wait_idle
from tests.support.hostile import HOSTILE, load_manifest
from tests.support.llm_server import refused_url

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
MANIFEST = load_manifest()
FLAG = MANIFEST["flag"]
IMG_NAME = next(name for name in MANIFEST["files"] if name.startswith("<img"))
LINK_NAME = "[click me](javascript:alert(1)).epub"
BUILD_TIMEOUT = patience(240_000)  # ms: spaCy loads in the app process on two shared cores
# Elements and attributes that only a book's markup could have put on a page.
INJECTED = ('img[src="x"], svg[onload], iframe[src^="javascript" i], a[href^="javascript" i], [onerror], [onload], '
            "[onmouseover], [onclick], [onfocus], [ontoggle], [autofocus]")
BUILT = re.compile(r"\d+ entities, \d+ edges, \d+ facts in [\d.]+ s")


@pytest.fixture
def canary_app(tmp_path: Path) -> Iterator[tuple[App, list[str]]]:
    canaries = [f"sk-canary-{secrets.token_hex(16)}", f"sk-ant-canary-{secrets.token_hex(16)}"]
    running = start_app(tmp_path, {"OPENAI_API_KEY": canaries[0], "ANTHROPIC_API_KEY": canaries[1],
                                   "FABULA_OPENAI_BASE_URL": refused_url() + "/v1"})
    yield running, canaries
    running.process.terminate()
    try:
        running.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        running.process.kill()


def _open(page, title: str) -> None:  # noqa: ANN001
    """A page through its sidebar link, as a user goes (the session, and so the selected work, is kept)."""
    page.locator('[data-testid="stSidebar"] a').filter(has_text=title).first.click()
    page.get_by_role("heading", name=title, level=1).wait_for(timeout=patience(120_000))
    wait_idle(page, timeout=patience(120_000))


def _upload(page, name: str, data: bytes, outcome: str) -> None:  # noqa: ANN001
    """Import one file through the Library page's form and wait for the status line that says `outcome`."""
    if not page.get_by_role("button", name="Import").is_visible():
        page.get_by_text("Import a book").first.click()
    mime = "application/epub+zip" if name.endswith(".epub") else "text/plain"
    upload(page, [{"name": name, "mimeType": mime, "buffer": data}])
    page.get_by_role("button", name="Import").click()
    wait_idle(page, timeout=patience(120_000))
    page.get_by_text(outcome).first.wait_for(timeout=patience(60_000))


def _pick_work(page, label: str, fragment: str) -> None:  # noqa: ANN001
    box = page.get_by_role("combobox", name=label)
    box.click()
    box.fill(fragment)
    page.get_by_role("option").filter(has_text=fragment).first.click()
    wait_idle(page, timeout=patience(120_000))


def _assert_nothing_ran(page, dialogs: list[str]) -> None:  # noqa: ANN001
    assert dialogs == [], f"a payload opened a dialog: {dialogs}"
    for frame in page.frames:
        assert frame.evaluate(f"() => window.{FLAG}") is None, f"a payload ran in frame {frame.url[:80]}"
        injected = frame.evaluate("s => [...document.querySelectorAll(s)].map(e => e.outerHTML.slice(0, 120))",
                                  INJECTED)
        assert injected == [], f"markup from a book became elements in {frame.url[:80]}: {injected}"


def _assert_no_canary(page, app: App, canaries: list[str]) -> None:  # noqa: ANN001
    log = app.log.read_text(errors="replace")
    for frame in page.frames:
        content = frame.content()
        for canary in canaries:
            assert canary not in content and canary[-16:] not in content, f"an API key is on the page ({frame.url})"
    for canary in canaries:
        assert canary not in log and canary[-16:] not in log, "an API key is in the Streamlit log"


def test_hostile_books_run_no_script_and_show_no_key(canary_app, page) -> None:  # noqa: ANN001
    app, canaries = canary_app
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{app.url}/library")
    page.get_by_text("A Christmas Carol").first.wait_for(timeout=patience(120_000))
    wait_idle(page, timeout=patience(120_000))

    _upload(page, LINK_NAME, b"not a zip " * 100, "nothing was saved")
    page.get_by_text("is not a valid EPUB").first.wait_for(state="attached")  # inside the collapsed status
    assert page.locator('a[href^="javascript" i]').count() == 0, "a file name became a javascript: link"
    _upload(page, "script_payloads.epub", (HOSTILE / "script_payloads.epub").read_bytes(), "Imported “")
    _upload(page, IMG_NAME, (HOSTILE / IMG_NAME).read_bytes(), "Imported “Untitled”")
    _upload(page, "html_payload_names.txt", (HOSTILE / "html_payload_names.txt").read_bytes(),
            "Imported “Html Payload Names”")
    page.get_by_text("The Book").first.wait_for()  # the EPUB's title, markup and all, listed as text
    _assert_nothing_ran(page, dialogs)

    # The graph of the book whose characters are HTML tags (the last import, so the selected work).
    _open(page, "Graph")
    page.get_by_role("button", name="Build graph").click()
    page.get_by_text(BUILT).first.wait_for(timeout=BUILD_TIMEOUT)
    wait_idle(page, timeout=BUILD_TIMEOUT)
    page.locator("iframe").first.wait_for()
    graph = _graph_frame(page)
    carried = graph.evaluate("() => edges.get().filter(e => /onerror=|<script|javascript:/i.test(e.title || ''))"
                             ".length")
    assert carried > 0, "the payload sentences did not reach the graph view (nothing was tested)"
    assert graph.evaluate("() => document.scripts.length") == 2
    _hover_payload_edge(page, graph)
    page.get_by_text("Entity details").first.wait_for()
    _assert_nothing_ran(page, dialogs)

    # The reader shows the markup as text.
    _open(page, "Read")
    page.get_by_text(f"<img src=x onerror=window.{FLAG}=1;alert(1)>").first.wait_for()
    _pick_work(page, "Work", "The Book")
    page.get_by_text("The letter read:").first.wait_for()
    page.get_by_text(f"<script>window.{FLAG}=1;alert(1)</script>").first.wait_for()
    _assert_nothing_ran(page, dialogs)

    _open(page, "Settings")
    page.get_by_text("Keys and servers").first.wait_for()
    _assert_nothing_ran(page, dialogs)
    _assert_no_canary(page, app, canaries)


def _graph_frame(page):  # noqa: ANN001, ANN202 - playwright Frame
    """The frame that holds the vis network, once it has nodes (the view is an iframe of the page)."""
    for _ in range(120):
        for frame in page.frames:
            if frame == page.main_frame:
                continue
            try:
                if frame.evaluate("() => typeof network !== 'undefined' && nodes.length > 0"):
                    return frame
            except Exception:  # noqa: BLE001 - a frame still loading or being replaced
                pass
        page.wait_for_timeout(500)
    raise AssertionError("the graph view did not load")


def _hover_payload_edge(page, graph) -> None:  # noqa: ANN001
    """Point at an edge whose tooltip is a payload sentence: vis shows it as text in its tooltip <div>, which must
    hold no element. Straight edges are asked for first, so the midpoint of the two nodes is on the edge."""
    graph.evaluate("() => { network.setOptions({edges: {smooth: false}, physics: false}); network.fit(); }")
    page.wait_for_timeout(500)
    box = page.locator("iframe").first.bounding_box()
    assert box is not None
    points = graph.evaluate("""() => edges.get().filter(e => /onerror=|<script|javascript:/i.test(e.title || ''))
        .map(e => { const p = network.getPositions([e.from, e.to]); const a = p[e.from], b = p[e.to];
                    return network.canvasToDOM({x: (a.x + b.x) / 2, y: (a.y + b.y) / 2}); })""")
    shown = ""
    for point in points[:12]:
        page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
        page.wait_for_timeout(400)
        shown = graph.evaluate("""() => { const t = document.querySelector('div.vis-tooltip');
            return t && t.style.visibility !== 'hidden' ? t.innerHTML : ''; }""")
        if re.search(r"onerror=|&lt;script|javascript:", shown):
            break
    assert re.search(r"onerror=|&lt;script|javascript:", shown), f"no payload tooltip could be shown: {shown!r}"
    assert "<" not in shown.replace("<br>", ""), f"the tooltip holds markup: {shown[:200]}"
