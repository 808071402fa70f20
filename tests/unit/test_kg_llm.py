"""The LLM extractors against FakeLLM: KGScore reply parsing (malformed lines counted) and the grapher's
canonical-entity reconciliation."""
from __future__ import annotations

from core.kg.grapher import GrapherExtractor, KnownGraph, parse_json_reply, system_prompt
from core.kg.llm_extract import KGSCORE_PROMPT, LLMExtractor, parse_reply
from core.kg.offline import ChapterText
from core.llm import FakeLLM

CHAPTER = ["Meg and Jo sat by the fire in Concord. Margaret, the eldest, was sixteen.",
           "Jo March wrote a letter to Father, who served in the Union Army."]
REPLY = """Named entities (include all aliases and name variations):
Jo / Jo March
- Meg / Margaret
Concord
Union Army
Father

Knowledge graph edges (select up to 15 most important, `subject(s); predicate; [object(s)]` format):
1. Meg, Jo; sat by fire in; Concord
2. Jo; wrote letter to; Father
3. Father; served in; Union Army
4. Meg; sixteen years old
5. this line has no separators at all
6. a; b; c; d; e
7. ; empty subject; Jo
"""


def test_parse_reply_is_lenient_and_counts_malformed_lines() -> None:
    groups, edges, malformed = parse_reply(REPLY)
    assert groups[:2] == [["Jo", "Jo March"], ["Meg", "Margaret"]]
    assert (["Meg", "Jo"], "sat by fire in", ["Concord"]) in edges
    assert (["Meg"], "sixteen years old", []) in edges
    assert malformed == 3


def test_llm_extractor_builds_mentions_aliases_and_edges() -> None:
    llm = FakeLLM([REPLY], context_window=8192)
    (ext,) = list(LLMExtractor(llm).extract([ChapterText(1, CHAPTER)]))
    assert len(llm.calls) == 1 and "[Begin story excerpt]" in llm.calls[0].prompt
    assert llm.calls[0].prompt.startswith(KGSCORE_PROMPT.split("{excerpt}")[0][:80])
    assert {(a.name_a, a.name_b) for a in ext.aliases} == {("Jo", "Jo March"), ("Meg", "Margaret")}
    edge = next(t for t in ext.triples if t.relation == "wrote letter to")
    assert (edge.subject_name, edge.object_name) == ("Jo", "Father")
    assert edge.sentence.startswith("Jo March wrote a letter") and edge.chunk_index == 1
    loop = next(t for t in ext.triples if t.relation == "sixteen years old")
    assert loop.subject_name == "Meg" and loop.object_name is None
    assert ext.stats["malformed_lines"] == 3 and ext.stats["llm_calls"] == 1
    assert {m.name for m in ext.mentions} >= {"Jo", "Jo March", "Meg", "Margaret", "Concord"}


def test_long_chapters_are_split_into_segments_that_fit() -> None:
    llm = FakeLLM(["Jo", "Meg"], context_window=len(KGSCORE_PROMPT.split()) + 600 + 230)
    chunks = [" ".join(["word"] * 150) + " Jo.", " ".join(["word"] * 150) + " Meg."]
    (ext,) = list(LLMExtractor(llm).extract([ChapterText(1, chunks)]))
    assert ext.stats["llm_calls"] == 2
    assert "Meg." not in llm.calls[0].prompt and "Meg." in llm.calls[1].prompt


GRAPHER_REPLY = """```json
{"nodes": [{"id": "Jo_March", "label": "Jo", "type": "person"},
           {"id": "Laurie", "label": "Laurie", "type": "character"},
           {"id": "Plumfield", "label": "Plumfield", "type": "place"},
           {"label": ""}],
 "edges": [{"from": "Jo_March", "to": "Laurie", "label": "friends with"},
           {"from": "Jo_March", "to": "Nowhere", "label": "visits"},],
}
```"""


def test_grapher_reuses_canonical_entities_and_counts_bad_items() -> None:
    llm = FakeLLM([GRAPHER_REPLY], context_window=8192)
    known = KnownGraph([("Jo_March", "Jo March", "character")], [("Jo_March", "Jo_March", "writes")])
    seen: list[int] = []

    def provide(index: int) -> KnownGraph:
        seen.append(index)
        return known

    (ext,) = list(GrapherExtractor(llm).extract([ChapterText(3, ["Jo met Laurie at Plumfield."])], known=provide))
    assert seen == [3]
    system = llm.calls[0].messages[0].content
    assert 'id="Jo_March" label="Jo March" type="character"' in system and "RECONCILIATION RULES" in system
    assert [(a.name_a, a.name_b, a.kind) for a in ext.aliases] == [("Jo March", "Jo", "grapher")]
    edge = ext.triples[0]
    assert (edge.subject_name, edge.relation, edge.object_name) == ("Jo March", "friends with", "Laurie")
    assert edge.sentence == "Jo met Laurie at Plumfield."
    assert {m.name: m.type for m in ext.mentions} == {"Jo": "character", "Laurie": "character",
                                                       "Plumfield": "location"}
    assert ext.stats["malformed_items"] == 2 and ext.stats["reconciled"] == 1


def test_grapher_survives_a_reply_that_is_not_json() -> None:
    (ext,) = list(GrapherExtractor(FakeLLM(["I cannot help with that."])).extract([ChapterText(1, ["Text."])]))
    assert ext.stats["malformed_replies"] == 1 and not ext.triples
    assert parse_json_reply('{"nodes": [],}') == {"nodes": []}
    assert "EXISTING CANONICAL ENTITIES" not in system_prompt(KnownGraph())
