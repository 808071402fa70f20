"""The reading companion's use cases (issue 33): the reader's place, and the X-Ray, recap and timelines as of it.

    pos = set_position(store, work_id, chapter=7, passage=3)      # remembered in the database, per user
    limit = spoiler_limit(store, work_id)                           # 7: Ask, Graph, X-Ray, recap, timeline default
    shown = xray_cards(store, work_id, page=7)                      # cards as of the place
    told = recap_of(store, work_id, 1, 7, words=300)                # "Previously…", a cited chapter per sentence
    events = timeline_of(store, work_id, ["Jo", "Beth"])            # a pair's (or one character's) events

The place is one row per work and user (core.companion.store). Reading forward (the reader's "Next →") moves it on;
moving it back is the reader's explicit choice (`set_position`). A pause longer than VISIT_GAP starts a new visit:
the place then remembers where the previous visit began, so a returning reader is offered the recap of the chapters
read since (`welcome_back`).

What these views read from the graph is loaded once per work and graph version, and the graph as of a chapter is
kept for the last few chapters asked (an X-Ray on every page turn then costs milliseconds, not a graph rebuild).
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import networkx as nx

from core.companion.recap import Recap, recap
from core.companion.store import ReadingPosition
from core.companion.timeline import Event, character_timeline, pair_timeline
from core.companion.xray import Card, SentencesOf, introduction, node_states, xray
from core.kg.characters import is_character
from core.kg.graph import GraphData, find_nodes, graph_as_of
from core.services.kg_views import graph_version, load_graph_data
from core.store import NotFound, Store
from core.summarize.extractive import chapter_sentences

VISIT_GAP = timedelta(hours=1)     # a pause longer than this ends a visit; coming back after it, a recap is offered
RECAP_WORDS = 300
MAX_RECAP_WORDS = 3_000
GRAPHS_KEPT = 4                    # graphs as of a chapter kept per work (the place, the page, a look back)


# ---- the place --------------------------------------------------------------------------------------------------

def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def get_position(store: Store, work_id: int) -> ReadingPosition | None:
    """The reader's place in the work (the signed-in user's own with sign-in on); None before they set one."""
    return store.position_get(work_id)


def set_position(store: Store, work_id: int, chapter: int, passage: int = 0,
                 now: datetime | None = None) -> ReadingPosition:
    """Move the reader's place (forward or back); NotFound for a chapter the work does not have."""
    if chapter < 1 or passage < 0:
        raise ValueError("A place is a chapter (from 1) and a passage (from 1).")
    at = now or now_utc()
    before = store.position_get(work_id)
    if before is None:
        return store.position_set(work_id, chapter, passage, visit_chapter=chapter, visit_at=at, now=at)
    if at - before.updated_at > VISIT_GAP:   # a new visit: it begins where the last one left off
        return store.position_set(work_id, chapter, passage, visit_chapter=before.chapter, visit_at=at, now=at)
    return store.position_set(work_id, chapter, passage, now=at)


def advance(store: Store, work_id: int, chapter: int, passage: int = 0) -> ReadingPosition:
    """Reading on: the place moves to `chapter` if that is further than it is (never back: a reader who turns back to
    look something up keeps their place)."""
    before = store.position_get(work_id)
    if before is not None and (before.chapter, before.passage) >= (chapter, passage):
        return before
    return set_position(store, work_id, chapter, passage)


def spoiler_limit(store: Store, work_id: int, default: int | None = None) -> int | None:
    """The chapter everything is limited to by default: the reader's place, else `default`."""
    pos = store.position_get(work_id)
    return pos.chapter if pos is not None else default


def welcome_back(position: ReadingPosition | None, now: datetime | None = None) -> tuple[int, int] | None:
    """For a reader coming back after a pause (VISIT_GAP): the chapters (a, b) of their last visit, to recap."""
    if position is None or (now or now_utc()) - position.updated_at <= VISIT_GAP:
        return None
    return (min(position.visit_chapter, position.chapter), position.chapter)


# ---- what the views read, cached ------------------------------------------------------------------------------

@dataclass
class _WorkData:
    version: int
    data: GraphData
    graphs: OrderedDict[int, nx.MultiDiGraph] = field(default_factory=OrderedDict)
    sentences: dict[tuple[int, int], list[str]] = field(default_factory=dict)


