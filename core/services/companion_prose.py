"""The recap in prose (issue 33): with a capable model configured, the offline recap's sentences rewritten into a
short narrative, shown only when the answer-support check (core.qa.support.check_support) finds every sentence of it
backed by the book's sentences it was written from; else the book's own sentences stay, with the reason.

    prose = recap_prose(store, work_id, told)       # told: companion_service.recap_of(...)
    prose.text if prose.supported else told.text    # prose.support: the check, sentence by sentence

The embedded models are not asked: they loop and copy (bench/README.md, "Summaries"), so the page keeps the book's
own words with them and says why, pointing to Settings.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from core.companion.recap import Recap
from core.llm import LLMError
from core.llm.registry import is_embedded
from core.qa.support import AnswerSupport, check_support
from core.services.llm_service import build_llm, resolve_llm_name
from core.store import Store

ROLE = "summarizing"
PROMPT = """Here are sentences from chapters {first}-{last} of a novel, in story order, each with its chapter.
Rewrite them as a short recap of what happened, in plain prose, in the same order, about {words} words. Use only
what the sentences say: add no event, name or detail of your own, and do not guess what happens next.

{lines}

Recap:"""
EMBEDDED_NOTE = ("The embedded models cannot rewrite a recap faithfully, so it is given in the book's own sentences. "
                 "Configure a capable model for summarizing in Settings to have it told in prose.")


@dataclass
class Prose:
    text: str
    llm: str
    support: AnswerSupport | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def supported(self) -> bool:
        return bool(self.text) and self.support is not None and self.support.supported is True


def can_rewrite(store: Store) -> bool:
    """Whether a capable (not embedded) model is configured for summarizing."""
    return not is_embedded(resolve_llm_name(store, ROLE))


def recap_prose(store: Store, work_id: int, told: Recap, llm_name: str | None = None) -> Prose:
    """The recap rewritten by the summarizing model and checked against its sentences (see the module)."""
    name = llm_name or resolve_llm_name(store, ROLE)
    if is_embedded(name):
        return Prose("", name, notes=[EMBEDDED_NOTE])
    lines = "\n".join(f"[chapter {s.chapter}] {s.text}" for s in told.sentences)
    prompt = PROMPT.format(first=told.first, last=told.last, words=told.words, lines=lines)
    try:
        llm = build_llm(store, ROLE, name, work_id=work_id)
        text = llm.complete(prompt, max_tokens=max(64, int(told.words * 2))).text.strip()
    except LLMError as exc:
        return Prose("", name, notes=[f"The model could not rewrite the recap ({exc}); here are the book's own "
                                      "sentences."])
    if not text:
        return Prose("", name, notes=["The model returned nothing; here are the book's own sentences."])
    support = check_support(text, [s.text for s in told.sentences])
    prose = Prose(text, name, support)
    if not prose.supported:
        bad = [s.text for s in support.unsupported][:2] or support.missing_names[:3]
        prose.notes.append("Not shown: the rewrite says things the chapters' sentences do not back ("
                           + "; ".join(f"“{b[:80]}”" for b in bad) + "). Here are the book's own sentences.")
    return prose
