"""Rewrite a passage of a chapter (issue 34): the writer selects a passage, asks for a rewrite, an expansion, a shorter
version or a change of tone with an instruction, sees the old and new text side by side, and keeps the new one as
the chapter's next revision (every earlier revision stays restorable through manuscript_service.restore_revision).

    r = rewrite_passage(store, work_id, 2, start, end, "tone", "darker, slower", llm)   # nothing stored yet
    chapter = keep_rewrite(store, work_id, r)                  # revision r.revision + 1 holds the new passage
    chapter = keep_rewrite(store, work_id, r, edited_text)     # the writer's own edit of the model's text

`start`/`end` are character offsets into the chapter's text at revision `r.revision` (`find_passage` gives them for
a passage the writer copied). The model sees the passage, a little of the text before and after it (so the new text
joins its neighbours) and the instruction, and is asked for the new passage only; its reply is cleaned of the
preambles and quotes small models add ("Here is the rewritten passage:"). A selection that is empty or out of range,
a failing model or a reply with no passage in it raise RewriteError and store nothing; a chapter saved elsewhere
since the rewrite was asked for is refused on keeping (nothing is lost: the rewrite can be asked for again).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from core.domain import Chapter
from core.llm import LLM, LLMConfigError, LLMError
from core.llm.registry import is_embedded
from core.services.manuscript_service import ManuscriptError, save_chapter
from core.store import StaleRevision, Store
from core.write.params import TOKENS_PER_WORD

KINDS = ("rewrite", "expand", "shorten", "tone")
KIND_TASKS = {
    "rewrite": "Rewrite the passage: keep its events, facts and point of view, and make the prose better.",
    "expand": "Expand the passage to about twice its length: keep its events and add detail, sensation and "
              "interiority, in the same style.",
    "shorten": "Shorten the passage to about half its length: keep what happens and what matters, cut the rest.",
    "tone": "Rewrite the passage in the tone the writer asks for: keep its events and facts, change how it feels.",
}
LENGTH_FACTOR = {"rewrite": 1.6, "expand": 2.8, "shorten": 1.0, "tone": 1.6}   # reply tokens per passage token
MAX_PASSAGE_WORDS = 1500
MAX_INSTRUCTION_CHARS = 1000
CONTEXT_BEFORE_CHARS = 1200
CONTEXT_AFTER_CHARS = 600

REWRITE_SYSTEM = ("You are a fiction editor working on one passage of a chapter of a novel, as the writer asks. "
                  "Answer with the new passage only: no title, no preface, no notes, no quotation marks around it.")
REWRITE_USER = """{task}
{instruction}
TEXT BEFORE THE PASSAGE (context only; do not repeat it):
{before}

PASSAGE TO REVISE:
<<<
{passage}
>>>

TEXT AFTER THE PASSAGE (context only; do not repeat it):
{after}

