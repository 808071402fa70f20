"""A chapter read for contradictions by a capable language model: the prompt and what is kept of the reply.

The rule-based checks (core.continuity.checks) compare facts stated in plain patterns; blind tests found 5 of 100
novelist-style slips with them (bench/README.md, "Continuity"), because a slip is usually written as a description,
a role or a measure ("the little white terrier" for a huge black dog). A capable model reads those. It gets the
established states of the chapter's people (core.continuity.summary), the earlier passages that introduce and
describe them (`earlier_passages`), and the chapter, and answers with a JSON object:

    {"contradictions": [{"kind": "attribute", "entity": "Bob", "sentence": "<copied from the chapter>",
                         "earlier": "<copied from an earlier passage>", "earlier_chapter": 2, "why": "..."}]}

Nothing the model says is shown unless both sentences are found in the book (`to_flags`): the new one in the
chapter, the earlier one in the chapter it names (or any earlier chapter), located as the rules' flags are
(core.continuity.locate); the rest is dropped and counted, so an invented quotation never looks like a finding.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.continuity.locate import Locator
from core.continuity.model import FLAG_KINDS, Flag

SOURCE = "read by "          # a kept finding's detail starts with this and the model's name
CONTEXT_WORDS = 3_000        # the earlier passages given with a chapter, at most
PART_WORDS = 4_000           # a longer chapter is read in parts of about this many words, one call each
REPLY_TOKENS = 1_200
PER_ENTITY = 3               # earlier passages per person or place of the chapter (its introduction first)
MAX_ENTITIES = 12            # the chapter's most named people and places that earlier passages are chosen for
CONFIDENCE = 0.7             # a finding whose two sentences were both found in the book

PROMPT = """You are a careful copy editor checking a novel for continuity errors: places where chapter {chapter} \
contradicts what the story established earlier.

Established facts (each with the chapter that established it):
{states}

Earlier passages about the people and places of chapter {chapter}:
{passages}

Chapter {chapter}{part}:
{text}

List every sentence of chapter {chapter} above that contradicts an earlier fact or passage: a character who died \
and now acts, speaks or is seen; a family or social tie that changes; a physical attribute (eyes, hair, colour, \
size, age, a mark or scar, a breed) that changes; a person called by a different given name or surname; a home, \
birthplace or origin that changes. Not contradictions: changes the story explains (a move, a marriage, time \
passing), memories, dreams, ghosts, what a character believes or lies about, figures of speech, nicknames.

