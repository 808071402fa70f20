"""Alias rules on name counts of our own (no parsing), each with the case where it must not fire: a full name with
and without its title whatever a chapter typed it, a familiar first name backed by its own full name, a full name
that arrives late into a family already there, a married woman's "Mrs. John X", a first name after an epithet, a
political unit "of" a place, a people's adjective, and a planet typed a place."""
from __future__ import annotations

from tests.support.name_counts import groups as _groups, together as _together, type_of as _type


def test_a_full_name_with_and_without_its_title_is_one_person_whatever_a_chapter_typed_it() -> None:
    groups = _groups([(1, "Mr. Hosmer Angel", "character", 13), (1, "Hosmer Angel", "location", 4),
                      (2, "Lake Bennett", "location", 3), (2, "Mr. Bennett", "character", 5)])
    assert _together(groups, "Mr. Hosmer Angel", "Hosmer Angel")
    assert not _together(groups, "Lake Bennett", "Mr. Bennett")


def test_a_familiar_first_name_in_a_full_name_backs_its_titled_surname() -> None:
    groups = _groups([(1, "Bob", "character", 43), (1, "Bob Cratchit", "character", 10),
                      (1, "Robert", "character", 2), (2, "Mr. Cratchit", "character", 1),
                      (3, "Kitty", "character", 20), (3, "Lady Catherine", "character", 30)])
    assert _together(groups, "Bob", "Bob Cratchit", "Mr. Cratchit")
    assert not _together(groups, "Kitty", "Lady Catherine")   # no full name says which Catherine Kitty is
    groups = _groups([(2, "Mr. Laurence", "character", 77), (3, "Laurie Laurence", "character", 1),
                      (3, "Laurie", "character", 591)])
    assert not _together(groups, "Laurie", "Mr. Laurence")   # a nickname made of the surname: the grandfather


def test_a_late_full_name_joins_a_first_name_when_its_family_was_there_from_the_start() -> None:
    groups = _groups([(1, "Lydia", "character", 160), (1, "Mr. Bennet", "character", 50),
                      (47, "Lydia Bennet", "character", 1),
                      (2, "Mary", "character", 37), (39, "Mary King", "character", 2)])
    assert _together(groups, "Lydia", "Lydia Bennet")
    assert not _together(groups, "Mary", "Mary King")       # the Kings were never there before


def test_a_late_full_name_joins_its_titled_surname_when_its_first_name_was_used_as_long() -> None:
    groups = _groups([(5, "Mr. Brooke", "character", 67), (5, "Jack", "character", 1),
                      (23, "John Brooke", "character", 5), (5, "John", "character", 30),
                      (1, "Dr. Bangs", "character", 30), (31, "Tommy Bangs", "character", 5)])
    assert _together(groups, "Mr. Brooke", "John Brooke")
    assert not _together(groups, "Dr. Bangs", "Tommy Bangs")  # Tommy arrives with his full name, 30 chapters on


def test_mrs_john_brooke_is_no_john() -> None:
    groups = _groups([(5, "John", "character", 30), (5, "Mr. Brooke", "character", 20),
                      (21, "Mrs. John Brooke", "character", 3)])
    assert not _together(groups, "John", "Mrs. John Brooke")


def test_a_first_name_after_an_epithet_is_that_person_unless_two_share_it() -> None:
    assert _together(_groups([(1, "Tiny Tim", "character", 21), (3, "Tim", "character", 3)]), "Tiny Tim", "Tim")
    groups = _groups([(1, "Tiny Tim", "character", 21), (1, "Big Tim", "character", 20), (3, "Tim", "character", 3)])
    assert not _together(groups, "Tiny Tim", "Tim") and not _together(groups, "Big Tim", "Tim")


def test_a_political_unit_of_a_place_is_that_place_and_a_gulf_is_not() -> None:
    groups = _groups([(1, "Morocco", "location", 139), (2, "Empire of Morocco", "location", 3),
                      (1, "Mexico", "location", 5), (2, "Gulf of Mexico", "location", 2)])
    assert _together(groups, "Morocco", "Empire of Morocco")
    assert not _together(groups, "Mexico", "Gulf of Mexico")


def test_a_peoples_adjective_joins_the_people_and_a_persons_name_does_not() -> None:
    groups = _groups([(1, "Moors", "organization", 40), (1, "Moorish", "location", 5),
                      (1, "Arabs", "organization", 30), (2, "Arabic", "organization", 4),
                      (1, "French", "organization", 10), (2, "Frenchman", "character", 3),
                      (1, "Frank", "character", 20), (1, "Franks", "organization", 3),
                      (2, "Frankish", "organization", 2),
                      (1, "Christ", "character", 5), (1, "Christians", "organization", 5)])
    assert _together(groups, "Moors", "Moorish") and _together(groups, "Arabs", "Arabic")
    assert not _together(groups, "French", "Frenchman")     # "the Frenchman" of a story is one man
    assert not _together(groups, "Franks", "Frankish") and not _together(groups, "Frank", "Frankish")
    assert not _together(groups, "Christ", "Christians")