Write the new passage now, so that it joins the text before and after it."""

_PREAMBLE = re.compile(r"^\s*(?:sure|certainly|of course|okay|ok)?[!,.]?\s*(?:here(?:'s| is| are)\b[^\n:]*?"
                       r"(?:passage|version|text|rewrite|revision|paragraph)[^\n:]*|"
                       r"(?:the\s+)?(?:new|revised|rewritten|expanded|shortened|shorter|edited|updated)\s+"
                       r"(?:passage|version|text)[^\n:]*)\s*:\s*", re.IGNORECASE)
_AFTERWORD = re.compile(r"\n\s*(?:i hope|let me know|this (?:version|rewrite|revision)|note:|\(note)[^\n]*$",
                        re.IGNORECASE)
_FENCE = re.compile(r"^```[\w-]*\s*\n?|\n?```\s*$")
_MARKERS = re.compile(r"^\s*<<<\s*\n?|\n?\s*>>>\s*$")
# a line of nothing but marker symbols, where a small model echoes the prompt's markers (">>>>", "********"); a scene
# break a writer types ("* * *", "***") is kept
_MARKER_LINE = re.compile(r"^[ \t]*(?:[<>]{2,}|\*{4,}|={4,}|#{2,})[ \t]*(?:\n|$)", re.MULTILINE)
_QUOTES = {'"': '"', "\u201c": "\u201d", "'": "'", "\u2018": "\u2019"}
_ECHO = ("PASSAGE TO REVISE", "TEXT BEFORE THE PASSAGE", "TEXT AFTER THE PASSAGE")
EMBEDDED_NOTE = ("Rewritten by the embedded model {name}: a model this small often changes what happens or repeats "
                 "itself, so read the new text closely before keeping it. A stronger writing model (Settings → "
                 "writing) rewrites far better.")


class RewriteError(ValueError):
    """A rewrite that cannot be made or kept; the message says why, and nothing was stored."""


@dataclass(frozen=True)
class Rewrite:
    """A proposed rewrite of `old` (chapter text[start:end] at revision `revision`) as `new`; not stored."""

    chapter: int
    start: int
    end: int
    old: str
    new: str
    revision: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def quality_note(llm_name: str) -> str | None:
    """What the page shows beside a rewrite by one of the embedded models (None for any other model)."""
    try:
        return EMBEDDED_NOTE.format(name=llm_name) if is_embedded(llm_name) else None
    except LLMConfigError:   # a test's fake: not an embedded model
        return None


def find_passage(text: str, passage: str) -> tuple[int, int]:
    """(start, end) of `passage` in `text`: exactly, else with any run of white space matching any other (a passage
    copied from the page loses its line breaks). RewriteError when it is not there, or there more than once."""
    wanted = passage.strip()
    if not wanted:
        raise RewriteError("Select a passage first: the selection is empty.")
    pattern = re.compile(r"\s+".join(re.escape(w) for w in wanted.split()))
    found = list(pattern.finditer(text))
    if not found:
        raise RewriteError("That passage is not in the chapter's current text (was the chapter edited since?).")
    if len(found) > 1:
        raise RewriteError("That passage occurs more than once in the chapter: select a longer one.")
    return found[0].start(), found[0].end()


def _context(text: str, start: int, end: int) -> tuple[str, str]:
    """A little of the text before and after the passage, cut at word boundaries."""
    before = text[max(0, start - CONTEXT_BEFORE_CHARS):start]
    if start > CONTEXT_BEFORE_CHARS:
        before = "..." + before.split(" ", 1)[-1]
    after = text[end:end + CONTEXT_AFTER_CHARS]
    if end + CONTEXT_AFTER_CHARS < len(text):
        after = after.rsplit(" ", 1)[0] + "..."
    return before.strip() or "(the chapter begins here)", after.strip() or "(the chapter ends here)"


def rewrite_messages(text: str, start: int, end: int, kind: str, instruction: str) -> list[dict[str, str]]:
    """The model's messages for rewriting text[start:end] (the kind's task, the writer's instruction, context)."""
    before, after = _context(text, start, end)
    wish = " ".join(instruction.split())
    return [{"role": "system", "content": REWRITE_SYSTEM},
            {"role": "user", "content": REWRITE_USER.format(
                task=KIND_TASKS[kind], instruction=f"The writer's instruction: {wish}\n" if wish else "",
                before=before, passage=text[start:end].strip(), after=after)}]


def clean_reply(reply: str) -> str:
    """The new passage from a model's reply: fences, <<< >>> markers, a preamble ("Here is the rewritten
    passage:"), a closing remark ("Let me know if ...") and quotation marks around the whole of it removed."""
    text = _FENCE.sub("", reply.strip()).strip()
    text = _MARKERS.sub("", text).strip()
    text = _PREAMBLE.sub("", text, count=1).strip()
    text = _MARKERS.sub("", text).strip()
    text = _AFTERWORD.sub("", text).strip()
    text = re.sub(r"\n{3,}", "\n\n", _MARKER_LINE.sub("", text)).strip()
    if len(text) > 1 and text[0] in _QUOTES and text.endswith(_QUOTES[text[0]]) \
            and text[1:-1].count(text[0]) == 0 and text[1:-1].count(_QUOTES[text[0]]) == 0:
        text = text[1:-1].strip()
    return text


