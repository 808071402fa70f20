"""Alias rules of issue 37 on name counts of our own (no parsing): spelling variants, singular and plural, a place's
short form, people's rules kept to people, a title written after a name, an apposition listing two places, a man's
full name and his "Mr." form; each with the case where it must not fire (two different people, a family, a first
name, a place and a longer place)."""
from __future__ import annotations

from core.kg.evidence import singular, spelling_key
from core.kg.resolve import APPOSITION_OR
from tests.support.name_counts import groups as _groups, together as _together, type_of as _type


def test_spelling_variants_merge_and_two_people_do_not() -> None:
    assert spelling_key("Sol-leks") == spelling_key("Solleks") == "solleks"
    groups = _groups([(2, "Sol-leks", "character", 29), (3, "Solleks", "character", 1),
                      (1, "Mr. Bennet", "character", 9), (1, "Mrs. Bennet", "character", 9)])
    assert _together(groups, "Sol-leks", "Solleks")
    assert not _together(groups, "Mr. Bennet", "Mrs. Bennet")


def test_a_people_or_thing_in_singular_and_plural_merges() -> None:
    assert "Esquimau" in singular("Esquimaux") and "Bench" in singular("Benches") and "Moor" in singular("Moors")
    groups = _groups([(1, "Moors", "organization", 40), (1, "Moor", "character", 8),
                      (2, "Skookum Benches", "location", 1), (3, "Skookum Bench", "location", 2)])
    assert _together(groups, "Moors", "Moor") and _together(groups, "Skookum Benches", "Skookum Bench")


def test_a_family_or_a_first_name_is_no_plural_of_a_person() -> None:
    groups = _groups([(1, "Elizabeth Bennet", "character", 5), (1, "Bennet", "character", 3),
                      (1, "Bennets", "character", 4), (2, "William", "character", 6), (2, "Williams", "character", 3),
                      (3, "Mr. Cratchit", "character", 4), (3, "Cratchits", "character", 5)])
    assert not _together(groups, "Bennets", "Bennet")     # the family is not Mr. Bennet
    assert not _together(groups, "Williams", "William")   # a surname is not a first name
    assert not _together(groups, "Cratchits", "Mr. Cratchit")


def test_a_places_short_form_joins_it_only_when_both_occur() -> None:
    groups = _groups([(1, "San Francisco", "location", 1), (1, "Frisco", "organization", 1)])
    assert _together(groups, "Frisco", "San Francisco")
    assert {"Frisco"} in _groups([(1, "Frisco", "location", 2), (1, "Francisco", "character", 2)])


def test_a_place_is_no_first_name_or_surname_of_a_longer_place() -> None:
    groups = _groups([(1, "Africa", "location", 19), (1, "North Africa", "location", 34),
                      (2, "Yukon", "location", 6), (2, "Yukon Trail", "location", 2),
                      (3, "Asia", "location", 5), (3, "Asia Minor", "location", 6),
                      (4, "Hatherley", "character", 3), (4, "Hatherley Farm", "location", 4),
                      (5, "Bohemia", "location", 4), (5, "King of Bohemia", "character", 9)])
    for short, long_ in (("Africa", "North Africa"), ("Yukon", "Yukon Trail"), ("Asia", "Asia Minor"),
                         ("Hatherley", "Hatherley Farm"), ("Bohemia", "King of Bohemia")):
        assert not _together(groups, short, long_), (short, long_)
    # the rule it narrows still joins people: "Darcy" is Mr. Darcy, "Thornton" is John Thornton
    people = _groups([(1, "Mr. Darcy", "character", 20), (1, "Darcy", "character", 8),
                      (2, "John Thornton", "character", 39), (2, "Thornton", "character", 63)])
    assert _together(people, "Mr. Darcy", "Darcy") and _together(people, "John Thornton", "Thornton")


def test_a_title_after_a_name_is_not_a_surname() -> None:
    groups = _groups([(1, "Bey", "character", 90), (1, "Ali Bey", "character", 8)])
    assert not _together(groups, "Bey", "Ali Bey")


def test_a_person_and_a_place_named_as_alternatives_stay_apart() -> None:
    counts = [(1, "Fez", "location", 60), (1, "Sidi Mohammed", "character", 11), (1, "Tunis", "location", 40),
              (1, "Tripoli", "location", 12), (1, "Elizabeth", "character", 30), (1, "Beth", "character", 20)]
    groups = _groups(counts, [(1, "Fez", "Sidi Mohammed", "apposition"), (1, "Tunis", "Tripoli", APPOSITION_OR),
                              (1, "Elizabeth", "Beth", APPOSITION_OR)])
    assert not _together(groups, "Fez", "Sidi Mohammed")       # a place and a person: the kind guard
    bhaer = _groups([(1, "Mr. Bhaer", "character", 60), (1, "Bhaer", "location", 7)])
    assert _together(bhaer, "Mr. Bhaer", "Bhaer")   # a surname the NER model took for a place, with its "Mr."
    assert not _together(groups, "Tunis", "Tripoli")           # "Tunis, or Tripoli,": two places listed
    assert _together(groups, "Elizabeth", "Beth")              # "Elizabeth, or Beth, as everyone called her"


