"""One definition of "character" (core.kg.characters): the graph's entities typed character, counted per chapter
with the graph's own mention counts, and the resolver Retention reads sentences with."""
from __future__ import annotations

from core.kg.characters import chapter_characters, character_resolver, characters, is_character
from core.kg.types import EntityName, KgEntity, NameCount
from core.metrics.aliases import clean_surface

BUCK = KgEntity(1, "Buck", "character", [EntityName("Buck", 1, 30)], 1, 30)
CURLY = KgEntity(2, "Curly", "character", [EntityName("Curly", 1, 6), EntityName("Curley", 2, 1)], 1, 7)
COLT = KgEntity(3, "Colt", "object", [EntityName("Colt", 5, 3)], 5, 3)
STREET = KgEntity(4, "Front Street", "location", [EntityName("Front Street", 2, 2)], 2, 2)
ENTITIES = [BUCK, CURLY, COLT, STREET]
COUNTS = [NameCount("Buck", 1, "character", 20), NameCount("Buck", 2, "character", 10),
          NameCount("Curly", 1, "location", 6), NameCount("Curley", 2, "character", 1),
          NameCount("Colt", 5, "character", 3), NameCount("Front Street", 2, "location", 2)]


def test_a_character_is_an_entity_typed_character() -> None:
    assert is_character("character") and not is_character("location") and not is_character(None)
    assert [e.label for e in characters(ENTITIES)] == ["Buck", "Curly"]


def test_characters_per_chapter_use_the_graphs_counts_under_the_entitys_label() -> None:
    per = chapter_characters(ENTITIES, COUNTS)
    assert per == {1: {"Buck": 20, "Curly": 6}, 2: {"Buck": 10, "Curly": 1}}   # "Colt" and the street: none
    assert 5 not in per


def test_the_resolver_names_characters_and_nothing_else() -> None:
    resolve = character_resolver(ENTITIES, clean_surface)
    assert resolve("Curley") == resolve("Curly's") == "Curly"
    assert resolve("Colt") is None and resolve("Front Street") is None   # in the graph, not characters
    assert resolve("Mush") is None                                          # not in the graph at all
