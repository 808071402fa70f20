"""bench/graph_names.py finds the text of every book and story its gold lists name (the novels, GraphRAG-Bench's
books, the SQuALITY and QuALITY stories of the later held-out splits, NarrativeQA's plot summaries and LF-QUOREF's
articles), in
../shared/data."""
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
    assert {g["split"] for g in golds} == {"tune", "held_out", "held_out2", "held_out3", "held_out4", "held_out5",
                                                "held_out6", "held_out7", "held_out8", "held_out9", "held_out10", "held_out11"}
    for gold in golds:
        name, data = source_text(SHARED, gold)
        text = data.decode("utf-8")
        shortest = {"narrativeqa": 150, "lf_quoref": 150}.get(gold["source"], 3000)   # a summary, an article, a plot
        assert name.endswith(".txt") and len(text.split()) > shortest, gold["book"]
        flat = " ".join(text.split()).casefold()
        named = [name for entry in gold["entities"][:2] for name in entry["names"]]   # the first may be the title
        assert any(name.casefold() in flat for name in named), gold["book"]
