"""The spoiler audit of the reading companion (issue 33): at every chapter N of a work, for its main characters,
every X-Ray, recap and timeline item must come from chapter N or before. The tests and bench/companion.py run it.

    result = audit_work(store, work_id)        # every chapter, the 10 most mentioned characters
    result.checked, result.late                # items looked at; the ones from after their chapter (must be [])

At each N it checks: the X-Ray of chapter N (every entity on it) and each main character's card as of N; the recap
of chapters 1..N and the recap of chapter N alone; each main character's timeline and the timeline of the two most
mentioned together. An item is late when its chapter is after N, or when a card shows a name the book has not used
by N. Each cited sentence is also looked for in the chapter it names (`unlocated` counts the ones not found there
verbatim, white space aside, in the text as stored or as the parser cleaned it: Gutenberg's "--" is a dash there).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.companion.xray import Card
from core.kg.characters import characters
from core.nlp import clean_for_parsing
from core.services import companion_service as cs
from core.store import Store

MAIN_CHARACTERS = 10
RECAP_WORDS = 300


@dataclass
class Audit:
    work_id: int
    chapters: int
    characters: list[str]
    checked: int = 0
    unlocated: int = 0
    late: list[str] = field(default_factory=list)
    by_view: dict[str, int] = field(default_factory=dict)

    def _count(self, view: str, n: int = 1) -> None:
        self.checked += n
        self.by_view[view] = self.by_view.get(view, 0) + n


def _norm(text: str) -> str:
    return " ".join(text.split())


def audit_work(store: Store, work_id: int, main: int = MAIN_CHARACTERS,
               on_chapter: Callable[[int, int], None] | None = None) -> Audit:
    """Audit every chapter of a work with a built graph (see the module)."""
    chapters = [c.index for c in store.list_chapters(work_id)]
    built = max(store.kg_extracted_chapters(work_id), default=0)
    names = [e.label for e in characters(store.kg_entities(work_id))][:main]
    texts = {k: _norm(store.get_chapter(work_id, k).text) for k in chapters}
    texts = {k: t + "\n" + _norm(clean_for_parsing(t)) for k, t in texts.items()}   # as stored, and as parsed
    names_by = {n.name: n.first_chapter for e in store.kg_entities(work_id) for n in e.names}
    out = Audit(work_id, len(chapters), names)

    def cited(view: str, n: int, chapter: int, sentence: str, what: str) -> None:
        out._count(view)
        if chapter > n:
            out.late.append(f"chapter {n}, {view}: {what} (chapter {chapter})")
        elif sentence and _norm(sentence) not in texts.get(chapter, ""):
            out.unlocated += 1

    def card(n: int, c: Card) -> None:
        for what, chapter in c.items():
            cited("x-ray", n, chapter, "", what)
        for item in [c.introduced, *c.states, *c.facts] if c.introduced else [*c.states, *c.facts]:
            cited("x-ray", n, item.chapter, item.sentence, item.text)
        for name in [c.name, *c.aliases]:
            out._count("x-ray")
            if names_by.get(name, 0) > n:
                out.late.append(f"chapter {n}, x-ray: the name {name} (first used in chapter {names_by[name]})")

    for n in [k for k in chapters if k <= built]:
        for c in cs.xray_cards(store, work_id, n, position=n).cards:
            card(n, c)
        for name in names:
            for c in cs.xray_cards(store, work_id, n, position=n, entity=name).cards:
                card(n, c)
            try:
                events = cs.timeline_of(store, work_id, [name], position=n)
            except ValueError:   # not met by chapter n: nothing to show, nothing to spoil
                events = []
            for e in events:
                cited("timeline", n, e.chapter, e.sentence, e.text)
        if len(names) >= 2:
            try:
                pair = cs.timeline_of(store, work_id, names[:2], position=n)
            except ValueError:
                pair = []
            for e in pair:
                cited("timeline", n, e.chapter, e.sentence, e.text)
        for first in {1, n}:
            for s in cs.recap_of(store, work_id, first, n, words=RECAP_WORDS).sentences:
                cited("recap", n, s.chapter, s.text, s.text)
        if on_chapter:
            on_chapter(n, len(chapters))
    return out
