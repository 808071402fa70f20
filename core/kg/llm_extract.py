"""The "llm" extractor: the KGScore paper's Appendix E prompt, one call per segment of a chapter.

The model lists the segment's named entities with all their aliases ("Meg / Margaret / Margaret March") and up to 15
edges `subject(s); predicate; [object(s)]`. Each alias line is names-graph evidence; each edge is expanded over its
subjects and objects; an edge without an object is a description of its subject (a self-loop). Replies are parsed
leniently (numbering, bullets, quotes, missing headers); a line that cannot be read is skipped and counted in
`stats["malformed_lines"]`, never fatal.

Paper: ../shared/seeds/long_story_summaries_kgscore.txt (Appendix E, the extraction prompt).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from core.kg.llm_common import (Segment, clean_item, clean_llm_name, context_window, count_occurrences,
                                count_tokens, guess_type, locate_evidence, reply_text, segments)
from core.kg.offline import ChapterText
from core.kg.types import AliasLink, ChapterExtraction, NameMention, Triple
from core.llm.base import LLM

_EXAMPLE_PARAGRAPHS = """
“Christmas won’t be Christmas without any presents,” grumbled Jo. “It’s so dreadful to be poor!” sighed Meg, looking
out the window at the snow-covered streets of Concord. “I don’t think it’s fair for some girls to have plenty of
pretty things, and other girls nothing at all,” added little Amy, with an injured sniff. “We’ve got Father and
Mother, and each other,” said Beth contentedly from her corner. The four young faces brightened at the cheerful
words, but darkened again as Jo said sadly, “We haven’t got Father, and shall not have him for a long time.” She
didn’t say “perhaps never,” but each silently added it, thinking of Father far away, where the fighting was.

As young readers like to know ‘how people look’, we will take this moment to give them a little sketch of the four
sisters. Margaret March, the eldest of the four, was sixteen, and very pretty, with large eyes, plenty of soft brown
hair, a sweet mouth, and white hands. Fifteen-year-old Jo March was very tall, thin, and brown, and never seemed to
know what to do with her long limbs. Elizabeth, or Beth, as everyone called her, was a rosy, smooth-haired,
bright-eyed girl of thirteen, with a shy manner, a timid voice, and a peaceful expression which was seldom
disturbed. Amy, the youngest, was a regular snow maiden, with blue eyes, and yellow hair curling on her shoulders.

The clock struck six and, having swept up the hearth, Beth put a pair of slippers down to warm. Somehow the sight of
the old shoes had a good effect upon the girls, for Mother was coming, and everyone brightened to welcome her. Jo
sat up to hold the slippers nearer to the blaze. “They are quite worn out. Marmee must have a new pair.” “I thought
I’d get her some with my dollar,” said Beth. “No, I shall!” cried Amy. “I’ll tell you what we’ll do,” said Beth,
“let’s each get her something for Christmas, and not get anything for ourselves.” “Let Marmee think we are getting
things for ourselves, and then surprise her. We must go shopping tomorrow afternoon,” said Jo, marching up and down.

“Glad to find you so merry, my girls,” said a cheery voice at the door, and the girls turned to welcome a tall,
motherly lady. She was not elegantly dressed, but the girls thought the gray cloak and unfashionable bonnet covered
the most splendid mother in the world. As they gathered about the table, Mrs. March said, with a particularly happy
face, “I’ve got a treat for you after supper.” A quick, bright smile went round like a streak of sunshine. Beth
clapped her hands, and Jo tossed up her napkin, crying, “A letter! A letter! Three cheers for Father!” “Yes, a nice
long letter. He is well, and he sends all sorts of loving wishes for Christmas, and an especial message to you
girls,” said Mrs. March, patting her pocket as if she had got a treasure there. “I think it was so splendid in
Father to go as chaplain when he was too old to be drafted, and not strong enough for a soldier,” said Meg warmly,
proud of her father’s work with the Union Army.
"""
# The worked example of Appendix E (the opening of Little Women); wrapped here, one line per paragraph in the prompt.
KGSCORE_EXAMPLE = "\n\n".join(" ".join(p.split()) for p in _EXAMPLE_PARAGRAPHS.strip().split("\n\n"))

ENTITIES_HEADER = "Named entities (include all aliases and name variations):"
EDGES_HEADER = ("Knowledge graph edges (select up to 15 most important, `subject(s); predicate; [object(s)]` "
                "format, named entities only, predicate: five words max):")

# Appendix E of "Generating and evaluating long story summaries with knowledge graphs", with its worked example.
KGSCORE_PROMPT = f"""Read part of a story, then identify named entities and generate knowledge graph edges.

[Begin story excerpt]
{KGSCORE_EXAMPLE}
[End story excerpt]

{ENTITIES_HEADER}

Jo / Jo March
Meg / Margaret / Margaret March
Amy
Beth / Elizabeth
March sisters
Mrs. March / Marmee / Mother
Father
Concord
Union Army

{EDGES_HEADER}