def test_a_mans_full_name_takes_his_mr_form_though_his_wife_is_mrs() -> None:
    groups = _groups([(1, "Mr. Brooke", "character", 60), (1, "Mrs. Brooke", "character", 6),
                      (2, "John Brooke", "character", 5), (3, "Mrs. Chester", "character", 5),
                      (3, "May Chester", "character", 4)])
    assert _together(groups, "John Brooke", "Mr. Brooke") and not _together(groups, "John Brooke", "Mrs. Brooke")
    assert not _together(groups, "May Chester", "Mrs. Chester")   # mother and daughter stay two


def test_a_place_shaped_name_is_a_location_whatever_a_chapter_said() -> None:
    assert _type([(2, "Lake Bennett", "character", 2)], "Lake Bennett") == "location"
    assert _type([(4, "Sunland", "character", 1)], "Sunland") == "location"
    assert _type([(4, "Roland", "character", 3)], "Roland") == "character"   # a first name ending in "land"


def test_a_place_word_the_book_writes_after_an_honorific_is_a_surname() -> None:
    counts = [(1, "Mr. Hall", "character", 30), (1, "Asaph Hall", "location", 1), (1, "Asaph Hall", "character", 4),
              (2, "Netherfield Hall", "location", 4)]
    assert _type(counts, "Asaph Hall") == "character"   # "Mr. Hall" makes "Hall" a family name here
    assert _type(counts, "Netherfield Hall") == "location"
    assert _type(counts[1:], "Asaph Hall") == "location"   # without it, a place by its shape
    wife = [(1, "Mr. Hall", "character", 30), (1, "Angeline", "character", 40), (1, "Angeline Hall", "location", 9),
            (2, "Angeline Hall", "character", 4)]
    assert _type(wife, "Angeline Hall") == "character"   # a person's name and the family name: a person's shape
    assert _type(wife[1:], "Angeline Hall") == "location"   # without "Mr. Hall", the chapters' votes decide
    music = [(1, "Mr. Hall", "character", 30), (1, "Music Hall", "location", 9), (2, "Music Hall", "character", 4)]
    assert _type(music, "Music Hall") == "location"


def test_a_given_name_the_book_writes_before_a_persons_surname_is_hers() -> None:
    counts = [(1, "Marion Cullen", "character", 1), (1, "Marion", "location", 6), (2, "Paris", "location", 3),
              (2, "Paris Hilton", "location", 1)]
    assert _type(counts, "Marion") == "character"   # "in Marion": her, not the town
    assert _type(counts[1:], "Marion") == "location"   # without her full name, the chapters' votes decide
    assert _type(counts, "Paris") == "location"   # a full name the chapters do not call a person says nothing


def test_a_name_the_book_writes_with_a_title_is_a_persons() -> None:
    counts = [(1, "Colonel Stuart", "character", 1), (1, "Stuart", "organization", 6), (2, "Stuart", "character", 2)]
    assert _together(_groups(counts), "Stuart", "Colonel Stuart") and _type(counts, "Stuart") == "character"
    river = [(1, "Hudson", "location", 5), (1, "Master Hendrick Hudson", "character", 1)]
    assert _type(river, "Hudson") == "location"   # a full name's title says nothing of its last word alone


def test_the_short_form_of_a_place_name_is_that_place() -> None:
    counts = [(1, "Kynance", "location", 5), (1, "Kynance Cove", "location", 2), (2, "Kynance", "character", 14)]
    assert _together(_groups(counts), "Kynance", "Kynance Cove")
    assert _type(counts, "Kynance") == "location"   # "see Kynance", "how you liked Kynance": still the cove
    assert _type([(1, "Kynance", "location", 5), (2, "Kynance", "character", 14)], "Kynance") == "character"


def test_a_place_word_that_names_the_same_place_joins_it_and_another_does_not() -> None:
    groups = _groups([(1, "Kynance", "location", 19), (1, "Kynance Cove", "location", 5),
                      (2, "Santa Clara Valley", "location", 4), (2, "Santa Clara", "location", 2),
                      (3, "Dyea", "location", 5), (3, "Dyea Canon", "location", 2)])
    assert _together(groups, "Kynance", "Kynance Cove") and _together(groups, "Santa Clara", "Santa Clara Valley")
    assert not _together(groups, "Dyea", "Dyea Canon")   # a canyon near the town is another place


def test_a_given_name_of_the_long_list_joins_the_persons_full_name() -> None:
    groups = _groups([(1, "Erin Grant", "character", 1), (1, "Erin", "location", 3), (2, "Florence", "location", 5),
                      (2, "Florence Nightingale", "character", 3)])
    assert _together(groups, "Erin", "Erin Grant")   # "in Erin" typed her a town; her full name says who she is
    assert not _together(groups, "Florence", "Florence Nightingale")   # the city, clearly a place, stays apart

