"""The chapter resolver's data (core.kg.coref): a name mention, what a chapter resolves to, and a pronoun's
candidate. A leaf module, so the resolver's passes and their shared state (core.kg.coref_state) can name these types
without importing the resolver that assembles them."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from core.kg.quotes import Quote


@dataclass(frozen=True)
class NamedSpan:
    """A name mention in one doc: tokens [start, end)."""

    start: int
    end: int
    name: str


@dataclass
class ChapterCoref:
    """What the chapter's pronouns and quotations resolve to, and the typing evidence gathered on the way."""

    refs: list[dict[int, str]]                                       # per doc: token index -> name
    quotes: list[Quote] = field(default_factory=list)
    gender: dict[str, str] = field(default_factory=dict)
    narrator: str | None = None                                      # who "I" is in the narration, if clear
    character_evidence: Counter[str] = field(default_factory=Counter)
    place_evidence: Counter[str] = field(default_factory=Counter)
    thing_evidence: Counter[str] = field(default_factory=Counter)   # a maker's name: "a Colt's revolver"
    stats: Counter[str] = field(default_factory=Counter)


@dataclass
class _Entry:
    sentence: int
    name: str          # UNNAMED for a common-noun person
    subject: bool
    doc: int
    verb: int          # token index of the governing verb in its doc (binding)
    quote: int         # first-level quotation id (-1 narration)
    gender: str | None = None
