"""What QA reads from a work, loaded once per work and cached until it changes: passages, facts, NARCO edges, the
graph's entities and where they occur, and the embeddings (stored, never recomputed per process).

    corpus = load_corpus(store, work_id)      # cached per store and work until store.qa_signature changes
    ensure_vectors(store, work_id)            # passage embeddings, once per passage (stored by chunk id), then
                                              # the passages' sentence embeddings (stored per chunk, read by SHA-1)
    embed = stored_embed(store, fallback)     # the extractive reader's and support check's embed: stored first
    ensure_meaning_vectors(store, corpus)     # fact and entity-name embeddings (stored by the text's SHA-1)

Passage vectors are stored per chunk (a chapter edit drops exactly its own); fact and entity-name vectors are stored
by content, so a rebuilt graph whose triples read the same reuses them and a new process embeds nothing twice.
"""
from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from core.kg.graph import INTERACTION_WEIGHT
from core.kg.types import INTERACTION_RELATIONS
from core.qa import Corpus, FactRecord, Passage
from core.retrieval.entities import EntityIndex, EntityRef, Relation
from core.store import Store

EMBED_MODEL = "all-MiniLM-L6-v2"
EMBED_BATCH = 64
SENTENCE_BATCH = 32   # passages whose sentences are embedded and stored at once (~600 sentences: bounded memory)
ProgressFn = Callable[[int, int, str], None]
Embed = Callable[[Sequence[str]], np.ndarray]
_corpora: weakref.WeakKeyDictionary[Any, dict[int, tuple[tuple[int, ...], Corpus]]] = weakref.WeakKeyDictionary()


def load_corpus(store: Store, work_id: int) -> Corpus:
    """Passages, facts, NARCO edges, the entity index and cached vectors of the whole work (reading order)."""
    signature = store.qa_signature(work_id)
    per_store = _corpora.setdefault(store, {})
    hit = per_store.get(work_id)
    if hit and hit[0] == signature:
        return hit[1]
    store.get_work(work_id)  # NotFound for a deleted work
    chunks = store.list_chunks(work_id)
    passages = [Passage(c.id, c.chapter_index, c.index, c.text) for c in chunks]
    triples = store.kg_triples(work_id, None, kind="all")
    index, position = _entity_index(store, work_id, passages, triples)
    facts = [FactRecord(t.subject, t.relation, t.object, t.chapter_index, t.chunk_index, t.chunk_id, t.sentence,
                        position.get(t.subject_name or ""), position.get(t.object_name or ""))
             for t in triples if t.relation not in INTERACTION_RELATIONS]
    cached = store.chunk_vectors(work_id, EMBED_MODEL)
    ids = [p.chunk_id for p in passages]
    vectors = np.stack([cached[i] for i in ids if i is not None]) if passages and all(i in cached for i in ids) \
        else None
    edges = store.narco_edges(work_id, with_embeddings=True)
    corpus = Corpus(passages, facts, vectors, edges, _edge_vectors(edges), entities=index)
    attach_meaning_vectors(store, corpus, compute=False)
    per_store[work_id] = (signature, corpus)
    return corpus


def _entity_index(store: Store, work_id: int, passages: list[Passage],
                  triples: list[Any]) -> tuple[EntityIndex | None, dict[str, int]]:
    entities = store.kg_entities(work_id)
    if not entities:
        return None, {}
    refs = [EntityRef(e.id, e.label, e.type, tuple(n.name for n in e.names)) for e in entities]
    position = {n.name: i for i, e in enumerate(entities) for n in e.names}
    row_of = {p.chunk_id: r for r, p in enumerate(passages)}
    relations, ends = [], []
    for t in triples:
        a, b = position.get(t.subject_name or ""), position.get(t.object_name or "")
        row = row_of.get(t.chunk_id)
        for e in (a, b):
            if e is not None and row is not None:
                ends.append((row, e))
        if a is not None and b is not None and a != b:
            weight = INTERACTION_WEIGHT if t.relation in INTERACTION_RELATIONS else 1.0
            relations.append(Relation(t.chapter_index, a, b, weight, t.predicate))
    return EntityIndex.build([p.text for p in passages], refs, relations, ends), position


