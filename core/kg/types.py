"""The knowledge graph's value types: what an extractor produces for one chapter, and what is stored and read back.

Names are the unit of extraction: an extractor reports surface names ("Mr. Darcy", "Lizzy"), triples between them and
alias evidence. Entities exist only after resolution (core.kg.resolve) groups names, so re-resolving never has to
touch a stored triple: edges point at names, and names point at entities.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from core.kg.state_base import StateFact

NODE_TYPES: tuple[str, ...] = ("character", "location", "organization", "object", "event")
EXTRACTORS: tuple[str, ...] = ("offline", "llm", "grapher")
# Relations of the interaction edges the offline extractor adds where the text joins two characters without a clean
# verb: named in one sentence ("co-occurs"; "mentioned with" when one is a place, group or thing), or one speaking to
# the other in a dialogue exchange. They weigh a
# relationship but are not facts: alias resolution's guards and fact retrieval leave them out.
CO_OCCURS = "appears with"
SPEAKS_TO = "speaks to"
CO_MENTIONED = "mentioned with"     # two named entities in one sentence, at least one of them not a character
INTERACTION_RELATIONS: frozenset[str] = frozenset({CO_OCCURS, SPEAKS_TO, CO_MENTIONED})


@dataclass(frozen=True)
class Triple:
    """(subject, relation, object) from one sentence. `subject_name` / `object_name` are set when that end is a
    named entity mention: a triple with at least one is a graph edge, one with none is a fact kept for retrieval.
    An empty `object` with `object_name` None is a description of the subject (a KGScore self-loop)."""

    subject: str
    relation: str
    object: str
    sentence: str
    chunk_index: int
    subject_name: str | None = None
    object_name: str | None = None
    label: str = ""             # a readable predicate (the verb's lemma with its particle: "sell to"); "" = relation

    @property
    def is_edge(self) -> bool:
        return bool(self.subject_name or self.object_name)


@dataclass(frozen=True)
class NameMention:
    """`count` occurrences of a name in one passage, with the node type those occurrences suggest."""

    name: str
    type: str
    chunk_index: int
    count: int = 1


@dataclass(frozen=True)
class AliasLink:
    """Evidence that two names denote one entity: an apposition in the text, an LLM alias list, a grapher id."""

    name_a: str
    name_b: str
    kind: str
    chunk_index: int = 0
    sentence: str = ""


@dataclass
class ChapterExtraction:
    """Everything one chapter contributes to the graph; replacing it replaces exactly that contribution."""

    chapter_index: int
    triples: list[Triple] = field(default_factory=list)
    mentions: list[NameMention] = field(default_factory=list)
    aliases: list[AliasLink] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)  # counters, and the offline extractor's "version"
    states: list[StateFact] = field(default_factory=list)  # the offline extractor's story states (issue 32)
    # what other readers took from the same parse, kind -> payload (the offline extractor's `also`), for the service
    # to store beside the chapter: the Retention page's mentions need no second parse
    extra: dict[str, Any] = field(default_factory=dict)


# ---- read back from the store -------------------------------------------------------------------------------

@dataclass(frozen=True)
class StoredTriple:
    id: int
    chapter_index: int
    chunk_id: int | None
    chunk_index: int
    subject: str
    relation: str
    object: str
    sentence: str
    subject_name: str | None
    object_name: str | None
    label: str | None = None    # None for triples stored before labels existed: use `relation`

    @property
    def predicate(self) -> str:
        return self.label or self.relation


@dataclass(frozen=True)
class NameCount:
    """How often a name occurs in one chapter, per suggested node type."""

    name: str
    chapter_index: int
    type: str
    count: int


@dataclass(frozen=True)
class DatedAlias:
    name_a: str
    name_b: str
    kind: str
    chapter_index: int


@dataclass
class EntityName:
    """One name of an entity. `joined_via`/`joined_chapter` record the merge that attached it (None for the
    entity's first name), so a view as of an earlier chapter can undo merges whose evidence came later."""

    name: str
    first_chapter: int
    count: int
    joined_via: str | None = None
    joined_chapter: int | None = None


@dataclass
class KgEntity:
    id: int
    label: str
    type: str
    names: list[EntityName]
    first_chapter: int
    mentions: int
    user_label: bool = False

    @property
    def aliases(self) -> list[str]:
        return [n.name for n in self.names]


@dataclass(frozen=True)
class Decision:
    """A user's merge, split, rename or retype, stored by names so that it survives re-extraction."""

    id: int
    op: str
    payload: dict[str, Any]


@dataclass
class KgState:
    work_id: int
    extractor: str
    llm: str | None
    version: int
    chapters: int
    stats: dict[str, Any] = field(default_factory=dict)