def test_a_planet_or_moon_is_a_place_whatever_a_chapter_said_and_a_titled_name_is_not() -> None:
    counts = [(1, "Venus", "character", 10), (1, "Callisto", "character", 6), (2, "Earth", "character", 2),
              (1, "Mr. Mars", "character", 3)]
    assert _type(counts, "Venus") == _type(counts, "Callisto") == _type(counts, "Earth") == "location"
    assert _type(counts, "Mr. Mars") == "character"


def test_a_surname_in_land_beside_its_mr_form_is_a_person_and_sunland_a_place() -> None:
    counts = [(1, "Maitland", "character", 55), (1, "Mr. Maitland", "character", 1), (2, "Sunland", "character", 3),
              (3, "Church", "character", 4), (3, "Mr. Church", "character", 2)]
    assert _type(counts, "Maitland") == "character"
    assert _type(counts, "Church") == "character"        # a surname, though "the Church" is a body of people
    assert _type(counts, "Sunland") == "location"


def test_a_body_of_people_a_magazine_and_a_people_in_men_are_typed_by_their_shape() -> None:
    counts = [(1, "Army", "character", 12), (1, "Outer Planets Alliance", "location", 3),
              (1, "Lex Industries", "character", 3), (1, "Galaxy Magazine", "organization", 1),
              (1, "Earthmen", "location", 9), (1, "Fleet Street", "organization", 4)]
    assert _type(counts, "Army") == _type(counts, "Outer Planets Alliance") == "organization"
    assert _type(counts, "Lex Industries") == "organization"
    assert _type(counts, "Galaxy Magazine") == "object"
    assert _type(counts, "Earthmen") == "character"
    assert _type(counts, "Fleet Street") == "location"    # a street, whatever its first word


def test_a_name_whose_last_word_is_in_man_is_a_character() -> None:
    """Seen on Sleepy Hollow's graph: "Headless Horseman" an object, beside "Horseman" a character."""
    counts = [(1, "Headless Horseman", "object", 3), (1, "Horseman", "character", 2),
              (1, "Lake Tasman", "location", 2), (1, "Isle of Man", "location", 2)]
    assert _type(counts, "Headless Horseman") == _type(counts, "Horseman") == "character"
    assert _type(counts, "Lake Tasman") == "location"          # a place by its first word
    assert _type(counts, "Isle of Man") == "location"


def test_a_feast_of_the_year_is_an_event() -> None:
    """Seen on Pride and Prejudice's X-Ray: "Michaelmas" among the people of chapter 1."""
    counts = [(1, "Michaelmas", "character", 1), (1, "Christmas Eve", "location", 2),
              (1, "Father Christmas", "character", 2), (1, "Thomas", "character", 3)]
    assert _type(counts, "Michaelmas") == _type(counts, "Christmas Eve") == "event"
    assert _type(counts, "Father Christmas") == _type(counts, "Thomas") == "character"


def test_a_war_a_battle_and_a_revolution_are_events_by_their_shape() -> None:
    """Seen on Sleepy Hollow's retention heat map: "Revolutionary War" among the characters."""
    counts = [(1, "Revolutionary War", "character", 1), (1, "Battle of Waterloo", "location", 2),
              (1, "French Revolution", "organization", 2), (1, "Mr. Warren", "character", 4),
              (1, "Rules of War", "object", 2)]
    assert _type(counts, "Revolutionary War") == _type(counts, "Battle of Waterloo") == "event"
    assert _type(counts, "French Revolution") == "event"
    assert _type(counts, "Mr. Warren") == "character"
    assert _type(counts, "Rules of War") == "object"           # a book's title, not a war


def test_a_made_thing_is_an_object_by_its_shape() -> None:
    """Seen on The Happy Castaway's graph: "Dixon Ray Rifle" a character; The Time Machine's an organization."""
    counts = [(1, "Dixon Ray Rifle", "character", 3), (1, "Time Machine", "organization", 9),
              (1, "Gunn", "character", 2), (1, "John Ray", "character", 2)]
    assert _type(counts, "Dixon Ray Rifle") == _type(counts, "Time Machine") == "object"
    assert _type(counts, "Gunn") == _type(counts, "John Ray") == "character"


