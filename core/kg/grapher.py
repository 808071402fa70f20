"""The "grapher" extractor: the Remember Me grapher agent (Appendix A.1.3) with canonical-entity reconciliation.

Before each chapter the prompt lists the entities and relationships already in the graph (as of the previous
chapter) and tells the model to reuse their exact ids and labels. A node that reuses a canonical id under another
label ("Lizzy" for Elizabeth_Bennet) becomes alias evidence for that entity. Node types are the paper's five:
character, event, object, location, organization. The paper's agent answers through a tool call; here the same
content is asked for as one JSON object, parsed leniently (code fences, trailing commas, type synonyms); nodes and
edges that cannot be used are counted in `stats["malformed_items"]`.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from core.kg.llm_common import (Segment, clean_llm_name, context_window, count_occurrences, count_tokens,
                                locate_evidence, reply_text, segments)
from core.kg.offline import ChapterText
from core.kg.types import NODE_TYPES, AliasLink, ChapterExtraction, NameMention, Triple
from core.llm.base import LLM

GRAPHER_CANONICAL_BLOCK = """EXISTING CANONICAL ENTITIES (you MUST reuse these exact IDs and labels -- do not create \
duplicates):
{entities}
EXISTING RELATIONSHIPS (re-include any that are still active in the story -- do not drop established connections):
{relationships}"""

# Remember Me, Appendix A.1.3 (fixed instruction block), plus the reply format that replaces the paper's tool call.
GRAPHER_SYSTEM = """You are the KNOWLEDGE-GRAPH AGENT. Your job is to extract entities and relationships from story \
chapters while keeping the knowledge graph consistent across chapters. {canonical}

RECONCILIATION RULES (critical):
- If a name in the chapter refers to the same person/place/thing as an existing canonical entity, use the EXISTING id \
and label -- do not invent a new one.
- Only create a NEW entity node if it is genuinely not present in the canonical list above.
- Characters who appear under nicknames, shortened names, or slight variations must be mapped to the matching \
canonical entity.

For nodes, include: id, label, and type (must be one of: character, event, object, location, organization)

For edges, include: from, to, and label fields.

RELATIONSHIP EXTRACTION PRIORITY:
- Character-to-character relationships are the most valuable -- extract these first and as completely as possible
- Then character-to-location and character-to-organisation relationships
- Character-to-event and character-to-object edges are lowest priority

IMPORTANT ID FORMATTING RULES:
- Node IDs must use underscores instead of spaces (e.g. High_School, Detective_Smith)
- Edge from and to fields must exactly match the node IDs you define (same underscore format)

Categories are strictly: character, event, object, location, organization.

Reply with one JSON object and nothing else:
{{"nodes": [{{"id": "...", "label": "...", "type": "..."}}],
  "edges": [{{"from": "...", "to": "...", "label": "..."}}]}}"""

GRAPHER_USER = "Extract entities and relationships from this chapter:\n{chapter}"
TYPE_SYNONYMS = {"person": "character", "people": "character", "char": "character", "place": "location",
                 "setting": "location", "org": "organization", "organisation": "organization", "group": "organization",
                 "thing": "object", "item": "object", "artifact": "object", "artefact": "object"}
REPLY_TOKENS = 1200
MAX_CANONICAL = 80


@dataclass
class KnownGraph:
    """The canonical block's content: entities (id, label, type) and relationships (from id, to id, label)."""

    entities: list[tuple[str, str, str]] = field(default_factory=list)
    relationships: list[tuple[str, str, str]] = field(default_factory=list)


def node_id(label: str) -> str:
    return re.sub(r"\s+", "_", label.strip())


def _id_key(value: str) -> str:
    return re.sub(r"[\s_]+", "_", value.strip()).lower()


def system_prompt(known: KnownGraph) -> str:
    canonical = ""
    if known.entities:
        ents = "\n".join(f'id="{i}" label="{lbl}" type="{t}"' for i, lbl, t in known.entities[:MAX_CANONICAL])
        rels = "\n".join(f"{a} -> {b} [{lbl}]" for a, b, lbl in known.relationships[:MAX_CANONICAL]) or "(none)"
        canonical = "\n\n" + GRAPHER_CANONICAL_BLOCK.format(entities=ents, relationships=rels)
    return GRAPHER_SYSTEM.format(canonical=canonical)


