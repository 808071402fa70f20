"""The Appendix F prompt of the KGScore paper (summary knowledge-graph edges with an LLM) and its parser.

The prompt is the paper's rules and its three worked examples as a multi-turn conversation; each summary is followed
by the named entities the edges must use (the paper gives the model the reference summary's entities, and the same
entities for both summaries, so that their edges can match). An edge is `subject(s); [None] or object(s); predicate`;
several subjects or objects expand into one edge each; `[None]` makes a self-loop (object = subject). Edges naming
anything that is not one of the given entities are dropped (counted in `stats`), as are unreadable lines.

Paper: ../shared/seeds/long_story_summaries_kgscore.txt (Appendix F, the summary-edge prompt).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from core.llm.base import LLM
from core.metrics.score_edges import ScoreEdge, entity_key

RULES = """Your task is to create a list of knowledge graph edges from a chapter summary. Here are the rules you must follow:
- A knowledge graph edge is in the format "<subject(s)>; [None] or <object(s)>; <predicate>".
- Subjects and objects must be named entities.
- If there are multiple subjects or objects, separate them with commas.
- Predicates describe a relationship or action between the subjects and objects.
- Predicates should not contain names.
- Keep the predicates short (four words max).
- If the knowledge graph edge is a description or action of a single entity with no object, use "[None]" in place of the object(s).
- Only include information explicitly provided in the summary.
- Find a diverse set of edges, never repeating similar edges.
- Order the edges by importance rather than appearance in the summary, with the most important edges first."""

EXAMPLE_1 = """The trio continues their arduous journey toward Canyon B, 300 km east of their home colony. Tensions rise as Janek and AC-293 clash over the best route to take. The Narrator, who has been silent for the past few days, finally speaks up and suggests that they take a shortcut through the mountains. Janek and AC-293 are skeptical, but they agree to try it. The Narrator leads them through a narrow pass, and they soon find themselves in an open valley. The Martian landscape is breathtaking, and the trio sets up camp for the night. The next morning, they continue their journey through the valley. Suddenly, they hear a loud noise and see a cloud of dust rising in the distance. They realize that a sandstorm is approaching, and they must find shelter quickly. They spot a cave in the distance and rush toward it. In the haste, Janek trips and falls, injuring his leg. The Narrator and AC-293 help him to his feet, and they make it to the cave just in time. They wait out the storm and emerge the next morning to find that their rover has been buried in sand. They dig it out and continue their journey toward Canyon B."""
EDGES_1 = """- Narrator, Janek, AC-293; Canyon B; continues journey toward
- Janek; AC-293; argues with
- AC-293; Janek; argues with
- Narrator; [None]; suggests shortcut through mountains
- Narrator, Janek, AC-293; [None]; camps in valley
- Narrator, Janek, AC-293; [None]; notices approaching sandstorm
- Narrator, Janek, AC-293; [None]; rushes toward cave
- Janek; [None]; falls and injures leg
- Narrator, AC-293; Janek; helps to feet
- Narrator, Janek, AC-293; [None]; waits out storm
- Narrator, Janek, AC-293; [None]; digs out rover
- Janek, AC-293; [None]; skeptical of shortcut
- Janek, AC-293; [None]; agrees to shortcut
- Narrator; [None]; leads through narrow pass
- Narrator, Janek, AC-293; [None]; makes it to cave
- Canyon B; [None]; east of home colony"""

EXAMPLE_2 = """This chapter focuses on the dazzling Grand Acorn Gala at Furrington Grove. Sir Reginald, the host of the gala, is a wealthy hedgehog who has a reputation for being a bit of a snob. He is also a collector of rare artifacts, and he has invited the guests to bring their own treasures to the gala. Xander, a young fox, and his father, Yorick, are among the guests. Yorick is a famous explorer, and he has brought a rare artifact to the gala, a golden leaf. Xander is eager to show off his father's treasure, but when he approaches Sir Reginald, the host dismisses the golden leaf as common and uninteresting. Undeterred, Xander explores the gala and encounters Penelope, a wise owl, who shares a secret about the golden leaf: it was once part of a magical tree that grew in the forest. Xander is intrigued by the story, and he decides to investigate further. He discovers that the tree was destroyed by a terrible storm, and the golden leaf was the only thing that survived. Xander is determined to find the tree and restore it to its former glory."""
EDGES_2 = """- Sir Reginald; Grand Acorn Gala; host of
- Sir Reginald; [None]; artifact collector
- Xander; [None]; young fox
- Yorick; Xander; father of
- Yorick; [None]; brings golden leaf
- Sir Reginald; [None]; dismisses golden leaf
- Penelope; Xander; shares secret with
- Xander; [None]; investigates golden leaf
- Xander; [None]; wants to restore tree
- Yorick; [None]; famous explorer
- Xander; Sir Reginald; approaches
- Xander; Penelope; encounters
- Penelope; [None]; wise owl
- Sir Reginald; [None]; wealthy
- Sir Reginald; [None]; snob
- Grand Acorn Gala; Furrington Grove; takes place at"""