def test_an_office_is_a_character_by_its_shape() -> None:
    """Seen on Press Cuttings' and TIME and the WOMAN's graphs: "Prime Minister" a thing, "Commandant of Space
    Research" an organization."""
    counts = [(1, "Prime Minister", "object", 3), (1, "Commandant of Space Research", "organization", 2),
              (1, "Bey of Tunis", "location", 5), (1, "Department of State", "organization", 2),
              (1, "General Post Office", "location", 2)]
    assert _type(counts, "Prime Minister") == _type(counts, "Commandant of Space Research") == "character"
    assert _type(counts, "Bey of Tunis") == "character"
    assert _type(counts, "Department of State") == "organization"   # no office in it
    assert _type(counts, "General Post Office") == "location"       # "General" first, but no "of"


def test_a_first_name_joins_the_full_name_that_has_it_before_a_familiar_forms_owner() -> None:
    groups = _groups([(1, "Dahl", "character", 23), (1, "Bob Dahl", "character", 1), (1, "Bob", "character", 2),
                      (1, "Robert", "character", 1)])
    assert _together(groups, "Bob", "Bob Dahl", "Dahl")


def test_cap_is_captain() -> None:
    groups = _groups([(1, "Cap O'Hara", "character", 2), (1, "Captain O'Hara", "character", 2),
                      (1, "Captain David O'Hara", "character", 1), (2, "Mrs. O'Hara", "character", 3)])
    assert _together(groups, "Cap O'Hara", "Captain O'Hara", "Captain David O'Hara")
    assert not _together(groups, "Captain O'Hara", "Mrs. O'Hara")


def test_a_surname_alone_is_no_woman_of_the_family_unless_the_book_titles_her_so() -> None:
    groups = _groups([(1, "Beaufort", "character", 12), (1, "Caroline Beaufort", "character", 4),
                      (2, "Wainwright", "character", 20), (2, "Martha Wainwright", "character", 6)])
    assert not _together(groups, "Beaufort", "Caroline Beaufort")    # her father
    assert not _together(groups, "Wainwright", "Martha Wainwright")   # her brother
    groups = _groups([(1, "Elsie Inglis", "character", 9), (1, "Miss Inglis", "character", 3),
                      (2, "Inglis", "character", 4), (3, "Henry Hope", "character", 6), (3, "Hope", "character", 5)])
    assert _together(groups, "Inglis", "Elsie Inglis")   # "Miss Inglis": the book calls her by the surname
    assert _together(groups, "Hope", "Henry Hope")       # a man's full name as before


def test_a_peoples_adjective_in_ian_joins_the_people() -> None:
    groups = _groups([(1, "Serbs", "organization", 30), (1, "Serbian", "organization", 8),
                      (2, "Serbians", "organization", 3), (1, "Christian", "character", 9),
                      (2, "Christs", "character", 1)])
    assert _together(groups, "Serbs", "Serbian", "Serbians")
    assert not _together(groups, "Christian", "Christs")      # a person's name is no people's adjective


def test_a_mans_full_name_takes_the_mr_form_not_a_doctor_who_is_a_woman() -> None:
    groups = _groups([(1, "Dr. Inglis", "character", 40), (1, "Dr. Elsie Inglis", "character", 5),
                      (1, "Mr. Inglis", "character", 20), (2, "John Inglis", "character", 4)])
    assert _together(groups, "Dr. Inglis", "Dr. Elsie Inglis")
    assert _together(groups, "John Inglis", "Mr. Inglis") and not _together(groups, "John Inglis", "Dr. Inglis")


def test_a_rank_alone_is_its_only_holder() -> None:
    groups = _groups([(1, "Mr. Bhaer", "character", 40), (1, "Bhaer", "character", 10),
                      (1, "Professor Bhaer", "character", 6), (2, "Professor", "character", 4)])
    assert _together(groups, "Professor", "Professor Bhaer", "Mr. Bhaer")   # "the Professor"
    groups = _groups([(1, "Inspector Japp", "character", 20), (1, "Inspector Lestrade", "character", 18),
                      (2, "Inspector", "character", 3)])
    assert not _together(groups, "Inspector", "Inspector Japp") and not _together(groups, "Inspector",
                                                                                   "Inspector Lestrade")


def test_a_surname_alone_does_not_join_a_titled_womans_full_name() -> None:
    groups = _groups([(1, "Aunt Patsy", "character", 11), (2, "Aunt Patsy Perkins", "character", 3),
                      (4, "Perkins", "character", 5), (5, "Steve Brindle", "character", 4),
                      (6, "Brindle", "character", 3)])
    assert _together(groups, "Aunt Patsy", "Aunt Patsy Perkins")
    assert not _together(groups, "Perkins", "Aunt Patsy Perkins")   # a man of the family, not Aunt Patsy
    assert _together(groups, "Brindle", "Steve Brindle")
