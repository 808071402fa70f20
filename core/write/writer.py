"""The writer agent: prompt for chapter N, read a plain-text chapter back, decide whether it is the final one.

The final-chapter decision comes, in order, from: the chapter limit (the last allowed chapter is final), the marker
line the prompt asks for (`STORY STATUS: FINAL|CONTINUE`), or a short structured follow-up when the marker is
missing or unreadable. Chapter 1 is never final (the paper's prompt says so), unless the story allows one chapter.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.llm.base import LLM
from core.llm.errors import LLMConfigError
from core.llm.registry import is_embedded
from core.textfit import fit_end, keep_end
from core.write.ending import SENTENCE_END
from core.write.params import WriteParams
from core.write.premises import ARCS
from core.write.prompts import (CONSISTENCY_KG, CONSISTENCY_PLAIN, FINAL_FOLLOWUP, FINAL_MARKER, FOLLOWUP_TOKENS,
                                LAST_CHAPTER_NOTE, MARKER_INSTRUCTION, WRITER_FIRST_SYSTEM, WRITER_FIRST_USER,
                                WRITER_NEXT_SYSTEM, WRITER_NEXT_USER, DESK_FIRST, DESK_NEXT)
from core.write.tidy import tidy_generated

_MARKER = re.compile(r"^\W*" + re.escape(FINAL_MARKER.rstrip(":")) + r"\W*:?\W*(FINAL|CONTINUE|TRUE|FALSE)\b.*$",
                     re.IGNORECASE | re.MULTILINE)
_HEADING = re.compile(r"^\s*(#+\s*)?chapter\s+\w+[^\n]{0,80}\n+", re.IGNORECASE)
PROMPT_MARGIN = 64
_CLAUSE_END = re.compile(r"[,;:\u2014](?=\s|$)")
_WORD = re.compile(r"\S+")


@dataclass
class ChapterDraft:
    """A chapter the writer produced, not stored yet. `decided_by`: limit, marker, follow-up, or first."""

    n: int
    text: str
    final: bool
    decided_by: str
    prompt: str
    raw: str
    cut_note: str = ""  # "Repetition cut: ..." when a loop in the writer's text was cut (core.textguard)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class PriorChapter:
    index: int
    title: str
    text: str


def story_so_far(chapters: Sequence[PriorChapter], budget_tokens: int, count: Any, recent: int = 3) -> str:
    """The last `recent` chapters as "Chapter k: title\\n\\ntext", cut at the start to fit `budget_tokens`."""
    text = "\n\n".join(f"Chapter {c.index}: {c.title}\n\n{c.text.strip()}" for c in chapters[-recent:])
    return fit_end(text, budget_tokens, count)


def writer_messages(params: WriteParams, n: int, prior: Sequence[PriorChapter], kg_context: str,
                    count: Any, context_window: int, desk: str = "") -> list[dict[str, str]]:
    """System + user messages for chapter `n` (A.1.1 for chapter 1, A.1.2 after), fitted to the context window.
    `desk`: the chapter's plan and canon (core.services.desk_context), which the story so far makes room for."""
    common = {"arc": params.arc, "arc_description": ARCS.get(params.arc, params.arc), "min_words": params.min_words,
              "max_words": params.max_words, "marker": MARKER_INSTRUCTION, "final_marker": FINAL_MARKER}
    if n == 1:
        common["desk"] = DESK_FIRST.format(block=desk) if desk else ""
        system = WRITER_FIRST_SYSTEM.format(premise=params.premise, **common)
        return [{"role": "system", "content": system}, {"role": "user", "content": WRITER_FIRST_USER}]
    kg = f"\n{kg_context}\n" if kg_context else ""
    common["desk"] = DESK_NEXT.format(block=desk) if desk else ""
    fields = dict(common, n=n, kg_context=kg, consistency=CONSISTENCY_KG if kg_context else CONSISTENCY_PLAIN,
                  limit=LAST_CHAPTER_NOTE if n >= params.max_chapters else "")
    user = WRITER_NEXT_USER.format(n=n)
    skeleton = WRITER_NEXT_SYSTEM.format(story_so_far="", **fields)
    room = context_window - count(skeleton) - count(user) - params.chapter_tokens() - PROMPT_MARGIN
    story = story_so_far(prior, max(room, 0), count)
    system = WRITER_NEXT_SYSTEM.format(story_so_far=story or "(see the knowledge graph)", **fields)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def split_marker(reply: str) -> tuple[str, bool | None]:
    """(chapter text without the marker line, True/False from the marker or None when there is none)."""
    matches = list(_MARKER.finditer(reply))
    if not matches:
        return clean_chapter(reply), None
    last = matches[-1]
    final = last.group(1).upper() in ("FINAL", "TRUE")
    text = _MARKER.sub("", reply)
    return clean_chapter(text), final