1. Jo, Meg, Amy, Beth; in; March sisters
2. March sisters; daughters of; Mrs. March, Father
3. Mrs. March; mother of; March sisters
4. Father; father of; March sisters
5. March sisters, Mrs. March; living in; Concord
6. Father; away fighting in war
7. Father; chaplain in; Union Army
8. Meg; sixteen years old
9. Jo; fifteen years old
10. Beth; thirteen years old
11. Beth; shy
12. Amy; youngest among; March sisters
13. March sisters; complained about not getting presents
14. March sisters; decided to buy presents for; Mrs. March
15. Mrs. March; brought home a letter from; Father

[Begin story excerpt]
{{excerpt}}
[End story excerpt]

{ENTITIES_HEADER}
"""
REPLY_TOKENS = 600
_HEADER_ENTITIES = re.compile(r"named entities", re.I)
_HEADER_EDGES = re.compile(r"knowledge graph edges|^edges\b", re.I)


def parse_reply(text: str) -> tuple[list[list[str]], list[tuple[list[str], str, list[str]]], int]:
    """(alias groups, edges as (subjects, predicate, objects), malformed line count) from a model reply.

    Lines before the edges header without ';' are entity lines; lines with ';' are edges wherever they are.
    """
    groups: list[list[str]] = []
    edges: list[tuple[list[str], str, list[str]]] = []
    malformed = 0
    in_edges = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("[") or set(line) <= set("-=*#`"):
            continue
        if _HEADER_EDGES.search(line) and len(line) > 12 and ";" not in line.split(":")[-1]:
            in_edges = True
            continue
        if _HEADER_ENTITIES.search(line):
            in_edges = False
            continue
        if ";" in line:
            edge = _parse_edge(line)
            if edge is None:
                malformed += 1
            else:
                edges.append(edge)
            continue
        if in_edges:
            malformed += 1
            continue
        names = [n for n in (clean_llm_name(part) for part in re.split(r"\s+/\s+|/", clean_item(line))) if n]
        if names:
            groups.append(list(dict.fromkeys(names)))
        else:
            malformed += 1
    return groups, edges, malformed


def _split_names(text: str) -> list[str]:
    return [n for n in (clean_llm_name(p) for p in re.split(r",|\band\b|&", text)) if n]


def _parse_edge(line: str) -> tuple[list[str], str, list[str]] | None:
    parts = [p.strip() for p in clean_item(line).split(";")]
    if parts and not parts[-1]:
        parts = parts[:-1]
    if len(parts) not in (2, 3):
        return None
    subjects, predicate = _split_names(parts[0]), " ".join(clean_item(parts[1]).split())
    objects = _split_names(parts[2]) if len(parts) == 3 and parts[2].lower() not in ("[none]", "none") else []
    if not subjects or not predicate or len(predicate.split()) > 12:
        return None
    return subjects, predicate.lower(), objects


class LLMExtractor:
    """KGScore extraction. `llm` is any object with complete(messages) -> reply with .text (core.llm.LLM)."""

    name = "llm"

    def __init__(self, llm: LLM, reply_tokens: int = REPLY_TOKENS) -> None:
        self.llm = llm
        self.reply_tokens = reply_tokens

    def budget(self) -> int:
        """Tokens left for the excerpt once the prompt and the reply are accounted for."""
        prompt = count_tokens(self.llm, KGSCORE_PROMPT)
        return max(200, context_window(self.llm) - prompt - self.reply_tokens)

    def extract(self, chapters: Iterable[ChapterText], known: Any = None) -> Iterator[ChapterExtraction]:
        budget = self.budget()
        for chapter in chapters:
            ext = ChapterExtraction(chapter.index)
            stats: Counter[str] = Counter()
            for segment in segments(chapter.chunks, budget, self.llm):
                reply = self.llm.complete([{"role": "user", "content": KGSCORE_PROMPT.format(excerpt=segment.text)}],
                                          max_tokens=self.reply_tokens, temperature=0.0,
                                          loop_guard=None)  # JSON repeats its keys: no loop guard
                stats["llm_calls"] += 1
                self._add(ext, segment, reply_text(reply), stats)
            stats["edges"] = sum(1 for t in ext.triples if t.is_edge)
            stats["facts"] = len(ext.triples) - stats["edges"]
            ext.stats = dict(stats)
            yield ext

    def _add(self, ext: ChapterExtraction, segment: Segment, reply: str, stats: Counter[str]) -> None:
        groups, edges, malformed = parse_reply(reply)
        stats["malformed_lines"] += malformed
        known: dict[str, str] = {}
        for group in groups:
            for name in group:
                known[name.lower()] = name
                ext.mentions.append(NameMention(name, guess_type(name), segment.chunk_indices[0],
                                                count_occurrences(segment.text, name)))
            for other in group[1:]:
                ext.aliases.append(AliasLink(group[0], other, "llm", segment.chunk_indices[0]))
        for subjects, predicate, objects in edges:
            for subject in subjects:
                s_name = known.get(subject.lower())
                for obj in objects or [""]:
                    o_name = known.get(obj.lower()) if obj else None
                    sentence, chunk = locate_evidence(segment, [subject, obj])
                    ext.triples.append(Triple(subject, predicate, obj, sentence, chunk, s_name, o_name))
                    stats["triples"] += 1
