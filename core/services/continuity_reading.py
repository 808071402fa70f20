"""A chapter read for contradictions by the configured capable model (issue 32's LLM path): the cost first, then
the findings whose two sentences are found in the book (core.continuity.reading).

    plan = reading_plan(store, work_id, 12)           # model, calls, tokens and price, before anything is sent
    done = read_chapter(store, work_id, 12)           # Reading: flags (both sentences located), dropped, notes

The model is the extraction role's (Settings). The embedded models are never asked: at 135-270M parameters they
cannot hold a chapter and its background in mind, and a finding they made up would look like a result; the page and
the CLI say so and point to Settings. The findings are not stored: the rule-based flags are rebuilt with the graph,
these cost a model call, so they are shown (page) or printed (CLI) when asked for.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from core.continuity import reading
from core.continuity.model import Entities, Flag
from core.continuity.summary import established, prompt_block
from core.llm import LLMError
from core.llm.base import LLM
from core.llm.pricing import CostEstimate
from core.llm.registry import is_embedded
from core.services import llm_service
from core.services.summary_service import approximate_tokens
from core.store import Store
from core.wording import counted

ROLE = "extraction"
EMBEDDED_NOTE = ("The embedded models cannot read a chapter for contradictions: they would invent findings. Choose "
                 "a capable model for extraction in Settings (an OpenAI or Anthropic key, or a local Ollama / LM "
                 "Studio server) to have a chapter read.")


@dataclass
class Reading:
    chapter: int
    llm: str
    flags: list[Flag] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    calls: int = 0
    seconds: float = 0.0

    def as_json(self) -> dict[str, object]:
        return {"chapter": self.chapter, "llm": self.llm, "flags": [f.as_json() for f in self.flags],
                "dropped": self.dropped, "notes": self.notes, "calls": self.calls, "seconds": round(self.seconds, 2)}


def reader_name(store: Store, llm_name: str | None = None) -> str:
    return llm_name or llm_service.resolve_llm_name(store, ROLE)


def can_read(store: Store, llm_name: str | None = None) -> bool:
    """Whether the model that would read is a capable one (not embedded)."""
    return not is_embedded(reader_name(store, llm_name))


def _prompts(store: Store, work_id: int, chapter: int) -> tuple[list[str], dict[int, str]]:
    """The chapter's prompts, and the work's chapter texts they were made from (index -> text)."""
    chapters = {c.index: store.get_chapter(work_id, c.index).text for c in store.list_chapters(work_id)}
    if chapter not in chapters:
        raise ValueError(f"No chapter {chapter} in this work.")
    text = chapters[chapter]
    if not text.strip():
        raise ValueError(f"Chapter {chapter} has no text to read.")
    kg = store.kg_entities(work_id)
    names = {n.name: e.label for e in kg for n in e.names}
    labels = reading.chapter_names(text, names)
    entities = Entities.of(kg)
    lines = established(store.states_list(work_id, chapter - 1), entities, chapter - 1,
                        [n for n, label in names.items() if label in labels] or None)
    anchors: dict[str, list[tuple[int, str]]] = {}
    for group in lines.values():
        for line in group:
            anchors.setdefault(line.entity, []).append((line.chapter, line.sentence))
    before = [(c, t) for c, t in sorted(chapters.items()) if c < chapter]
    passages = reading.earlier_passages(before, labels, names, anchors)
    states = prompt_block(lines).split("\n", 1)[-1] if lines else ""
    parts = reading.parts_of(text)
    return [reading.prompt(chapter, part, states, passages,
                           f" (part {i} of {len(parts)})" if len(parts) > 1 else "")
            for i, part in enumerate(parts, start=1)], chapters


def reading_plan(store: Store, work_id: int, chapter: int, llm_name: str | None = None) -> CostEstimate:
    """What reading the chapter sends and may cost, before anything is sent (tokens estimated at 1.3 a word)."""
    name = reader_name(store, llm_name)
    prompts, _ = _prompts(store, work_id, chapter)
    tokens = sum(approximate_tokens(p) for p in prompts)
    return llm_service.estimate_cost(store, name, units=1, calls=len(prompts), input_tokens=tokens,
                                     output_tokens=reading.REPLY_TOKENS * len(prompts),
                                     detail={"chapter": chapter, "parts": len(prompts)})


def read_chapter(store: Store, work_id: int, chapter: int, llm_name: str | None = None,
                 llm: LLM | None = None) -> Reading:
    """Have the chapter read for contradictions; a model error or a malformed reply is a note, never a finding."""
    name = llm.name if llm is not None else reader_name(store, llm_name)
    done = Reading(chapter, name)
    if llm is None and is_embedded(name):
        done.notes.append(EMBEDDED_NOTE)
        return done
    prompts, chapters = _prompts(store, work_id, chapter)
    started = time.perf_counter()
    model = llm if llm is not None else llm_service.build_llm(store, ROLE, name, work_id=work_id)
    text = chapters[chapter]
    earlier = {c: t for c, t in chapters.items() if c < chapter}
    for i, p in enumerate(prompts, start=1):
        where = f" (part {i} of {len(prompts)})" if len(prompts) > 1 else ""
        try:
            reply = model.complete(p, max_tokens=reading.REPLY_TOKENS, temperature=0.0).text
            done.calls += 1
            findings = reading.parse_reply(reply)
        except LLMError as exc:
            done.notes.append(f"The model could not read chapter {chapter}{where}: {exc}")
            continue
        except ValueError as exc:
            done.notes.append(f"Chapter {chapter}{where}: {exc} Nothing from this reply is shown.")
            continue
        kept = reading.to_flags(findings, chapter, text, earlier, name)
        done.flags.extend(f for f in kept.flags if all(f.start != g.start for g in done.flags))
        done.dropped.extend(kept.dropped)
    done.seconds = time.perf_counter() - started
    if done.dropped:
        done.notes.append(f"{counted(len(done.dropped), 'finding')} left out: the model quoted a sentence that is "
                          "not in the book where it said.")
    return done
