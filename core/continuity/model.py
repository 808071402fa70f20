"""Continuity's value types: a state located in its chapter, and a flag (a later sentence that contradicts one)."""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from core.kg.types import KgEntity

# The kinds of flag, in the order the page lists them.
FLAG_KINDS: tuple[str, ...] = ("dead", "tie", "attribute", "name", "home")
KIND_TITLES: dict[str, str] = {"dead": "A dead character acts", "tie": "A tie changes",
                               "attribute": "An attribute changes", "name": "A name changes",
                               "home": "A home or birthplace changes"}


@dataclass(frozen=True)
class State:
    """A core.kg.states.StateFact placed in its chapter: `start`/`end` are offsets in the chapter's text (-1 where
    the sentence could not be found in it)."""

    chapter: int
    name: str
    kind: str
    key: str
    value: str
    sentence: str
    start: int
    end: int
    cue: str = ""
    confidence: float = 1.0

    @property
    def cues(self) -> frozenset[str]:
        return frozenset(c for c in self.cue.split(",") if c)

    @property
    def at(self) -> tuple[int, int]:
        """Reading order."""
        return (self.chapter, self.start)


@dataclass(frozen=True)
class Flag:
    """A later sentence (`chapter`, `sentence`, `start`, `end`) that contradicts an earlier one (`prior_*`)."""

    kind: str               # one of FLAG_KINDS
    entity: str             # the entity's label
    name: str               # the name the new sentence uses
    chapter: int
    sentence: str
    start: int
    end: int
    prior_chapter: int
    prior_sentence: str
    prior_start: int
    prior_end: int
    confidence: float
    detail: str = ""        # why, in a few words: "dead since chapter 3"

    @property
    def key(self) -> str:
        """What an "intended" mark is kept by: the kind, the name and the sentence's words. A rebuild or an edit
        elsewhere keeps it; changing the sentence itself makes a new flag."""
        return flag_key(self.kind, self.name, self.sentence)

    def as_json(self) -> dict[str, Any]:
        """The CLI's line: kind, entity, chapter, sentence, start, end, contradicts {...}, confidence (+ detail)."""
        return {"kind": self.kind, "entity": self.entity, "chapter": self.chapter, "sentence": self.sentence,
                "start": self.start, "end": self.end,
                "contradicts": {"chapter": self.prior_chapter, "sentence": self.prior_sentence,
                                "start": self.prior_start, "end": self.prior_end},
                "confidence": round(self.confidence, 2), "detail": self.detail}

    def as_row(self) -> dict[str, Any]:
        return asdict(self)


def flag_key(kind: str, name: str, sentence: str) -> str:
    words = " ".join(sentence.lower().split())
    return hashlib.sha1(f"{kind}|{name.lower()}|{words}".encode()).hexdigest()[:32]


@dataclass
class Entities:
    """Which entity each name belongs to (resolution's clusters): key, label and type per name."""

    key: dict[str, str] = field(default_factory=dict)
    label: dict[str, str] = field(default_factory=dict)
    type: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, entities: Iterable[KgEntity]) -> Entities:
        out = cls()
        for e in entities:
            for n in e.names:
                out.key[n.name] = f"e{e.id}"
            out.label[f"e{e.id}"] = e.label
            out.type[f"e{e.id}"] = e.type
        return out

    def of_name(self, name: str) -> str:
        key = self.key.get(name)
        if key is None:   # a name the graph has not resolved (a draft's new name): its own entity
            key = self.key[name] = f"n:{name}"
            self.label[key] = name
            self.type[key] = ""
        return key


def make_flag(kind: str, entity: str, new: State, prior: State, confidence: float, detail: str) -> Flag:
    return Flag(kind, entity, new.name, new.chapter, new.sentence, new.start, new.end, prior.chapter,
                prior.sentence, prior.start, prior.end, round(min(max(confidence, 0.05), 0.99), 2), detail)
