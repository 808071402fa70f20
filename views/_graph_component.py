"""The Graph page's drawing: a small bidirectional Streamlit component (assets/graph_component) that draws a
core.viz payload with vis-network and returns the node a user clicks.

Streamlit serves a component's files from one folder and refuses links out of it, and the vis-network script
already ships inside pyvis's package; so the folder is assembled once per content version in the temp directory:
index.html and graph.js from assets/, vis-network.min.js from pyvis (written atomically: two app processes may
start at once).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import streamlit.components.v1 as components

from core.viz import vis_script_path

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "graph_component"
FILES = ("index.html", "graph.js")


@lru_cache(maxsize=1)
def component_dir() -> Path:
    sources = {name: ASSETS / name for name in FILES} | {"vis-network.min.js": vis_script_path()}
    digest = hashlib.sha1()
    for name, path in sorted(sources.items()):
        digest.update(name.encode() + path.read_bytes())
    folder = Path(tempfile.gettempdir()) / f"fabula-graph-component-{digest.hexdigest()[:12]}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, path in sources.items():
        target = folder / name
        if not target.exists() or target.stat().st_size != path.stat().st_size:
            partial = folder / f".{name}.{os.getpid()}"
            shutil.copyfile(path, partial)
            os.replace(partial, target)
    return folder


def graph_view(payload: dict[str, Any], *, height: int, key: str, on_click: Any = None) -> dict[str, Any] | None:
    """Draw `payload` (core.viz.graph_payload); returns the last click, {"node", "click", "at"}, or None.
    `on_click` runs (as a widget callback, before the rerun) when a node is clicked."""
    component = components.declare_component("fabula_graph", path=str(component_dir()))
    return component(**payload, height=height, key=key, default=None, on_change=on_click)
