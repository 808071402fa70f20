"""What the two LLM extractors share: token counts and the context window of their core.llm.LLM, segmenting a
chapter to fit the context window, light name cleaning, and finding the sentence that backs an edge (an LLM gives
edges, not their source)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.kg.given_names import is_given_name
from core.kg.names import HONORIFICS, parse_name
from core.llm.base import LLM

_NUMBERING = re.compile(r"^\s*(?:[-*•]\s*)*(?:\d{1,3}\s*[.)]\s*)?(?:[-*•]\s*)*")
_QUOTES = re.compile(r"^[\s\"'“”‘’`*_]+|[\s\"'“”‘’`*_.,;:]+$")
_SENTENCE = re.compile(r"(?<=[.!?”\"])\s+(?=[“\"A-Z])")
LOCATION_WORDS = frozenset({"street", "park", "house", "hall", "lane", "road", "river", "town", "city", "village",
                            "castle", "manor", "court", "square", "bridge", "island", "mountain", "forest", "abbey",
                            "lodge", "farm", "inn", "county", "kingdom", "sea", "lake", "valley", "wood", "woods"})
ORGANIZATION_WORDS = frozenset({"army", "navy", "company", "society", "church", "club", "regiment", "college",
                                "school", "university", "bank", "office", "council", "parliament", "militia", "family"})


def reply_text(reply: Any) -> str:
    return reply if isinstance(reply, str) else str(getattr(reply, "text", ""))


def count_tokens(llm: LLM, text: str) -> int:
    return int(llm.count_tokens(text))


def context_window(llm: LLM, default: int = 4096) -> int:
    return int(llm.context_window or default)


@dataclass(frozen=True)
class Segment:
    text: str
    chunk_indices: tuple[int, ...]
    chunk_texts: tuple[str, ...]


def segments(chunks: Sequence[str], budget_tokens: int, llm: LLM) -> list[Segment]:
    """Consecutive passages packed while they fit `budget_tokens` (a passage is never split: passages already
    end at paragraph boundaries, which is where KGScore splits)."""
    out: list[Segment] = []
    texts: list[str] = []
    indices: list[int] = []
    used = 0
    for i, chunk in enumerate(chunks):
        cost = count_tokens(llm, chunk)
        if texts and used + cost > budget_tokens:
            out.append(Segment("\n\n".join(texts), tuple(indices), tuple(texts)))
            texts, indices, used = [], [], 0
        texts.append(chunk)
        indices.append(i)
        used += cost
    if texts:
        out.append(Segment("\n\n".join(texts), tuple(indices), tuple(texts)))
    return out


def clean_item(text: str) -> str:
    """A list item without its numbering, bullets and surrounding quotes."""
    return _QUOTES.sub("", _NUMBERING.sub("", text, count=1)).strip()


def clean_llm_name(text: str) -> str | None:
    """A name as an LLM wrote it, tidied (possessive, quotes, spacing); None when empty or implausibly long.
    Unlike core.kg.names.normalize_name it keeps lower-case names ("the ship"): the LLM chose them as entities."""
    text = " ".join(clean_item(text).split())
    text = re.sub(r"(?:'s|’s)$", "", text).strip()
    words = text.split(" ")
    if words and words[0].lower().rstrip(".") in HONORIFICS and len(words) > 1:
        words[0] = HONORIFICS[words[0].lower().rstrip(".")]
    text = " ".join(words)
    if not text or len(text) > 80 or len(words) > 8:
        return None
    return text


def guess_type(name: str) -> str:
    """A node type for a name without one (the KGScore prompt asks for names only)."""
    parts = parse_name(name)
    if parts.honorific or (parts.core and is_given_name(parts.core[0])):
        return "character"
    last = parts.core[-1].lower() if parts.core else ""
    if last in LOCATION_WORDS:
        return "location"
    if last in ORGANIZATION_WORDS or last.endswith("s") and len(parts.core) > 1:
        return "organization"
    return "character"


def count_occurrences(text: str, name: str) -> int:
    """How often `name` occurs as whole words in `text` (at least 1: the model saw it there)."""
    found = len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", text))
    return max(found, 1)


def split_into_sentences(text: str) -> list[str]:
    try:
        from core.ingest import split_sentences
        return [" ".join(s.split()) for s in split_sentences(text)]
    except ImportError:  # pragma: no cover - ingest is part of the app; this keeps core.kg usable alone
        return [" ".join(s.split()) for s in _SENTENCE.split(text) if s.strip()]


def locate_evidence(segment: Segment, names: Sequence[str]) -> tuple[str, int]:
    """The sentence of the segment mentioning most of `names` (the first such), and the passage it lies in;
    ("", first passage) when no sentence mentions any."""
    best, best_hits, best_chunk = "", 0, segment.chunk_indices[0]
    lowered = [n.lower() for n in names if n]
    for chunk_index, chunk in zip(segment.chunk_indices, segment.chunk_texts):
        for sentence in split_into_sentences(chunk):
            low = sentence.lower()
            hits = sum(1 for n in lowered if n in low)
            if hits > best_hits:
                best, best_hits, best_chunk = sentence, hits, chunk_index
                if hits == len(lowered):
                    return best, best_chunk
    return best, best_chunk