_cache: weakref.WeakKeyDictionary[Any, dict[int, _WorkData]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _work_data(store: Store, work_id: int) -> _WorkData | None:
    """The work's graph data (None without a graph), loaded once per graph version. The access check happens in
    graph_version's read, through the store handed in; the cache is keyed by the store underneath a guarded one."""
    version = graph_version(store, work_id)
    if not store.kg_extracted_chapters(work_id):
        return None
    base = getattr(store, "_inner", store)
    with _lock:
        held = _cache.setdefault(base, {}).get(work_id)
        if held is not None and held.version == version:
            return held
    loaded = _WorkData(version, load_graph_data(store, work_id))
    with _lock:
        _cache[base][work_id] = loaded
    return loaded


def _graph(held: _WorkData, chapter: int) -> nx.MultiDiGraph:
    with _lock:
        if chapter in held.graphs:
            held.graphs.move_to_end(chapter)
            return held.graphs[chapter]
    graph = graph_as_of(held.data, chapter)
    with _lock:
        held.graphs[chapter] = graph
        while len(held.graphs) > GRAPHS_KEPT:
            held.graphs.popitem(last=False)
    return graph


def _sentences_of(store: Store, work_id: int, held: _WorkData | None) -> SentencesOf:
    revisions = {c.index: c.revision for c in store.list_chapters(work_id)}

    def sentences(chapter: int) -> list[str]:
        key = (chapter, revisions.get(chapter, 0))
        if held is not None and key in held.sentences:
            return held.sentences[key]
        found = chapter_sentences(store.get_chapter(work_id, chapter).text) if chapter in revisions else []
        if held is not None:
            held.sentences[key] = found
        return found
    return sentences


def _last_chapter(store: Store, work_id: int) -> int:
    chapters = store.list_chapters(work_id)
    if not chapters:
        raise ValueError("This work has no chapters yet.")
    return chapters[-1].index


# ---- X-Ray ------------------------------------------------------------------------------------------------------

@dataclass
class XRay:
    page: int
    position: int
    cards: list[Card]
    built: bool                                  # the work has a graph
    notes: list[str] = field(default_factory=list)

    @property
    def past_position(self) -> bool:
        return self.page > self.position


def xray_cards(store: Store, work_id: int, page: int, position: int | None = None,
               entity: str | None = None) -> XRay:
    """The X-Ray of chapter `page` as of `position` (default: the reader's place, else the page itself). With
    `entity`, the card of the entity best matching that name (on the page or not)."""
    last = _last_chapter(store, work_id)
    if not 1 <= page <= last:
        raise NotFound(f"Work {work_id} has no chapter {page}.")
    position = min(position or spoiler_limit(store, work_id, page) or page, last)
    held = _work_data(store, work_id)
    if held is None:
        return XRay(page, position, [], False, ["No graph yet: build it on the Graph page (or `cli.py kg build`)."])
    notes = []
    if page > position:
        notes.append(f"This chapter is past your place (chapter {position}): only what you know by then is shown.")
    if position > held.data.chapters:
        notes.append(f"The graph reaches chapter {held.data.chapters}: later chapters are not in it yet.")
        position = held.data.chapters
    graph = _graph(held, position)
    only = None
    if entity:
        only = find_nodes(graph, entity)[:1]
        if not only:
            notes.append(f"No one called “{entity}” is known by chapter {position}.")
    cards = xray(held.data, graph, page, position, _sentences_of(store, work_id, held), only=only)
    return XRay(page, position, cards, True, notes)


# ---- recap ------------------------------------------------------------------------------------------------------

def recap_of(store: Store, work_id: int, first: int | None = None, last: int | None = None,
             words: int = RECAP_WORDS) -> Recap:
    """The offline recap of chapters first..last (default: from the start to the reader's place, else the whole
    work) in at most `words` words, a chapter for every sentence."""
    end = _last_chapter(store, work_id)
    last = last if last is not None else (spoiler_limit(store, work_id, end) or end)
    first = first if first is not None else 1
    if not 1 <= first <= last <= end:
        raise ValueError(f"Choose chapters within 1-{end}, the first not after the last.")
    if not 1 <= words <= MAX_RECAP_WORDS:
        raise ValueError(f"A recap is 5 to {MAX_RECAP_WORDS:,} words long.")
    held = _work_data(store, work_id)
    chapters = [(k, store.get_chapter(work_id, k).text) for k in range(first, last + 1)]
    return recap(chapters, held.data if held is not None else None, words)


# ---- timelines --------------------------------------------------------------------------------------------------

def timeline_of(store: Store, work_id: int, names: Sequence[str], position: int | None = None) -> list[Event]:
    """One character's events (one name) or a pair's (two names), up to `position` (default: the reader's place,
    else the whole work). ValueError for a name no one has by then."""
    if not 1 <= len(names) <= 2:
        raise ValueError("Name one character, or two for a pair.")
    end = _last_chapter(store, work_id)
    position = min(position or spoiler_limit(store, work_id, end) or end, end)
    held = _work_data(store, work_id)
    if held is None:
        raise ValueError("No graph yet: build it first (`cli.py kg build`).")
    position = min(position, held.data.chapters)
    graph = _graph(held, position)
    nodes = []
    for name in names:
        found = find_nodes(graph, name)
        if not found:
            raise ValueError(f"No one called “{name}” is known by chapter {position}.")
        nodes.append(found[0])
    if len(nodes) == 2:
        return pair_timeline(graph, nodes[0], nodes[1])
    node = nodes[0]
    states = node_states(held.data, graph, position, [node]).get(node, [])
    return character_timeline(graph, node, states, introduction(graph, node, _sentences_of(store, work_id, held)))


def entity_names(store: Store, work_id: int, position: int) -> list[tuple[str, str]]:
    """(node, label) of the characters known by `position`, most named first: the timeline's choices."""
    held = _work_data(store, work_id)
    if held is None:
        return []
    graph = _graph(held, min(position, held.data.chapters))
    nodes = sorted((n for n, d in graph.nodes(data=True) if is_character(d["type"])),
                   key=lambda n: (-graph.nodes[n]["mentions"], n))
    return [(n, graph.nodes[n]["label"]) for n in nodes]
