"""Alias rules on name counts of our own (no parsing): an honorific of another language is the English one
("Monsieur Poirot" is "Mr. Poirot"), and a full name with a familiar form of another's first name and the same
surname is that person ("Jim Vane" is "James Vane"); each with the case where it must not fire."""
from __future__ import annotations

from core.kg.names import title_class
from core.kg.resolve import compatible_honorifics
from tests.support.name_counts import groups as _groups, together as _together


def test_a_french_honorific_is_the_english_one() -> None:
    assert title_class("Monsieur") == "Mr." and title_class("Mademoiselle") == "Miss"
    assert title_class("Madame") == "Mrs." and title_class("Lady") == "Lady" and title_class(None) is None
    assert compatible_honorifics({"Mr.", "Monsieur"}) and compatible_honorifics({"Miss", "Mademoiselle"})
    assert not compatible_honorifics({"Monsieur", "Madame"}) and not compatible_honorifics({"Mr.", "Mademoiselle"})


def test_monsieur_and_mr_are_one_man_but_madame_stays_apart() -> None:
    groups = _groups([(1, "Poirot", "character", 60), (1, "Monsieur Poirot", "character", 8),
                      (2, "Hercule Poirot", "character", 3), (3, "Mr. Poirot", "character", 4),
                      (1, "Lawrence", "character", 20), (1, "Lawrence Cavendish", "character", 4),
                      (2, "Monsieur Lawrence", "character", 5), (3, "Mr. Lawrence Cavendish", "character", 2),
                      (4, "Madame Poirot", "character", 2)])
    assert _together(groups, "Poirot", "Monsieur Poirot", "Mr. Poirot", "Hercule Poirot")
    assert _together(groups, "Lawrence", "Monsieur Lawrence", "Mr. Lawrence Cavendish")
    assert not _together(groups, "Poirot", "Madame Poirot")


def test_mademoiselle_is_miss() -> None:
    groups = _groups([(1, "Cynthia", "character", 40), (1, "Cynthia Murdoch", "character", 3),
                      (1, "Miss Cynthia", "character", 4), (2, "Mademoiselle Cynthia", "character", 2),
                      (2, "Mrs. Murdoch", "character", 2)])
    assert _together(groups, "Cynthia", "Miss Cynthia", "Mademoiselle Cynthia")
    assert not _together(groups, "Mademoiselle Cynthia", "Mrs. Murdoch")


def test_a_familiar_first_name_with_the_same_surname_is_the_full_name() -> None:
    groups = _groups([(1, "James Vane", "character", 10), (1, "James", "character", 7),
                      (3, "Jim", "character", 14), (3, "Jim Vane", "character", 1),
                      (1, "Sibyl Vane", "character", 30)])
    assert _together(groups, "James Vane", "Jim Vane", "Jim")
    assert not _together(groups, "Jim Vane", "Sibyl Vane")
    groups = _groups([(1, "John Michael Johnson", "character", 2), (1, "Johnny Johnson", "character", 3),
                      (1, "Johnson", "character", 50)])
    assert _together(groups, "John Michael Johnson", "Johnny Johnson")


def test_a_familiar_first_name_needs_the_same_surname_and_one_person_to_join() -> None:
    groups = _groups([(1, "James Vane", "character", 10), (2, "Jim Hawkins", "character", 4)])
    assert not _together(groups, "James Vane", "Jim Hawkins")          # another family
    groups = _groups([(1, "Theodore Laurence", "character", 6), (1, "Edward Laurence", "character", 3),
                      (3, "Teddy Laurence", "character", 2)])
    # "Teddy" is a familiar form of Theodore and of Edward: two people fit, so neither is chosen
    assert not _together(groups, "Teddy Laurence", "Theodore Laurence")
    assert not _together(groups, "Teddy Laurence", "Edward Laurence")


def test_a_womans_full_name_never_joins_a_man_by_the_surname() -> None:
    groups = _groups([(1, "Mr. Wells", "character", 20), (1, "Wells", "character", 3),
                      (9, "Elizabeth Wells", "character", 2)])
    assert not _together(groups, "Mr. Wells", "Elizabeth Wells")        # the solicitor and a housemaid
    groups = _groups([(1, "Mr. Bingley", "character", 200), (1, "Miss Bingley", "character", 100),
                      (3, "Caroline", "character", 10), (21, "Caroline Bingley", "character", 1)])
    assert not _together(groups, "Mr. Bingley", "Caroline Bingley")
    groups = _groups([(1, "Dr. Inglis", "character", 30), (2, "Elsie Inglis", "character", 10)])
    assert _together(groups, "Dr. Inglis", "Elsie Inglis")              # a doctor may be a woman
    groups = _groups([(1, "Mr. Brooke", "character", 30), (2, "John Brooke", "character", 10)])
    assert _together(groups, "Mr. Brooke", "John Brooke")