def _edge_vectors(edges: list) -> np.ndarray | None:
    if not edges:
        return None
    missing = [i for i, e in enumerate(edges) if e.embedding is None]
    if missing:  # edges stored without vectors (an older build): embed them now, in memory
        from core.nlp import embed
        fresh = embed([edges[i].question for i in missing])
        filled = {i: fresh[k] for k, i in enumerate(missing)}
        return np.stack([filled.get(i, e.embedding) for i, e in enumerate(edges)]).astype(np.float32)
    return np.stack([e.embedding for e in edges]).astype(np.float32)


def ensure_vectors(store: Store, work_id: int, on_progress: ProgressFn | None = None, *,
                   sentences: bool = True) -> int:
    """Embed the passages that have no cached vector yet (committed per batch); returns how many were embedded.
    Then, with `sentences`, the sentences of every passage not yet split and embedded (ensure_sentence_vectors).
    One call per work at a time in this process: a second (Ask's first question while the import's embedding runs)
    waits for the first and then finds the vectors stored."""
    from core.nlp import embed
    report = on_progress or (lambda done, total, message: None)
    with _vector_lock(store, work_id):
        cached = store.chunk_vectors(work_id, EMBED_MODEL)
        todo = [c for c in store.list_chunks(work_id) if c.id not in cached]
        for start in range(0, len(todo), EMBED_BATCH):
            batch = todo[start:start + EMBED_BATCH]
            vectors = embed([c.text for c in batch])
            store.put_chunk_vectors(EMBED_MODEL, {c.id: v for c, v in zip(batch, vectors)})
            report(start + len(batch), len(todo), f"Embedded {start + len(batch)} of {len(todo)} passages")
    if sentences:
        ensure_sentence_vectors(store, work_id, on_progress)
    return len(todo)


def ensure_sentence_vectors(store: Store, work_id: int, on_progress: ProgressFn | None = None) -> int:
    """Split every passage whose sentences are not stored yet with the extractive reader's own splitter
    (split_sentences, so a cited passage's sentences are found by their SHA-1) and store their vectors, committed
    every SENTENCE_BATCH passages (memory stays bounded on a huge book; an interrupted run resumes where it stopped).
    Returns how many passages were done. Its own lock: a question waiting for passage vectors never waits for this."""
    from core.ingest.sentences import split_sentences
    from core.nlp import embed
    report = on_progress or (lambda done, total, message: None)
    with _vector_lock(store, work_id, "sentences"):
        done = store.sentence_vector_chunks(work_id, EMBED_MODEL)
        todo = [c for c in store.list_chunks(work_id) if c.id not in done]
        for start in range(0, len(todo), SENTENCE_BATCH):
            batch = todo[start:start + SENTENCE_BATCH]
            split = [(c.id, split_sentences(c.text)) for c in batch]
            texts = [t for _, parts in split for t in parts]
            vectors = embed(texts) if texts else np.zeros((0, 384), dtype=np.float32)
            rows: dict[int, list[tuple[str, np.ndarray]]] = {}
            k = 0
            for cid, parts in split:
                rows[cid] = [(text_key(t), vectors[k + i]) for i, t in enumerate(parts)]
                k += len(parts)
            store.put_sentence_vectors(EMBED_MODEL, rows)
            report(start + len(batch), len(todo), f"Embedded the sentences of {start + len(batch)} of {len(todo)} "
                                                  "passages")
    return len(todo)


