"""The graph as other features read it: facts for retrieval, entities of a chapter, names to entities.

    facts = facts_for_retrieval(store, work_id, upto_chapter=9)         # Andrus: rank these, verbalize the top 3
    present = entities_in_chapter(store, work_id, 10)                   # KGScore: N_k for chapter k's subgraph
    who = alias_resolver(store, work_id)("Lizzy")                       # -> the Elizabeth entity
    g = graph_as_of(store, work_id, 9)                                  # networkx MultiDiGraph, nothing after ch. 9

Everything takes `upto_chapter` so callers working on chapter k can exclude what comes later.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from core.kg import graph as kg_graph
from core.kg.llm_common import clean_llm_name
from core.kg.names import normalize_name
from core.kg.types import INTERACTION_RELATIONS, KgEntity
from core.services.kg_views import load_graph_data
from core.store import Store


@dataclass(frozen=True)
class RetrievalFact:
    """A triple with its provenance. `text` is the template verbalization "subject relation object"."""

    id: int
    subject: str
    relation: str
    object: str
    chapter: int
    chunk_id: int | None
    chunk_index: int
    sentence: str
    subject_entity: int | None
    object_entity: int | None

    @property
    def text(self) -> str:
        return " ".join(p for p in (self.subject, self.relation, self.object) if p)


def facts_for_retrieval(store: Store, work_id: int, upto_chapter: int | None = None, *, kind: str = "all",
                        entity_ids: set[int] | None = None) -> list[RetrievalFact]:
    """Every stored triple (edges and facts, or only one `kind`) up to a chapter, in reading order, with the
    entity ids of its ends; `entity_ids` keeps triples touching those entities."""
    owner = {n.name: e.id for e in store.kg_entities(work_id) for n in e.names}
    out = []
    for t in store.kg_triples(work_id, upto_chapter, kind=kind):
        if t.relation in INTERACTION_RELATIONS:  # interaction edges join characters; they state no fact
            continue
        s, o = owner.get(t.subject_name or ""), owner.get(t.object_name or "")
        if entity_ids is not None and s not in entity_ids and o not in entity_ids:
            continue
        out.append(RetrievalFact(t.id, t.subject, t.relation, t.object, t.chapter_index, t.chunk_id, t.chunk_index,
                                 t.sentence, s, o))
    return out


def entities_in_chapter(store: Store, work_id: int, chapter: int) -> list[tuple[KgEntity, int]]:
    """(entity, mentions in that chapter), most mentioned first."""
    owner = {n.name: e for e in store.kg_entities(work_id) for n in e.names}
    counts: Counter[int] = Counter()
    by_id: dict[int, KgEntity] = {}
    for c in store.kg_name_counts(work_id, chapter):
        if c.chapter_index == chapter and c.name in owner:
            counts[owner[c.name].id] += c.count
            by_id[owner[c.name].id] = owner[c.name]
    return [(by_id[i], n) for i, n in counts.most_common()]


def alias_resolver(store: Store, work_id: int) -> Callable[[str], KgEntity | None]:
    """A function from a surface name ("Lizzy", "Mr Darcy's", "lady catherine") to its entity, or None."""
    entities = store.kg_entities(work_id)
    exact = {n.name: e for e in entities for n in e.names}
    folded: dict[str, KgEntity] = {}
    for e in sorted(entities, key=lambda e: e.mentions):   # the commonest entity wins a case-insensitive clash
        for n in e.names:
            folded[n.name.lower()] = e
        folded.setdefault(e.label.lower(), e)

    def lookup(name: str) -> KgEntity | None:
        for candidate in (name, normalize_name(name), clean_llm_name(name)):
            if candidate and candidate in exact:
                return exact[candidate]
            if candidate and candidate.lower() in folded:
                return folded[candidate.lower()]
        return None

    return lookup


def graph_as_of(store: Store, work_id: int, chapter: int | None = None) -> nx.MultiDiGraph:
    """The whole graph as of a chapter (node and edge attributes: see core.kg.graph.graph_as_of)."""
    return kg_graph.graph_as_of(load_graph_data(store, work_id), chapter)