def clean_chapter(text: str) -> str:
    """Trim white space and a leading "Chapter N: ..." heading the model may have added (the title is kept apart)."""
    text = text.strip().strip("`").strip()
    return _HEADING.sub("", text, count=1).strip()


def fit_length(text: str, min_words: int, max_words: int, *, embedded: bool = False) -> str:
    """A chapter that stops mid-sentence (it ran into its token cap) ends at its last full sentence within
    `max_words`, as long as `min_words` remain. A chapter that ends a sentence is kept whole, whatever its length
    (its ending is the model's own), unless an `embedded` model wrote it: a 135M model's chapter that runs past the
    maximum is rarely heading for an ending, so it is cut there too: at its last sentence end between the counts,
    else (a 135M model looping on one clause writes hundreds of words without a full stop) at its last clause end,
    else word, within the maximum."""
    stripped = text.rstrip()
    ends = [m.end() for m in SENTENCE_END.finditer(stripped)]
    over = embedded and len(stripped.split()) > max_words
    if not over and (not ends or ends[-1] == len(stripped)):
        return text
    within = [end for end in ends if len(stripped[:end].split()) <= max_words]
    if within and len(stripped[:within[-1]].split()) >= min_words:
        return stripped[:within[-1]]
    if not over:
        return text
    last_word = [m.end() for m in _WORD.finditer(stripped)][max_words - 1]
    clauses = [m.start() for m in _CLAUSE_END.finditer(stripped, 0, last_word + 1)]
    if clauses and len(stripped[:clauses[-1]].split()) >= min_words:
        return stripped[:clauses[-1]]
    return stripped[:last_word]


def _is_embedded(llm: LLM | None) -> bool:
    if llm is None:
        return False
    try:
        return is_embedded(llm.name)
    except LLMConfigError:  # a name no provider claims (a test's fake): not an embedded model
        return False


def ask_final(llm: LLM, params: WriteParams, chapter_text: str) -> bool | None:
    """The structured follow-up: FINAL or CONTINUE in one word; None when the reply says neither."""
    end = keep_end(chapter_text, lambda s: len(s.split()) <= 300)
    reply = llm.complete([{"role": "user", "content": FINAL_FOLLOWUP.format(arc=params.arc, chapter_end=end)}],
                         max_tokens=FOLLOWUP_TOKENS, temperature=0.0)
    word = (reply.text if hasattr(reply, "text") else str(reply)).strip().upper()
    if word.startswith(("FINAL", "YES", "TRUE")):
        return True
    if word.startswith(("CONTINUE", "NO", "FALSE")):
        return False
    return None


def fitted_text(llm: LLM, params: WriteParams, raw: str) -> tuple[str, bool | None]:
    """The writer's raw reply as chapter text fitted to the length (the marker line taken out, and its verdict)
    before the loop check."""
    text, marked = split_marker(raw)
    return fit_length(text, params.min_words, params.max_words, embedded=_is_embedded(llm)), marked


def finish_draft(llm: LLM, params: WriteParams, n: int, raw: str, prompt: str) -> ChapterDraft:
    """Turn the writer's raw reply into a draft with its final-chapter decision. A loop in it (a sentence or an
    8-gram written over and over) is cut where it began, and the draft says so (`cut_note`): a draft is never
    presented with its loop unseen below the top of the box."""
    fitted, marked = fitted_text(llm, params, raw)
    tidy = tidy_generated(fitted)  # a loop, a next chapter begun, "Here is Chapter 1:" and other talk
    text, note = tidy.text, " ".join(tidy.notes)
    if n >= params.max_chapters:
        return ChapterDraft(n, text, True, "limit", prompt, raw, note)
    if n == 1:
        return ChapterDraft(n, text, False, "first", prompt, raw, note)
    if marked is not None:
        return ChapterDraft(n, text, marked, "marker", prompt, raw, note)
    asked = ask_final(llm, params, text) if text else None
    return ChapterDraft(n, text, bool(asked), "follow-up" if asked is not None else "default", prompt, raw, note)


def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    return "\n\n".join(m["content"] for m in messages)
