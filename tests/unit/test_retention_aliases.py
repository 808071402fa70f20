"""Name cleaning, the default alias resolver, an injected resolver, and counting relationships from extractions."""
from __future__ import annotations

import pytest

from core.metrics.aliases import alias_groups, build_default_resolver, build_graph_resolver, clean_surface
from core.metrics.cooccurrence import count_chapter, pair, surface_counts
from core.metrics.extract import ChapterMentions


@pytest.mark.parametrize(("raw", "clean"), [
    ("Mr. Darcy", "Mr. Darcy"), ("Mr Darcy", "Mr. Darcy"), ("Darcy's", "Darcy"), ("Darcy’s", "Darcy"),
    ("James'", "James"), ("  Elizabeth\n Bennet ", "Elizabeth Bennet"), ("dear Lizzy", "Lizzy"),
    ("“Jane", "Jane"), ("ELIZABETH", "Elizabeth"), ("Mrs Bennet", "Mrs. Bennet"),
    ("Mr.", None), ("Miss", None), ("God", None), ("the", None), ("F.", None), ("Agent 47", None),
    ("A B C D E F", None),
])
def test_clean_surface(raw: str, clean: str | None) -> None:
    assert clean_surface(raw) == clean


PRIDE = {"Elizabeth": 500, "Elizabeth Bennet": 5, "Miss Elizabeth": 10, "Lizzy": 40, "Jane": 200,
         "Jane Bennet": 3, "Mr. Bennet": 100, "Mrs. Bennet": 120, "Miss Bennet": 20, "Bennet": 4, "Darcy": 80,
         "Mr. Darcy": 300, "Miss Darcy": 40, "Fitzwilliam Darcy": 1, "Colonel Fitzwilliam": 30,
         "Sir William": 10, "Sir William Lucas": 2, "Lady Catherine": 60, "Lady Catherine de Bourgh": 5,
         "Mr. Charles Bingley": 2, "Mr. Bingley": 100, "Charles Bingley": 1, "Mrs. Charles Bingley": 1}


def test_first_and_last_names_join_the_unique_full_name() -> None:
    groups = alias_groups(PRIDE)
    assert groups["Elizabeth"] == groups["Miss Elizabeth"] == "Elizabeth Bennet"
    assert groups["Jane"] == "Jane Bennet"
    assert groups["Sir William"] == "Sir William Lucas"
    assert groups["Lady Catherine"] == "Lady Catherine de Bourgh"
    assert groups["Mr. Bingley"] == "Mr. Charles Bingley"


def test_different_honorifics_and_full_names_never_merge() -> None:
    groups = alias_groups(PRIDE)
    assert len({groups["Mr. Bennet"], groups["Mrs. Bennet"], groups["Miss Bennet"], groups["Elizabeth"],
                groups["Jane"]}) == 5
    assert groups["Bennet"] == "Bennet"  # ambiguous between Mr., Mrs., Miss, Elizabeth and Jane: left alone
    assert groups["Mr. Darcy"] != groups["Miss Darcy"]
    # "Colonel" takes a surname, so "Colonel Fitzwilliam" is not "Fitzwilliam Darcy"
    assert groups["Colonel Fitzwilliam"] == "Colonel Fitzwilliam" != groups["Fitzwilliam Darcy"]
    # the same full name under two titles stays two people
    assert groups["Mrs. Charles Bingley"] != groups["Mr. Charles Bingley"]
    assert groups["Lizzy"] == "Lizzy"  # a nickname needs the alias graph


def test_a_dominant_candidate_takes_the_bare_surname() -> None:
    groups = alias_groups(PRIDE)
    # "Darcy" could be Mr. Darcy (300), Miss Darcy (40) or Fitzwilliam Darcy (1): 300 >= 3 * 41
    assert groups["Darcy"] == "Mr. Darcy"
    assert alias_groups({**PRIDE, "Miss Darcy": 120})["Darcy"] == "Darcy"  # 300 < 3 * 121: left alone


