"""Helpers for the hostile-input tests: the corpus and its manifest, an import in a child process (with its time and
peak memory measured, and killed when it runs away), and checks that HTML, XML, CSV and Markdown output carries a
book's markup only as inert text."""
from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from tests.support.workers import beside_other_workers

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
CORPUS_TOOLS = {"make_corpus.py", "manifest.json", "README.md"}
# Substrings of the corpus's script payloads (see make_corpus.py). Any of them inside a tag or an attribute of HTML
# output means the book's markup became markup.
PAYLOAD_MARKERS = ("<script", "onerror=", "onload=", "javascript:", "<img", "<svg", "<iframe", "onmouseover=")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ufffe\uffff]")


def load_manifest() -> dict[str, Any]:
    return json.loads((HOSTILE / "manifest.json").read_text(encoding="utf-8"))


def control_characters(text: str) -> list[str]:
    """Characters no stored book text should hold: C0 controls other than tab/newline/CR/FF, DEL, U+FFFE/U+FFFF."""
    return sorted(set(_CONTROL.findall(text)))


# ---- importing in a child process -------------------------------------------------------------------------------

@dataclass
class Outcome:
    kind: str                   # "imported", "rejected", "crashed" (any other exception) or "timeout"
    message: str = ""           # the IngestError text, or the traceback of a crash
    work_id: int | None = None
    seconds: float = 0.0
    peak_mb: float = 0.0        # growth of the child's peak resident memory during the import


# The time bounds below are for a process that has the machine's cores to itself; under the test command's two
# pytest-xdist workers the other worker (model tests, a browser and a served app) takes one of the two cores, and
# many_headings.epub (5 s alone) took 10.1 s there against its 10 s bound (CI, 2026-11-28). Bounds are multiplied by
# SHARED: 2 under more than one worker, else 1.
SHARED = 2.0 if beside_other_workers() else 1.0
STARTUP_S = 60.0  # the child's interpreter start and imports, not timed by it


def import_in_child(db_url: str, filename: str, data: bytes, timeout: float) -> Outcome:
    """`library.import_book` on the SQLite file at `db_url`, in a fresh interpreter (tests/support/import_child.py):
    a runaway import is killed after `timeout` seconds of import (plus the child's start-up), and its memory is
    measured as the growth of the child's own peak RSS (which counts what libxml2 and zlib allocate too, unlike
    tracemalloc). Not a fork: a fork of a pytest-xdist worker with other threads can hang on a lock one held."""
    with tempfile.TemporaryDirectory(prefix="fabula-hostile-") as folder:
        data_path = Path(folder) / "upload.bin"
        data_path.write_bytes(data)
        command = [sys.executable, "-m", "tests.support.import_child", db_url, filename, str(data_path)]
        try:
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout + STARTUP_S,
                                  check=False)
        except subprocess.TimeoutExpired:
            return Outcome("timeout", f"no result after {timeout:.0f} s", seconds=timeout)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return Outcome("crashed", f"the import process died (exit code {done.returncode}): {done.stderr[-2000:]}")
    row = json.loads(lines[-1])
    return Outcome(row["kind"], row["message"], row["work_id"], row["seconds"], row["peak_mb"])


# ---- inert output -----------------------------------------------------------------------------------------------

class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple[tuple[str, str | None], ...]]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, tuple(attrs)))
        self._in_script = tag == "script"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, tuple(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        (self.scripts if self._in_script else self.text).append(data)


def parse_markup(html: str) -> _Markup:
    parser = _Markup()
    parser.feed(html)
    parser.close()
    return parser


def assert_graph_html_inert(html: str) -> None:
    """The graph view's page has exactly the elements and attributes of the page for an empty graph (no tag,
    attribute or handler came from the book), its inline data holds no "<" at all (so nothing can close the script
    or open a tag: `tojson` writes it as \\u003c), and no payload marker appears outside the script data."""
    import networkx as nx

    from core.viz import _vis_script, render_graph_html
    vis = _vis_script()
    assert html.count(vis) == 1, "the vis-network library is not inlined exactly once"
    page = parse_markup(html.replace(vis, ""))
    empty = parse_markup(render_graph_html(nx.MultiDiGraph()).replace(vis, ""))
    assert page.tags == empty.tags, f"elements or attributes differ from the template: {page.tags}"
    data = "".join(page.scripts)
    assert "<" not in data, "a '<' inside the inline script data"
    outside = "".join(page.text).lower()
    leaked = [m for m in PAYLOAD_MARKERS if m in outside]
    assert not leaked, f"payload markers outside the script data: {leaked}"


def assert_xhtml_inert(content: bytes, allowed_tags: set[str]) -> None:
    """An XHTML document (of an exported EPUB) parses as XML and holds only `allowed_tags`, with no on* attribute
    and no javascript: URL anywhere."""
    from lxml import etree
    root = etree.fromstring(content, etree.XMLParser(resolve_entities=False, no_network=True))
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.rsplit("}", 1)[-1]
        assert tag in allowed_tags, f"unexpected element <{tag}> in an exported chapter"
        for name, value in el.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            assert not local.startswith("on"), f"event handler attribute {name} in an exported chapter"
            assert "javascript:" not in value.lower(), f"javascript: URL in attribute {name}"


def assert_csv_neutral(payload: bytes) -> list[list[str]]:
    """Every cell of every CSV in the export zip starts with something other than a formula character; returns the
    rows of all files (for further checks)."""
    rows: list[list[str]] = []
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        for name in archive.namelist():
            for row in csv.reader(io.StringIO(archive.read(name).decode("utf-8"))):
                for cell in row:
                    assert not cell.startswith(FORMULA_STARTS), f"{name}: a cell a spreadsheet would run: {cell[:80]!r}"
                rows.append(row)
    return rows


def assert_markdown_inert(markdown: str) -> None:
    """No raw HTML tag and no link syntax from the book in a Markdown export: every "<" and "[" is escaped."""
    unescaped_lt = re.findall(r"(?<!\\)<[A-Za-z!/]", markdown)
    assert not unescaped_lt, f"raw HTML in the Markdown export: {unescaped_lt[:5]}"
    links = re.findall(r"(?<!\\)\[[^\]\n]*(?<!\\)\]\(", markdown)
    assert not links, f"a live link in the Markdown export: {links[:5]}"
