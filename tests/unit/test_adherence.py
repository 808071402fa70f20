"""core.write.adherence on a tiny chapter: a beat that happens is found with the passage that tells it, a beat that
does not is missing, characters are seen in the graph or the text. A bag-of-words embedder stands in for MiniLM
(pure: the check takes its embedder); one slow test runs the real MiniLM."""
from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from core.write import adherence
from core.write.plan import ChapterPlan

TEXT = ("Mara found a blue egg behind the barn. She hid it under her coat and ran home.\n\n"
        "That night the egg cracked, and a small dragon crawled out. Tomas laughed at her fear.")
PLAN = ChapterPlan(1, ("Mara finds an egg behind the barn", "The egg cracks and a dragon crawls out",
                       "Mara sails to the glass island and duels a pirate king"), ("Mara", "Tomas", "Orla Finch"))


def bag(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors of hashed stems: texts sharing words are near, others orthogonal-ish."""
    out = np.zeros((len(texts), 256), dtype=np.float32)
    for k, text in enumerate(texts):
        for stem in adherence.stems(text):
            out[k, zlib.crc32(stem.encode()) % 256] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)


def test_beats_found_and_missing_with_their_best_passage() -> None:
    result = adherence.check(TEXT, PLAN, bag)
    assert [b.found for b in result.beats] == [True, True, False]
    assert result.beats[0].passage == "Mara found a blue egg behind the barn."
    assert "dragon crawled out" in result.beats[1].passage
    assert result.beats_found == 2 and result.threshold == adherence.THRESHOLD
    assert all(b.score == pytest.approx(b.similarity + adherence.OVERLAP_WEIGHT * b.overlap, abs=1e-3)
               for b in result.beats)
    data = result.as_dict()
    assert data["beats_found"] == 2 and data["characters_present"] == 2 and len(data["beats"]) == 3


def test_characters_by_graph_names_aliases_or_text() -> None:
    result = adherence.check(TEXT, PLAN, bag)
    assert [(c.name, c.present, c.seen_in) for c in result.characters] == [
        ("Mara", True, "text"), ("Tomas", True, "text"), ("Orla Finch", False, "")]
    assert "graph is not built" in result.note
    result = adherence.check(TEXT, PLAN, bag, graph_names={"Mara Quill", "Orla"},
                             aliases={"Mara": ["Mara Quill"], "Orla Finch": ["Orla"]})
    assert [(c.present, c.seen_in) for c in result.characters] == [(True, "graph"), (True, "text"), (True, "graph")]
    assert result.note == ""


def test_stems_windows_and_edge_cases() -> None:
    assert adherence.stems("Scrooge refuses; he refused the donation, donate!") == {"scroo", "refus", "donat"}
    assert adherence.windows("One. Two. Three.", size=2) == ["One.", "Two.", "Three.", "One. Two.", "Two. Three."]
    empty = adherence.check("", PLAN, bag)
    assert [b.found for b in empty.beats] == [False, False, False] and empty.beats[0].passage == ""
    assert adherence.check(TEXT, ChapterPlan(1, (), ("Mara",)), bag).beats == ()


@pytest.mark.slow
def test_minilm_finds_a_paraphrased_beat_and_misses_an_absent_one() -> None:
    from core.nlp import embed
    result = adherence.check(TEXT, PLAN, embed)
    assert [b.found for b in result.beats] == [True, True, False]
