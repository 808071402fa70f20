"""What is established about an entity as of a chapter: the lines the Graph page's details, the exports and the
writer's prompt show ("dead since chapter 3", "sister of Elizabeth Bennet (chapter 1)", "eyes: blue (chapter 2)").

The same cues as the checks decide what counts: a death only believed, a tie in someone's mouth, an age "when she
was ten" establish nothing. Where a value changes legitimately (a home after a move, a profession after "became")
the latest one is shown.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.continuity.checks import NOT_A_DEATH, NOT_PRESENT, RECURRING, death_of
from core.continuity.model import Entities, State

NOT_STATED = frozenset({"negated", "hedge", "belief", "quote", "past"})
PROMPT_LINES = 12


@dataclass(frozen=True)
class StateLine:
    """One established state: `text` reads on its own ("Spitz is dead"); `chapter` is where it became true."""

    entity: str
    kind: str
    text: str
    chapter: int
    sentence: str
    start: int
    end: int
    certain: bool = True  # False: read through a pronoun (shown to a reader, hedged; kept out of a writer's prompt)

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "state": self.text, "chapter": self.chapter, "sentence": self.sentence,
                "start": self.start, "end": self.end, "certain": self.certain}


def _line(entity: str, kind: str, text: str, s: State, certain: bool = True) -> StateLine:
    return StateLine(entity, kind, text, s.chapter, s.sentence, s.start, s.end, certain)


def pronoun_death(facts: Sequence[State]) -> State | None:
    """A death the narration states of "she" or "he" that coreference resolved to this entity ("she quietly drew
    her last"), unless the entity, named, acts or is alive again later as often as a plain death is taken as misread
    (RECURRING): the checks never flag on it (a coreference slip would raise false alarms), but a reader's card may
    say it, marked as read through a pronoun."""
    deaths = [s for s in facts if s.kind == "dead" and "pronoun" in s.cues
              and not s.cues & (NOT_A_DEATH - {"pronoun"}) and "quote" not in s.cues]
    if not deaths:
        return None
    death = min(deaths, key=lambda s: s.at)
    later = [s for s in facts if s.at > death.at and s.kind in ("act", "alive") and "pronoun" not in s.cues
             and not s.cues & NOT_PRESENT]
    return None if len(later) >= RECURRING or any(s.kind == "alive" for s in later) else death


def _entity_lines(label: str, facts: Sequence[State], entities: Entities) -> list[StateLine]:
    lines: list[StateLine] = []
    death, _ = death_of(facts)
    if death is not None:
        how = " (inferred)" if death.key == "inferred" else ""
        lines.append(_line(label, "dead", f"{label} is dead{how}", death))
    elif (told := pronoun_death(facts)) is not None:
        lines.append(_line(label, "dead", f"{label} is dead (read through a pronoun: see the passage)", told,
                           certain=False))
    latest: dict[tuple[str, str], State] = {}
    for s in facts:
        if s.cues & NOT_STATED or ("pronoun" in s.cues and s.kind in ("tie", "born", "home")):
            continue
        if s.kind == "tie":
            latest[("tie", entities.of_name(s.value))] = s
        elif s.kind == "attr":
            latest[("attr", s.key)] = s
        elif s.kind in ("born", "home"):
            latest[(s.kind, "")] = s
    for (kind, _), s in sorted(latest.items(), key=lambda item: item[1].at):
        if kind == "tie":
            other = entities.label[entities.of_name(s.value)]
            text = f"{s.key} of {other}" if s.key != "spouse" else f"married to {other}"
        elif kind == "attr":
            text = f"{s.key}: {s.value}"
        else:
            text = f"born in {s.value}" if kind == "born" else f"lives at {s.value}"
        lines.append(_line(label, "tie" if kind == "tie" else "attribute" if kind == "attr" else "home",
                           f"{label}: {text}", s))
    names = list(dict.fromkeys(s.value for s in facts if s.kind == "name" and "quote" not in s.cues))
    # acts only decide whether a death holds; the lines are states
    if len(names) > 1:
        first = next(s for s in facts if s.kind == "name")
        lines.append(_line(label, "name", f"{label} is called {', '.join(names[:6])}", first))
    return lines


def established(states: Iterable[State], entities: Entities, as_of: int | None = None,
                names: Iterable[str] | None = None) -> dict[str, list[StateLine]]:
    """Entity key -> its established states as of chapter `as_of` (all chapters when None), for the entities whose
    names are in `names` (all when None)."""
    wanted = None if names is None else {entities.of_name(n) for n in names}
    by_entity: dict[str, list[State]] = defaultdict(list)
    for s in states:
        if not s.name or s.kind == "time" or (as_of is not None and s.chapter > as_of):
            continue
        key = entities.of_name(s.name)
        if wanted is None or key in wanted:
            by_entity[key].append(s)
    out: dict[str, list[StateLine]] = {}
    for key, facts in by_entity.items():
        facts.sort(key=lambda s: s.at)
        lines = _entity_lines(entities.label[key], facts, entities)
        if lines:
            out[key] = lines
    return out


def prompt_block(lines: dict[str, list[StateLine]], limit: int = PROMPT_LINES) -> str:
    """The established states as a short list for a writer's prompt, deaths first ("" when there are none)."""
    flat = sorted((line for group in lines.values() for line in group if line.certain),
                  key=lambda line: (line.kind != "dead", line.kind != "tie", line.chapter))
    if not flat:
        return ""
    body = "\n".join(f"- {line.text} (since chapter {line.chapter})" for line in flat[:limit])
    return "Established facts of the story so far (keep them true):\n" + body
