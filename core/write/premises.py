"""The starting premises of Remember Me (Appendix A.2) and the seven story arcs (Tian et al. 2024).

The paper announces ten premises but its text lists nine; number 10 below is Fabula's own, in the same spirit.

The paper names the arcs but does not print their descriptions; the descriptions here follow the fortune curves the
names stand for (Vonnegut's shapes as used by Tian et al.), written so a writer model can pace toward an ending.
"""
from __future__ import annotations

PREMISES: tuple[str, ...] = (
    "A renowned detective receives an anonymous letter claiming that a murder will occur in exactly 48 hours.",
    "A small coastal town's lighthouse keeper is found dead, and the only clue is a series of mysterious light "
    "patterns.",
    "During a chess tournament, the reigning champion collapses dead mid-game, poisoned by a rare toxin.",
    "A young apprentice discovers they can see magical creatures that no one else can perceive.",
    "In a world where dragons have been extinct for centuries, a farmer finds a living dragon egg in their field.",
    "A colony ship arrives at a distant planet only to find it already inhabited by humans who left Earth centuries "
    "later.",
    "An AI developed to predict crime begins warning about murders that haven't been planned yet.",
    "A family moves into their dream home, only to discover the previous owners never actually left.",
    "Two rival wedding planners are forced to collaborate on the biggest celebrity wedding of the year.",
    "A time traveler accidentally prevents their own parents from meeting and must fix the timeline before they "
    "fade from existence.",
)

ARCS: dict[str, str] = {
    "Rags to Riches": "A steady rise: the protagonist starts in misfortune and, through effort and chance, climbs "
                      "to a clearly better state by the end.",
    "Riches to Rags": "A steady fall: the protagonist starts in a good position and loses it step by step, ending "
                      "in ruin or loss.",
    "Man in a Hole": "Fall then rise: an ordinary life is struck by trouble, the protagonist sinks into it, then "
                     "climbs out and ends better off than before.",
    "Double Man in a Hole": "Fall, rise, fall, rise: the protagonist escapes one crisis only to fall into a second, "
                            "deeper one, and finally recovers.",
    "Icarus": "Rise then fall: success comes quickly and goes to the protagonist's head; overreach brings a "
              "downfall at the end.",
    "Cinderella": "Rise, fall, rise: a lowly protagonist is lifted up, loses everything at the worst moment, then "
                  "rises to a lasting happy ending.",
    "Oedipus": "Fall, rise, fall: misfortune, a hopeful recovery, then a final tragic fall often brought on by the "
               "protagonist's own past.",
}


def resolve_premise(value: str | int) -> str:
    """A premise from its 1-based number ("3") or the user's own text; ValueError for an empty one."""
    text = str(value).strip()
    if text.isdigit():
        number = int(text)
        if not 1 <= number <= len(PREMISES):
            raise ValueError(f"Premise number must be 1 to {len(PREMISES)}, got {number}.")
        return PREMISES[number - 1]
    if not text:
        raise ValueError("A story needs a premise: a number 1-10 or your own text.")
    return " ".join(text.split())


def resolve_arc(name: str) -> str:
    """The canonical arc name for any spelling ("man-in-a-hole", "icarus"); ValueError lists the choices."""
    key = "".join(ch for ch in str(name).lower() if ch.isalnum())
    for arc in ARCS:
        if "".join(ch for ch in arc.lower() if ch.isalnum()) == key:
            return arc
    raise ValueError(f"Unknown story arc '{name}'; choose one of: {', '.join(ARCS)}.")
