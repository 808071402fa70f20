"""The planner's outline of a chapter (issue 34): its beats, the characters in it, and where it takes the story in
its arc. The Remember Me planner only advances the chapter counter; Fabula's planner also proposes this outline
before the writer writes, the writer can edit it, and the writer's prompt carries it (`plan_block`).

    messages = planner_messages(params, n, story_end, characters, earlier)   # one call to the writing model
    plan = parse_plan(reply, n) or outline_only(params, n, characters)       # a reply without beats: the skeleton

A model's reply is read leniently (a line "ARC: ...", a line "CHARACTERS: a, b", then "- beat" lines); a reply in
which no beat can be found gives None, and the caller keeps the offline skeleton (the characters in play and the
arc's stage, no beats) with a note rather than inventing beats.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.write.params import WriteParams
from core.write.premises import ARCS

MAX_BEATS = 8
MAX_BEAT_CHARS = 300
PLANNER_TOKENS = 260
SOURCES = ("planner", "writer", "outline")   # the model's, edited (or written) by the writer, the offline skeleton

PLANNER_SYSTEM = """You are the planner of a story following the '{arc}' narrative archetype.

Archetype description:
{arc_description}

Starting premise: {premise}

The story will have at most {max_chapters} chapters. You plan chapter {n} ({stage}).
{earlier}{story_end}{characters}
Plan chapter {n} in exactly this format and nothing else:

ARC: <one sentence: where this chapter takes the story in the archetype>
CHARACTERS: <the names of the characters in the chapter, separated by commas>
BEATS:
- <an event of the chapter, one short sentence>
- <the next event>
- <three to six beats in all, in story order>"""
PLANNER_USER = "Plan chapter {n}."
PLAN_HEADER = "PLAN FOR THIS CHAPTER (follow it):"

_FIELD = re.compile(r"^\W*(arc|characters|beats)\W*:\s*(.*)$", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.+)$")


@dataclass(frozen=True)
class ChapterPlan:
    """The outline of chapter `chapter`. `source`: who made it last (SOURCES); `note`: what the writer should know
    about it ("the embedded model wrote no beats: ...")."""

    chapter: int
    beats: tuple[str, ...] = ()
    characters: tuple[str, ...] = ()
    arc: str = ""
    source: str = "planner"
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"beats": list(self.beats), "characters": list(self.characters)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChapterPlan:
        return cls(int(data["chapter"]), tuple(str(b) for b in data.get("beats") or ()),
                   tuple(str(c) for c in data.get("characters") or ()), str(data.get("arc") or ""),
                   str(data.get("source") or "planner"), str(data.get("note") or ""))

    @property
    def empty(self) -> bool:
        return not self.beats and not self.characters and not self.arc


def clean_plan(chapter: int, beats: Sequence[str], characters: Sequence[str], arc: str, source: str,
               note: str = "") -> ChapterPlan:
    """A plan as typed or generated, tidied: blank beats dropped, beats and names trimmed and de-duplicated, at most
    MAX_BEATS beats of MAX_BEAT_CHARS characters each. ValueError for an unknown source."""
    if source not in SOURCES:
        raise ValueError(f"Unknown plan source {source!r}.")
    kept = [" ".join(b.split())[:MAX_BEAT_CHARS] for b in beats if b and b.strip()]
    names = [" ".join(c.split()) for c in characters if c and c.strip()]
    return ChapterPlan(chapter, tuple(dict.fromkeys(kept))[:MAX_BEATS], tuple(dict.fromkeys(names)),
                       " ".join(arc.split())[:MAX_BEAT_CHARS], source, note)


def arc_stage(params: WriteParams, n: int) -> str:
    """Where chapter `n` stands in the story, in words the planner and the page share: "chapter 3 of at most 12,
    the rising part"."""
    position = n / max(params.max_chapters, 1)
    part = ("the opening" if n == 1 else "the rising part" if position <= 0.4 else "the middle, the turn"
            if position <= 0.7 else "the ending" if n >= params.max_chapters else "the approach to the ending")
    return f"chapter {n} of at most {params.max_chapters}, {part}"


def planner_messages(params: WriteParams, n: int, story_end: str, characters: Sequence[str],
                     earlier: Sequence[ChapterPlan]) -> list[dict[str, str]]:
    """The planner's messages for chapter `n`: the premise and arc, the outline of the last chapters, how the story
    so far ends, and the characters the graph knows."""
    outline = "".join(f"Chapter {p.chapter}: " + "; ".join(p.beats) + "\n" for p in earlier[-3:] if p.beats)
    system = PLANNER_SYSTEM.format(
        arc=params.arc, arc_description=ARCS.get(params.arc, params.arc), premise=params.premise,
        max_chapters=params.max_chapters, n=n, stage=arc_stage(params, n),
        earlier=f"\nThe outline so far:\n{outline}" if outline else "",
        story_end=f"\nThe story so far ends:\n{story_end.strip()}\n" if story_end.strip() else "",
        characters=f"\nCharacters so far: {', '.join(characters)}\n" if characters else "")
    return [{"role": "system", "content": system}, {"role": "user", "content": PLANNER_USER.format(n=n)}]


def parse_plan(reply: str, n: int) -> ChapterPlan | None:
    """The planner's reply as a plan; None when it holds no beat (the caller keeps the skeleton)."""
    arc, characters, beats = "", [], []
    in_beats = False
    for line in reply.splitlines():
        found = _FIELD.match(line)
        if found:
            name, value = found.group(1).lower(), found.group(2).strip()
            in_beats = name == "beats"
            if name == "arc":
                arc = value
            elif name == "characters":
                characters = [c.strip(" .") for c in re.split(r",|;| and ", value) if c.strip(" .")]
            elif value:
                beats.append(value)
            continue
        item = _ITEM.match(line)
        if item and (in_beats or not beats):
            beats.append(item.group(1).strip())
    beats = [b for b in beats if len(b.split()) >= 3 and not b.startswith("<")]  # "- <an event ...>": the template
    if not beats:
        return None
    return clean_plan(n, beats, characters, arc, "planner")


def outline_only(params: WriteParams, n: int, characters: Sequence[str], note: str = "") -> ChapterPlan:
    """The offline skeleton: the characters in play and the arc's stage, no beats (the writer adds them)."""
    return clean_plan(n, (), characters[:6], f"{params.arc}: {arc_stage(params, n)}", "outline", note)


def plan_block(plan: ChapterPlan | None) -> str:
    """The plan as the writer's prompt shows it ("" when there is nothing to show)."""
    if plan is None or plan.empty:
        return ""
    lines = [PLAN_HEADER]
    if plan.arc:
        lines.append(f"Where it goes: {plan.arc}")
    if plan.characters:
        lines.append("Characters: " + ", ".join(plan.characters))
    if plan.beats:
        lines.append("Beats, in order:")
        lines += [f"- {b}" for b in plan.beats]
    return "\n".join(lines)


@dataclass
class PlanEdit:
    """What the page's editor holds: beats one per line, characters separated by commas."""

    beats: str = ""
    characters: str = ""
    arc: str = ""

    def to_plan(self, chapter: int) -> ChapterPlan:
        return clean_plan(chapter, [_ITEM.sub(r"\1", b) for b in self.beats.splitlines()],
                          self.characters.split(","), self.arc, "writer")
