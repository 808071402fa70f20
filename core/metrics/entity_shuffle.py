"""The entity-shuffle check of the KGScore paper (section 4.3): the named entities of a summary change places, each
only with entities of its own type (a person with a person, a place with a place), so the words stay the same but the
facts become wrong. A factuality metric should drop a lot; ROUGE-1 hardly moves.
"""
from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from core import nlp as nlp_helpers

SHUFFLED_TYPES = frozenset({"PERSON", "NORP", "ORG", "GPE", "LOC", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "LAW"})


@dataclass(frozen=True)
class Shuffled:
    text: str
    entities: int      # named-entity mentions of a shuffled type
    moved: int         # mentions whose text changed


def shuffle_entities(text: str, rng: random.Random, nlp: Any = None, tries: int = 10) -> Shuffled:
    """`text` with the mentions of each entity type permuted among themselves (each type with at least two distinct
    names is permuted until at least one mention changes, up to `tries` times)."""
    doc = next(nlp_helpers.pipe([text], nlp=nlp or nlp_helpers.load_spacy()))
    by_type: dict[str, list[Any]] = defaultdict(list)
    for ent in doc.ents:
        if ent.label_ in SHUFFLED_TYPES:
            by_type[ent.label_].append(ent)
    replacement: dict[int, str] = {}
    for label in sorted(by_type):
        spans = by_type[label]
        names = [s.text for s in spans]
        order = list(names)
        if len(set(names)) > 1:
            for _ in range(tries):
                rng.shuffle(order)
                if order != names:
                    break
        replacement.update({s.start_char: new for s, new in zip(spans, order)})
    spans = sorted((s for group in by_type.values() for s in group), key=lambda s: s.start_char)
    out, last, moved = [], 0, 0
    for s in spans:
        new = replacement[s.start_char]
        moved += new != s.text
        out.extend([text[last:s.start_char], new])
        last = s.end_char
    out.append(text[last:])
    return Shuffled("".join(out), len(spans), moved)