def _check_request(chapter: Chapter, start: int, end: int, kind: str, instruction: str) -> None:
    if kind not in KINDS:
        raise RewriteError(f"Unknown kind of rewrite {kind!r}; choose one of {', '.join(KINDS)}.")
    if start == end:
        raise RewriteError("Select a passage first: the selection is empty.")
    if not (0 <= start < end <= len(chapter.text)):
        raise RewriteError(f"The selection {start}-{end} is outside chapter {chapter.index}, which has "
                           f"{len(chapter.text):,} characters: reload the chapter and select again.")
    passage = chapter.text[start:end]
    if not passage.strip():
        raise RewriteError("Select a passage first: the selection holds only white space.")
    if len(passage.split()) > MAX_PASSAGE_WORDS:
        raise RewriteError(f"Select at most {MAX_PASSAGE_WORDS:,} words to rewrite at once; this selection has "
                           f"{len(passage.split()):,}.")
    if len(instruction) > MAX_INSTRUCTION_CHARS:
        raise RewriteError(f"The instruction holds at most {MAX_INSTRUCTION_CHARS:,} characters.")
    if kind == "tone" and not instruction.strip():
        raise RewriteError("Say which tone you want (for example: darker, lighter, more formal).")


def rewrite_passage(store: Store, work_id: int, chapter: int, start: int, end: int, kind: str, instruction: str,
                    llm: LLM) -> Rewrite:
    """The model's rewrite of chapter `chapter`'s text[start:end]; nothing is stored (see keep_rewrite)."""
    current = store.get_chapter(work_id, chapter)
    _check_request(current, start, end, kind, instruction)
    passage = current.text[start:end]
    budget = int(len(passage.split()) * TOKENS_PER_WORD * LENGTH_FACTOR[kind]) + 64
    try:
        reply = llm.complete(rewrite_messages(current.text, start, end, kind, instruction), max_tokens=budget,
                             temperature=0.7)
    except LLMError as exc:
        raise RewriteError(f"The model could not rewrite the passage ({exc}); nothing was changed.") from exc
    raw = reply.text if hasattr(reply, "text") else str(reply)
    new = clean_reply(raw or "")
    if not new:
        raise RewriteError("The model's reply held no passage; nothing was changed. Try again, or choose a "
                           "stronger writing model in Settings.")
    if any(marker in new for marker in _ECHO):
        raise RewriteError("The model repeated the request instead of rewriting the passage; nothing was changed. "
                           "Try again, or choose a stronger writing model in Settings.")
    if " ".join(new.split()) == " ".join(passage.split()):
        raise RewriteError("The model gave the passage back unchanged; nothing was changed. Try again with an "
                           "instruction, or another kind of rewrite.")
    return Rewrite(chapter, start, end, passage, new, current.revision)


def replaced_text(text: str, r: Rewrite, new_text: str) -> str:
    """The chapter text with r's passage replaced by `new_text` (the passage's own leading and trailing white space
    kept, so paragraphs stay apart)."""
    lead = r.old[:len(r.old) - len(r.old.lstrip())]
    trail = r.old[len(r.old.rstrip()):]
    return text[:r.start] + lead + new_text.strip() + trail + text[r.end:]


def keep_rewrite(store: Store, work_id: int, r: Rewrite, new_text: str | None = None) -> Chapter:
    """Save the chapter with the passage replaced (by `new_text` when the writer edited the model's text) as its
    next revision. RewriteError, nothing saved, when the chapter changed since the rewrite was made."""
    text = r.new if new_text is None else new_text
    if not text.strip():
        raise RewriteError("The new passage is empty: to delete the passage, edit the chapter itself.")
    current = store.get_chapter(work_id, r.chapter)
    stale = (f"Chapter {r.chapter} was saved since this rewrite was made (revision {r.revision}, now "
             f"{current.revision}): nothing was saved. Ask for the rewrite again on the current text.")
    if current.revision != r.revision or current.text[r.start:r.end] != r.old:
        raise RewriteError(stale)
    try:
        return save_chapter(store, work_id, r.chapter, replaced_text(current.text, r, text),
                            expected_revision=r.revision)
    except StaleRevision as exc:
        raise RewriteError(stale) from exc
    except ManuscriptError as exc:
        raise RewriteError(str(exc)) from exc
