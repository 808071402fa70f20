"""KID's knowledge trie and local memory: word boundaries, stemming, hops, FIFO (the fact-word rule:
test_kid_whole_words.py)."""
from __future__ import annotations

import pytest

from core.write.kid import EntityMemory, KnowledgeTrie, entities_in, stem, triple_from_text, words

TRIPLES = [("Mr Darcy", "loves", "Elizabeth Bennet"), ("Elizabeth", "lives at", "Longbourn"),
           ("Longbourn", "is near", "Meryton"), ("cat", "chases", "mouse")]


@pytest.fixture
def trie() -> KnowledgeTrie:
    return KnowledgeTrie.build(TRIPLES)


def test_words_drop_possessives_and_stems_match() -> None:
    assert words("Darcy's cat, the category!") == ["Darcy", "cat", "the", "category"]
    assert stem("Darcy's") == stem("darcys") == stem("Darcy")
    assert stem("cat") != stem("category")


def test_query_returns_the_fact_words_of_the_subject_s_objects(trie: KnowledgeTrie) -> None:
    got = {d.word for d in trie.query("Darcy", hops=1)}
    assert got == {"Elizabeth", "Bennet"}   # the object's names, as the paper's end nodes; not the relation "loves"


def test_stemmed_lookup_finds_possessive_and_plural_forms(trie: KnowledgeTrie) -> None:
    assert {d.word for d in trie.query("Darcy's")} == {d.word for d in trie.query("darcys")} != set()
    assert {d.word for d in trie.query("cats")} == {"mouse"}


def test_word_boundaries_not_character_prefixes(trie: KnowledgeTrie) -> None:
    assert trie.query("category") == []
    assert trie.query("Dar") == []
    assert not trie.is_key("category") and trie.is_key("cat")
    assert entities_in("The category of cats near Darcy's house", trie) == ["cats", "Darcy"]


def test_hops_follow_keys_found_in_values(trie: KnowledgeTrie) -> None:
    one = trie.query("Darcy", hops=1)
    two = trie.query("Darcy", hops=2)
    three = trie.query("Darcy", hops=3)
    assert {d.word for d in one} < {d.word for d in two} < {d.word for d in three}
    assert {(d.word, d.hop) for d in two} >= {("Longbourn", 2)}
    assert ("Meryton", 3) in {(d.word, d.hop) for d in three}
    assert all(d.fact == "Mr Darcy loves Elizabeth Bennet" for d in one)


def test_each_value_word_once_and_no_cycles() -> None:
    trie = KnowledgeTrie.build([("Anna", "knows", "Boris"), ("Boris", "knows", "Anna")])
    demos = trie.query("Anna", hops=5)
    assert [d.word for d in demos] == ["Boris", "Anna"]


def test_triple_from_verbalized_fact() -> None:
    assert triple_from_text("Mr Darcy loves Elizabeth.") == ("Mr Darcy", "loves Elizabeth", "")
    assert triple_from_text("the ghost haunts Scrooge.")[0] == "the"


def test_memory_is_fifo_capped_at_w_max() -> None:
    memory = EntityMemory(2)
    memory.extend(["Darcy", "Elizabeth", "Jane"])
    assert memory.items == ["Elizabeth", "Jane"]
    memory.add("Elizabeth's")                     # already held (same stem): moves to the newest end, not twice
    assert memory.items == ["Jane", "Elizabeth's"]
    memory.add("Bingley")
    assert memory.items == ["Elizabeth's", "Bingley"] and len(memory) == 2
    with pytest.raises(ValueError):
        EntityMemory(0)