def parse_json_reply(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply, tolerating code fences and trailing commas; None if there is none."""
    text = re.sub(r"```(?:json)?", "", text)
    start = text.find("{")
    end = text.rfind("}")
    if start < 0 or end <= start:
        return None
    body = text[start:end + 1]
    for candidate in (body, re.sub(r",\s*([}\]])", r"\1", body)):
        try:
            value = json.loads(candidate)
            return value if isinstance(value, dict) else None
        except json.JSONDecodeError:
            continue
    return None


def _node_type(value: Any) -> str:
    t = str(value or "").strip().lower()
    t = TYPE_SYNONYMS.get(t, t)
    return t if t in NODE_TYPES else "object"


class GrapherExtractor:
    """Remember Me extraction; `llm` is any object with complete(messages) -> reply with .text."""

    name = "grapher"

    def __init__(self, llm: LLM, reply_tokens: int = REPLY_TOKENS) -> None:
        self.llm = llm
        self.reply_tokens = reply_tokens

    def extract(self, chapters: Iterable[ChapterText],
                known: Callable[[int], KnownGraph] | None = None) -> Iterator[ChapterExtraction]:
        """`known(i)` gives the graph as of chapter i - 1 (what the canonical block may show for chapter i)."""
        for chapter in chapters:
            graph = known(chapter.index) if known else KnownGraph()
            system = system_prompt(graph)
            budget = max(200, context_window(self.llm) - count_tokens(self.llm, system) - self.reply_tokens - 20)
            ext = ChapterExtraction(chapter.index)
            stats: Counter[str] = Counter()
            for segment in segments(chapter.chunks, budget, self.llm):
                messages = [{"role": "system", "content": system},
                            {"role": "user", "content": GRAPHER_USER.format(chapter=segment.text)}]
                reply = self.llm.complete(messages, max_tokens=self.reply_tokens, temperature=0.0,
                                        loop_guard=None)  # a list repeats its scaffolding
                stats["llm_calls"] += 1
                self._add(ext, segment, reply_text(reply), graph, stats)
            stats["edges"] = sum(1 for t in ext.triples if t.is_edge)
            ext.stats = dict(stats)
            yield ext

    def _add(self, ext: ChapterExtraction, segment: Segment, reply: str, graph: KnownGraph,
             stats: Counter[str]) -> None:
        data = parse_json_reply(reply)
        if data is None:
            stats["malformed_replies"] += 1
            return
        canonical = {_id_key(i): label for i, label, _ in graph.entities}
        labels: dict[str, str] = {}
        for node in data.get("nodes") or []:
            if not isinstance(node, dict):
                stats["malformed_items"] += 1
                continue
            raw_id = str(node.get("id") or node.get("label") or "")
            label = clean_llm_name(str(node.get("label") or raw_id.replace("_", " ")))
            if not raw_id or not label:
                stats["malformed_items"] += 1
                continue
            key = _id_key(raw_id)
            existing = canonical.get(key)
            labels[key] = existing or label
            ext.mentions.append(NameMention(label, _node_type(node.get("type")), segment.chunk_indices[0],
                                            count_occurrences(segment.text, label)))
            if existing and existing != label:
                ext.aliases.append(AliasLink(existing, label, "grapher", segment.chunk_indices[0]))
                stats["reconciled"] += 1
        for edge in data.get("edges") or []:
            if not isinstance(edge, dict):
                stats["malformed_items"] += 1
                continue
            ends = [_id_key(str(edge.get(side) or "")) for side in ("from", "to")]
            source, target = (labels.get(k) or canonical.get(k) for k in ends)
            predicate = " ".join(str(edge.get("label") or "").split()).lower()
            if not source or not target or not predicate:
                stats["malformed_items"] += 1
                continue
            sentence, chunk = locate_evidence(segment, [source, target])
            ext.triples.append(Triple(source, predicate, target, sentence, chunk, source, target))
