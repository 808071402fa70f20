"""The pieces the state extractor's modules share (core.kg.states, core.kg.state_facts): the fact type, one parsed
passage with its names, and the cues that make a clause no plain statement of the story's present."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from core.kg import state_words as W
from core.kg.quotes import quote_levels

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc, Span, Token

    from core.kg.mentions import Mention

PRONOUN_CONFIDENCE = 0.7


@dataclass(frozen=True)
class StateFact:
    """One state or event of a named entity, from one sentence. `key`/`value` by kind: act (acts|speaks|seen, ""),
    dead (died|killed|dead|death|late|inferred, ""), tie (the tie noun: `name` is `key` of `value`), attr (eyes,
    hair, height, age, profession, nationality; the value), born/home/move (""; the place), name ("", the full
    name), time (years, a number or "many"; `name` empty)."""

    name: str
    kind: str
    key: str
    value: str
    chunk_index: int
    start: int              # the sentence's character offsets in the parsed passage
    end: int
    sentence: str
    cue: str = ""           # comma-separated: quote, pronoun, negated, hedge, belief, perfect, memory, ghost, past...
    confidence: float = 1.0

    @property
    def cues(self) -> frozenset[str]:
        return frozenset(c for c in self.cue.split(",") if c)


class ParsedDoc:
    """One parsed passage with its names: token -> (name, explicit) from the mentions and the resolved pronouns."""

    def __init__(self, doc: Doc, mentions: Sequence[Mention], refs: dict[int, str], chunk_index: int,
                 types: dict[str, str]) -> None:
        self.doc = doc
        self.chunk_index = chunk_index
        self.names: dict[int, tuple[str, bool]] = {i: (name, False) for i, name in refs.items()}
        self.heads: dict[int, tuple[str, bool]] = dict(self.names)   # the syntactic head of each name
        self.spans: dict[int, tuple[int, int]] = {}
        for m in mentions:
            for i in range(m.start, m.end):
                self.names[i] = (m.name, True)
                self.spans[i] = (m.start, m.end)
            head = doc[m.start:m.end].root.i
            self.heads[head] = (m.name, True)
        self.depth, _, self.paragraph = quote_levels(doc)
        self.types: dict[str, str] = {}
        for m in mentions:   # the chapter's evidence first; else a name ever typed a character is one
            if self.types.get(m.name) != "character":
                self.types[m.name] = types.get(m.name, m.type)

    def name(self, tok: Token) -> tuple[str, bool] | None:
        return self.heads.get(tok.i)


def sentence_words(sent: Span) -> frozenset[str]:
    return frozenset(t.lower_ for t in sent)


def verb_cues(verb: Token) -> list[str]:
    """What makes a clause no plain statement: negation, a modal or "nearly", a pluperfect, a condition, a belief or
    memory verb above it ("they thought he had died", "she remembered how Jo ran")."""
    cues: list[str] = []
    children = list(verb.children)
    if any(c.dep_ == "neg" for c in children):
        cues.append("negated")
    if any(c.dep_ == "aux" and c.lower_ in W.HEDGES for c in children) or any(
            c.dep_ == "advmod" and c.lower_ in ("nearly", "almost") for c in children):
        cues.append("hedge")
    if any(c.dep_ == "aux" and c.lower_ in ("had", "'d") for c in children) and verb.tag_ in ("VBN", "VBD"):
        cues.append("perfect")   # "had run", and "Had she discovered" (the model tags it VBD)
    if verb.lower_ == "were" and (subject := next((c for c in children if c.dep_ == "nsubj"), None)) is not None \
            and subject.tag_ in ("NNP", "NN"):
        cues.append("hedge")   # "as soon as Mr. Bennet were dead": a subjunctive, no fact
    node = verb
    for _ in range(6):
        if any(c.dep_ == "mark" and c.lower_ in ("if", "unless", "though", "lest", "whether") for c in node.children):
            cues.append("hedge")
            break
        if node.dep_ == "ROOT" or node.head is node:
            break
        node = node.head
        if node.lower_ in W.BELIEF_WORDS:
            cues.append("belief")
            break
        if node.lower_ in W.MEMORY_WORDS:
            cues.append("memory")
            break
    return cues


def sentence_cues(words: frozenset[str]) -> list[str]:
    cues = ["question"] if "?" in words else []   # "Had she found it out?": an inquiry, no present act
    if words & W.MEMORY_WORDS:
        cues.append("memory")
    if words & W.GHOST_WORDS:
        cues.append("ghost")
    return cues


class Emit(Protocol):
    """Records one fact of a sentence (core.kg.states._Reader.add)."""

    def __call__(self, d: ParsedDoc, sent: Span, name: str, kind: str, key: str, value: str,
                 cues: Sequence[str] = (), explicit: bool = True, confidence: float = 1.0) -> None: ...
