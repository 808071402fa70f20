"""The offline KGScore variant with the packaged spaCy model: reference entities, edges restricted to them (name
parts, subject pronouns), and the entity shuffle: same-type swaps keep the words and lower KGScore, not ROUGE-1."""
from __future__ import annotations

import random
import re
import zlib

import numpy as np
import pytest

from core.metrics.entity_shuffle import shuffle_entities
from core.metrics.kgscore import ScoreEdge, SummaryScorer
from core.metrics.kgscore_offline import OfflineEdgeExtractor, name_patterns, reference_entities
from core.metrics.rouge_wrap import embedding_similarity, rouge_scores, windows

REFERENCE = ("Captain Anna Grey sails the Mercury from London to Lisbon. Anna Grey hires Thomas Reed as her mate. "
             "In Lisbon, Grey meets Maria Lopez. Maria Lopez warns Grey about the storm. She distrusts Reed. "
             "Reed betrays Grey and steals the Mercury.")


def hashed(texts):  # noqa: ANN001, ANN201
    out = np.zeros((len(texts), 64))
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, zlib.crc32(w.encode()) % 64] += 1
    return out + 1e-3


@pytest.fixture(scope="module")
def entities() -> list[str]:
    return reference_entities(REFERENCE)


def test_reference_entities(entities: list[str]) -> None:
    keys = {e.lower() for e in entities}
    assert {"london", "lisbon", "maria lopez", "thomas reed"} <= keys
    assert "anna grey" in keys and "captain anna grey" not in keys and "grey" not in keys and "reed" not in keys


def test_name_parts_stand_for_an_entity_only_when_unambiguous() -> None:
    patterns = name_patterns(["Anna Grey", "Thomas Reed", "Tom Grey"], str.split)
    assert patterns[("reed",)] == "thomas reed" and patterns[("anna",)] == "anna grey"
    assert ("grey",) not in patterns                    # two entities share it


def test_offline_edges_between_the_given_entities(entities: list[str]) -> None:
    edges = OfflineEdgeExtractor(pronouns="coref").extract(REFERENCE, entities)
    keys = {e.lower(): e for e in entities}
    grey = "anna grey"
    pairs = {(e.subject, e.object) for e in edges}
    assert (grey, "thomas reed") in pairs                       # "Anna Grey hires Thomas Reed"
    assert ("thomas reed", grey) in pairs                       # "Reed betrays Grey": name parts
    assert ("maria lopez", grey) in pairs
    assert ("maria lopez", "thomas reed") in pairs              # "She distrusts Reed": the pronoun continues Maria
    assert all(e.subject in {k for k in keys} for e in edges)
    plain = OfflineEdgeExtractor().extract(REFERENCE, entities)          # the default: named ends only
    assert ("maria lopez", "thomas reed") not in {(e.subject, e.object) for e in plain}
    assert OfflineEdgeExtractor(pronouns="subject").extract(REFERENCE, entities) != plain
    with_interactions = OfflineEdgeExtractor(interactions=True).extract(REFERENCE, entities)
    assert any(e.predicate == "appears with" for e in with_interactions)
    with pytest.raises(ValueError):
        OfflineEdgeExtractor(pronouns="all")


def test_shuffle_keeps_words_and_types_and_lowers_kgscore_not_rouge1(entities: list[str]) -> None:
    shuffled = shuffle_entities(REFERENCE, random.Random(3))
    assert shuffled.moved > 0 and shuffled.text != REFERENCE
    assert sorted(re.findall(r"\w+", shuffled.text)) == sorted(re.findall(r"\w+", REFERENCE))
    scorer = SummaryScorer(OfflineEdgeExtractor(), embed=hashed)
    same, moved = scorer.score(REFERENCE, REFERENCE), scorer.score(shuffled.text, REFERENCE)
    assert same["f1"] == pytest.approx(1.0, abs=1e-6)
    assert moved["f1"] < 0.9 * same["f1"]
    assert moved["rouge1"] == pytest.approx(same["rouge1"])


def test_shuffle_without_two_names_of_a_type_changes_nothing() -> None:
    text = "Anna sailed to Lisbon."
    assert shuffle_entities(text, random.Random(0)).text == text


def test_rouge_and_embedding_similarity_helpers() -> None:
    assert rouge_scores("the cat sat", "the cat sat") == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    assert rouge_scores("dogs run", "the cat sat")["rouge1"] == 0.0
    assert embedding_similarity("a b c. d e", "a b c. d e", hashed) == pytest.approx(1.0)
    pieces = windows(" ".join(["word"] * 250) + ". Short one.", size=120)
    assert [len(p.split()) for p in pieces] == [120, 120, 12]
    assert ScoreEdge("a", "a", "x").is_self_loop


def test_one_action_is_one_self_loop() -> None:
    """The paper's self-loop is "a description or action of a single entity": a verb with several objects that are
    not entities is one edge, not one per object (each took credit of its own)."""
    text = "Anna Grey sails a small boat to the island at dawn."
    merged = OfflineEdgeExtractor().extract(text, ["Anna Grey"])
    assert merged == [ScoreEdge("anna grey", "anna grey", "sails a small boat to the island at dawn")]
    split = OfflineEdgeExtractor(merge_actions=False).extract(text, ["Anna Grey"])
    assert len(split) == 3 and all(e.subject == e.object == "anna grey" for e in split)