def stored_embed(store: Store, fallback: Embed, stand_ins: Mapping[str, str] | None = None) -> Embed:
    """An embed function (texts -> unit rows) that reads the sentences embedded at import from the store and hands
    only the others (a question, an answer, a passage of a book imported before sentence vectors) to `fallback`:
    the extractive reader's 40 candidate sentences cost one indexed query instead of a MiniLM call. `stand_ins`
    (cut_sentences) maps the last sentence of a passage the budget cut short to the whole sentence, whose stored
    vector stands in for it (embedding two cut sentences cost 0.3-1.4 s on a loaded 2-core machine)."""
    swap = stand_ins or {}

    def embed(texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        keys = [text_key(swap.get(t, t)) for t in texts]
        found = store.sentence_vectors(EMBED_MODEL, keys)
        missing = list(dict.fromkeys(swap.get(t, t) for t, k in zip(texts, keys) if k not in found))
        if missing:
            found.update({text_key(t): v for t, v in zip(missing, fallback(missing))})
        return np.stack([found[k] for k in keys]).astype(np.float32)
    return embed


def cut_sentences(citations: Sequence[Any], corpus: Corpus) -> dict[str, str]:
    """For each cited passage the prompt budget cut short (its text a start of the passage's), its sentences that are
    not whole sentences of the passage -> the whole sentence they begin (split_sentences on both, as the reader
    splits). Empty when no passage was cut. For ranking only: the support check embeds a cut sentence as it reads
    (the words cut off must not count as support)."""
    from core.ingest.sentences import split_sentences
    text_of = {p.chunk_id: p.text for p in corpus.passages}
    out: dict[str, str] = {}
    for c in citations:
        full = text_of.get(getattr(c, "chunk_id", None))
        if full is None or c.text == full or not full.startswith(c.text.rstrip()[:200]):
            continue
        whole = split_sentences(full)
        known = set(whole)
        for part in split_sentences(c.text):
            if part not in known:
                stand_in = next((w for w in whole if w.startswith(part)), None)
                if stand_in is not None:
                    out[part] = stand_in
    return out


_vector_locks: dict[tuple[str, int, str], threading.Lock] = {}
_vector_locks_guard = threading.Lock()


def _vector_lock(store: Store, work_id: int, what: str = "passages") -> threading.Lock:
    engine = getattr(store, "engine", None)
    db = str(engine.url) if engine is not None else f"store:{id(store)}"
    with _vector_locks_guard:
        return _vector_locks.setdefault((db, work_id, what), threading.Lock())


def needs_vectors(store: Store, work_id: int) -> bool:
    return load_corpus(store, work_id).passage_vectors is None and bool(store.list_chunks(work_id))


# ---- facts and entity names by meaning ---------------------------------------------------------------------------

def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def embed_cached(store: Store, texts: Sequence[str], *, compute: bool = True,
                 on_progress: ProgressFn | None = None) -> np.ndarray | None:
    """Unit vectors of `texts` (one row each), from the store's content-addressed cache, embedding and storing the
    missing ones in batches; with `compute=False`, None unless every text is cached."""
    keys = [text_key(t) for t in texts]
    found = store.text_vectors(EMBED_MODEL, keys)
    missing = list(dict.fromkeys(k for k in keys if k not in found))
    if missing and not compute:
        return None
    if missing:
        from core.nlp import embed
        text_of = dict(zip(keys, texts))
        report = on_progress or (lambda done, total, message: None)
        for start in range(0, len(missing), EMBED_BATCH * 8):
            batch = missing[start:start + EMBED_BATCH * 8]
            fresh = dict(zip(batch, embed([text_of[k] for k in batch])))
            store.put_text_vectors(EMBED_MODEL, fresh)
            found.update(fresh)
            report(start + len(batch), len(missing), f"Embedded {start + len(batch)} of {len(missing)} facts and names")
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([found[k] for k in keys]).astype(np.float32)


def attach_meaning_vectors(store: Store, corpus: Corpus, *, compute: bool = True,
                           on_progress: ProgressFn | None = None) -> bool:
    """Give the corpus its fact and entity-name vectors (from the cache; embedding what is missing when `compute`).
    Returns whether both are attached (entity vectors only matter when the corpus has entities)."""
    if corpus.fact_vectors is None:
        corpus.fact_vectors = embed_cached(store, corpus.fact_texts, compute=compute, on_progress=on_progress)
    if corpus.entities is not None and corpus.entity_vectors is None:
        corpus.entity_vectors = embed_cached(store, [e.label for e in corpus.entities.entities], compute=compute)
    return corpus.fact_vectors is not None and (corpus.entities is None or corpus.entity_vectors is not None)


def needs_meaning_vectors(store: Store, work_id: int) -> bool:
    corpus = load_corpus(store, work_id)
    return not attach_meaning_vectors(store, corpus, compute=False) and bool(corpus.facts or corpus.entities)