def test_default_resolver_cleans_and_passes_unknown_names_through() -> None:
    resolve = build_default_resolver(PRIDE)
    assert resolve("Elizabeth's") == "Elizabeth Bennet"
    assert resolve("dear Jane") == "Jane Bennet"
    assert resolve("Wickham") == "Wickham"
    assert resolve("Mr.") is None


EXTRACTION = ChapterMentions(
    sentences=6,
    # sentence 0: Lizzy + Jane; 2: Darcy; 3: Jane; 5: Bingley alone
    mentions=[(0, "Lizzy", "PERSON"), (0, "Jane", "PERSON"), (2, "Darcy", "PERSON"), (3, "Jane", "PERSON"),
              (3, "Jane", "PERSON"), (5, "Bingley", "PERSON"), (5, "Longbourn", "GPE")],
    verb_links=[("Darcy", "Lizzy"), ("Bingley", "Nobody")],
)
RESOLVE = {"Lizzy": "Elizabeth", "Jane": "Jane", "Darcy": "Darcy", "Bingley": "Bingley"}.get


def test_same_sentence_window() -> None:
    counts = count_chapter(EXTRACTION, RESOLVE, window_sentences=1, verb_links=False)
    assert counts.characters == {"Elizabeth": 1, "Jane": 3, "Darcy": 1, "Bingley": 1}
    assert counts.relationships == {("Elizabeth", "Jane"): 1}


def test_three_sentence_window_and_verb_links() -> None:
    counts = count_chapter(EXTRACTION, RESOLVE, window_sentences=3)
    # anchors: s0 sees s0-s2 -> Eliz-Jane, Eliz-Darcy, Jane-Darcy; s2 sees s2-s4 -> Darcy-Jane; s3 sees s3-s5 ->
    # Jane-Bingley; verb link Darcy -> Lizzy adds one to Darcy-Elizabeth ("Nobody" is not a character)
    assert counts.relationships == {("Elizabeth", "Jane"): 1, ("Darcy", "Elizabeth"): 2, ("Darcy", "Jane"): 2,
                                    ("Bingley", "Jane"): 1}
    assert counts.verb_pairs == {("Darcy", "Elizabeth")}
    assert count_chapter(EXTRACTION, RESOLVE, window_sentences=3, min_pair_count=2).relationships == {
        ("Darcy", "Elizabeth"): 2, ("Darcy", "Jane"): 2}


def test_aliases_merge_before_counting() -> None:
    extraction = ChapterMentions(sentences=1, mentions=[(0, "Lizzy", "PERSON"), (0, "Elizabeth", "PERSON")],
                                   verb_links=[("Lizzy", "Elizabeth")])
    counts = count_chapter(extraction, lambda s: "Elizabeth", window_sentences=1)
    assert counts.characters == {"Elizabeth": 2}
    assert counts.relationships == {}  # one person is no relationship


def test_pairs_are_unordered_and_window_is_validated() -> None:
    assert pair("Tom", "Anna") == pair("Anna", "Tom") == ("Anna", "Tom")
    with pytest.raises(ValueError):
        count_chapter(EXTRACTION, RESOLVE, window_sentences=0)
    assert surface_counts([EXTRACTION, EXTRACTION])["Jane"] == 6
    assert "Longbourn" not in surface_counts([EXTRACTION])  # the default resolver sees spaCy's PERSON names only


def test_extraction_payload_round_trip_and_version() -> None:
    payload = EXTRACTION.to_payload()
    assert ChapterMentions.from_payload(payload) == EXTRACTION
    assert ChapterMentions.from_payload({**payload, "v": -1}) is None


def test_graph_resolver_maps_aliases_drops_non_characters_and_falls_back() -> None:
    graph = [("Elizabeth Bennet", "character", ["Lizzy", "Eliza", "Elizabeth"]),
             ("Longbourn", "location", ["Longbourn"])]
    resolve = build_graph_resolver(graph, fallback=build_default_resolver(PRIDE))
    assert resolve("Lizzy's") == resolve("dear Eliza") == "Elizabeth Bennet"
    assert resolve("Longbourn") is None  # NER took the house for a person; the graph knows better
    assert resolve("Mr. Darcy") == "Mr. Darcy"  # not in the graph: the default resolver decides
    assert resolve("Mr.") is None