Reply with one JSON object and nothing else:
{{"contradictions": [{{"kind": "dead|tie|attribute|name|home", "entity": "who or what", \
"sentence": "the sentence of chapter {chapter}, copied exactly", "earlier": "the earlier sentence it contradicts, \
copied exactly", "earlier_chapter": 1, "why": "a few words"}}]}}
If there are none, reply {{"contradictions": []}}."""


@dataclass
class Finding:
    """What the model said, before it is checked against the book."""

    kind: str
    entity: str
    sentence: str
    earlier: str
    earlier_chapter: int | None
    why: str


@dataclass
class Kept:
    flags: list[Flag] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)     # why each finding was not kept, in a few words


def parse_reply(text: str) -> list[Finding]:
    """The findings of a reply; ValueError with a plain message when the reply is not the JSON object asked for."""
    from core.kg.grapher import parse_json_reply
    value = parse_json_reply(text or "")
    items = value.get("contradictions") if value is not None else None
    if not isinstance(items, list):
        shown = " ".join((text or "").split())[:120]
        raise ValueError(f"The model did not answer with the list of contradictions asked for (it said: "
                         f"“{shown or 'nothing'}”).")
    out = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        chapter = item.get("earlier_chapter")
        out.append(Finding(str(item.get("kind") or "").strip().lower(), str(item.get("entity") or "").strip(),
                           str(item.get("sentence") or "").strip(), str(item.get("earlier") or "").strip(),
                           _chapter_number(chapter), str(item.get("why") or "").strip()))
    return out


def _chapter_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    match = re.search(r"\d+", str(value or ""))
    return int(match.group()) if match else None


def to_flags(findings: Iterable[Finding], chapter: int, text: str, earlier: Mapping[int, str],
             model: str) -> Kept:
    """The findings whose sentence is in chapter `chapter` (`text`) and whose earlier sentence is in an earlier
    chapter (`earlier`: index -> text; the chapter the model named is searched first), as flags."""
    kept = Kept()
    here = Locator(text)
    seen: set[tuple[str, int]] = set()
    for f in findings:
        kind = f.kind if f.kind in FLAG_KINDS else "attribute"
        if not f.sentence or not f.earlier:
            kept.dropped.append("a finding without both sentences")
            continue
        start, end = here.find(f.sentence)
        if start < 0:
            kept.dropped.append(f"not in chapter {chapter}: “{_short(f.sentence)}”")
            continue
        prior = _find_earlier(f, chapter, earlier)
        if prior is None:
            kept.dropped.append(f"earlier sentence not in the book before chapter {chapter}: “{_short(f.earlier)}”")
            continue
        if (kind, start) in seen:
            continue
        seen.add((kind, start))
        p_chapter, p_start, p_end = prior
        entity = f.entity or "?"
        why = f"{SOURCE}{model}" + (f": {f.why}" if f.why else "")
        kept.flags.append(Flag(kind, entity, entity, chapter, text[start:end], start, end, p_chapter,
                               earlier[p_chapter][p_start:p_end], p_start, p_end, CONFIDENCE, why[:300]))
    return kept


def _find_earlier(f: Finding, chapter: int, earlier: Mapping[int, str]) -> tuple[int, int, int] | None:
    order = sorted((c for c in earlier if c < chapter), key=lambda c: (c != f.earlier_chapter, c))
    for c in order:
        start, end = Locator(earlier[c]).find(f.earlier)
        if start >= 0:
            return c, start, end
    return None


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"


def chapter_names(text: str, names: Mapping[str, str], limit: int = MAX_ENTITIES) -> list[str]:
    """The entity labels whose names (`names`: name -> label) the chapter uses, most used first."""
    counts: dict[str, int] = {}
    for name, label in names.items():
        if len(name) < 2:
            continue
        n = len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", text))
        if n:
            counts[label] = counts.get(label, 0) + n
    return [label for label, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]


def earlier_passages(chapters: Sequence[tuple[int, str]], labels: Sequence[str], names: Mapping[str, str],
                     anchors: Mapping[str, Sequence[tuple[int, str]]] | None = None,
                     budget_words: int = CONTEXT_WORDS) -> list[tuple[int, str]]:
    """(chapter, paragraph) of the earlier chapters that tell of `labels`: per entity its first paragraphs (an
    introduction usually describes) and those holding its established states' sentences (`anchors`: label ->
    (chapter, sentence)), within `budget_words`, in story order."""
    paragraphs = [(c, p.strip()) for c, text in chapters for p in re.split(r"\n\s*\n", text) if p.strip()]
    by_label: dict[str, list[str]] = {}
    for name, label in names.items():
        if label in labels and len(name) >= 2:
            by_label.setdefault(label, []).append(name)
    chosen: list[int] = []
    used = 0

    def take(i: int) -> bool:
        nonlocal used
        if i in chosen:
            return True
        words = len(paragraphs[i][1].split())
        if used + words > budget_words:
            return False
        chosen.append(i)
        used += words
        return True

    for label in labels:
        patterns = [re.compile(rf"(?<!\w){re.escape(n)}(?!\w)") for n in by_label.get(label, [])]
        hits = [i for i, (_, p) in enumerate(paragraphs) if any(rx.search(p) for rx in patterns)]
        anchored = [i for c, sentence in (anchors or {}).get(label, ())
                    for i, (pc, p) in enumerate(paragraphs) if pc == c and " ".join(sentence.split())[:60] in
                    " ".join(p.split())]
        for i in list(dict.fromkeys([*hits[:PER_ENTITY - 1], *anchored[:PER_ENTITY]]))[:PER_ENTITY + 1]:
            take(i)
    return [paragraphs[i] for i in sorted(chosen)]


def parts_of(text: str, part_words: int = PART_WORDS) -> list[str]:
    """The chapter cut at paragraph ends into parts of about `part_words` words (one part when it is shorter)."""
    paragraphs = [p for p in re.split(r"(\n\s*\n)", text)]
    parts: list[str] = []
    current: list[str] = []
    words = 0
    for p in paragraphs:
        n = len(p.split())
        if current and words + n > part_words and p.strip():
            parts.append("".join(current).strip())
            current, words = [], 0
        current.append(p)
        words += n
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts or [text]


def prompt(chapter: int, text: str, states: str, passages: Sequence[tuple[int, str]], part: str = "") -> str:
    shown = "\n\n".join(f"[chapter {c}] {p}" for c, p in passages) or "(none)"
    return PROMPT.format(chapter=chapter, states=states or "(none recorded)", passages=shown, text=text, part=part)
