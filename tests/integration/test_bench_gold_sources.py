"""bench/graph_names.py finds the text of every book and story its gold lists name (the novels, GraphRAG-Bench's
books, the SQuALITY and QuALITY stories of the later held-out splits, NarrativeQA's plot summaries and LF-QUOREF's
and LF-SQuAD's articles), in ../shared/data."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import shared_missing

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT / "bench"))


def test_every_gold_list_has_its_text() -> None:
    if not (SHARED / "data").exists():
        pytest.skip(shared_missing(SHARED / "data"))
    from graph_names import GOLD, source_text
    golds = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(GOLD.glob("*.json"))]
    assert {g["split"] for g in golds} == {"tune", "held_out", *(f"held_out{k}" for k in range(2, 13))}
    for gold in golds:
        name, data = source_text(SHARED, gold)
        text = data.decode("utf-8")
        shortest = {"narrativeqa": 150, "lf_quoref": 150, "quality": 1500}.get(gold["source"], 2000)
        # (a summary, an article or a plot; a short story)
        assert name.endswith(".txt") and len(text.split()) > shortest, gold["book"]
        flat = " ".join(text.split()).casefold()
        named = [name for entry in gold["entities"][:2] for name in entry["names"]]   # the first may be the title
        assert any(name.casefold() in flat for name in named), gold["book"]