EXAMPLE_3 = """In this chapter, Amelia, a seasoned investigator with the Justice & Integrity Taskforce, dives into a high-stakes art theft case at the Metropolitan Museum of Art in New York City. The missing painting leads her to Marco Santos, an enigmatic artist tied to the Paris Art Collective. Crossing the Atlantic, Amelia unravels a web of clues in the underground European art scene, exposing the ruthless European Art Syndicate behind the theft. As Amelia delves deeper, she unearths Marco's troubled past, connecting him to his controversial exhibitions at the Louvre and the Tate Modern. An unexpected alliance forms between them as they race to unveil the truth behind the theft. They are not the sole seekers of the stolen masterpiece, however. Dr. Harold Blackwood, CEO of Blackwood Enterprises, lurks in the shadows, manipulating the chaos for his personal gain. With a cunning mind and powerful connections, Blackwood poses a hidden threat. His motives remain veiled in mystery as he holds secret meetings in Paris, London, and New York. Amelia and Marco navigate a treacherous path, not only against the European Art Syndicate but also against the calculated machinations of Dr. Harold Blackwood, who seeks to outsmart them and claim the stolen artwork for himself."""
EDGES_3 = """- Amelia; Metropolitan Museum of Art; investigates theft at
- European Art Syndicate; [None]; behind theft
- Amelia; European Art Syndicate; exposes
- Amelia; Marco Santos; forms alliance with
- Marco Santos; Amelia; forms alliance with
- Amelia, Marco Santos; [None]; races for truth
- Dr. Harold Blackwood; Amelia, Marco Santos; tries to outsmart
- Dr. Harold Blackwood; [None]; seeks stolen artwork
- Amelia; Justice & Integrity Taskforce; investigator at
- Marco Santos; [None]; enigmatic artist
- Marco Santos; Paris Art Collective; has ties to
- Amelia; Marco Santos; discovers past of
- Marco Santos; Louvre, Tate Modern; held controversial exhibition at
- European Art Syndicate; [None]; ruthless
- Dr. Harold Blackwood; Blackwood Enterprises; CEO of
- Dr. Harold Blackwood; [None]; cunning
- Dr. Harold Blackwood; Paris, London, New York; holds meetings in
- Metropolitan Museum of Art; New York City; located in"""

EXAMPLES: tuple[tuple[str, str], ...] = ((EXAMPLE_1, EDGES_1), (EXAMPLE_2, EDGES_2), (EXAMPLE_3, EDGES_3))
SUMMARY_TURN = "Summary:\n{summary}\n\nNamed entities: {entities}"
STOP = ("\nSummary:",)
NONE_OBJECT = frozenset({"[none]", "none", "[]", "-", "n/a", ""})
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s*")


def _names_in(edges: str) -> list[str]:
    """The entities of an example, in order of first use (its subjects and objects)."""
    names: list[str] = []
    for line in edges.splitlines():
        parts = [p.strip() for p in _BULLET.sub("", line).split(";")]
        for field in parts[:2]:
            names.extend(n.strip() for n in field.split(",") if n.strip().lower() not in NONE_OBJECT)
    return list(dict.fromkeys(names))


def messages(summary: str, entities: Sequence[str]) -> list[dict[str, str]]:
    """The whole conversation: rules and the first example, the two other examples, then the summary asked for."""
    turns: list[dict[str, str]] = []
    for i, (example, edges) in enumerate(EXAMPLES):
        text = SUMMARY_TURN.format(summary=example, entities=", ".join(_names_in(edges)))
        turns.append({"role": "user", "content": f"{RULES}\n\n{text}" if i == 0 else text})
        turns.append({"role": "assistant", "content": edges})
    turns.append({"role": "user", "content": SUMMARY_TURN.format(summary=" ".join(summary.split()),
                                                                 entities=", ".join(entities))})
    return turns


def parse_edges(reply: str, entities: Sequence[str] | None = None, stats: Counter[str] | None = None) -> \
        list[ScoreEdge]:
    """Edges from a reply, expanded over subjects and objects, restricted to `entities` when given."""
    stats = stats if stats is not None else Counter()
    allowed = {entity_key(e): e for e in entities} if entities is not None else None
    out: list[ScoreEdge] = []
    for raw in (reply or "").splitlines():
        line = _BULLET.sub("", raw).strip().strip("`")
        if not line:
            continue
        if line.lower().startswith(("summary", "named entities")):
            break  # the model began another example
        parts = [p.strip() for p in line.split(";")]
        if len(parts) == 2:
            parts = [parts[0], "[None]", parts[1]]
        if len(parts) != 3 or not parts[0] or not parts[2]:
            stats["malformed_lines"] += 1
            continue
        subjects = [s.strip() for s in parts[0].split(",") if s.strip()]
        objects = [o.strip() for o in parts[1].split(",") if o.strip().lower() not in NONE_OBJECT]
        predicate = " ".join(parts[2].split())
        for subject in subjects:
            for obj in (objects if objects else [None]):
                s, o = entity_key(subject), entity_key(obj) if obj else None
                if allowed is not None and (s not in allowed or (o is not None and o not in allowed)):
                    stats["not_an_entity"] += 1
                    continue
                out.append(ScoreEdge(s, o if o is not None else s, predicate))
    return list(dict.fromkeys(out))


class LLMEdgeExtractor:
    """Summary edges with the Appendix F prompt and an LLM (the paper used Mixtral 8x7B with constrained output)."""

    name = "llm"

    def __init__(self, llm: LLM, max_tokens: int = 320) -> None:
        self.llm, self.max_tokens = llm, max_tokens
        self.stats: Counter[str] = Counter()

    def extract(self, text: str, entities: Sequence[str]) -> list[ScoreEdge]:
        if not entities or not text.strip():
            return []
        reply = self.llm.complete(messages(text, entities), max_tokens=self.max_tokens, stop=list(STOP),
                                  temperature=0.0, loop_guard=None)  # edge lines repeat their scaffolding
        self.stats["calls"] += 1
        return parse_edges(reply.text, entities, self.stats)
