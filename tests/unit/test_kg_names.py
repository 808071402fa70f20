"""Name normalisation and parsing: possessives, honorifics, noise around names."""
from __future__ import annotations

import pytest

from core.kg.given_names import formal_forms, same_given_name
from core.kg.names import normalize_name, parse_name, surname


@pytest.mark.parametrize("raw, expected", [
    ("Lady Catherine’s", "Lady Catherine"), ("Darcy's", "Darcy"), ("Mr Darcy", "Mr. Darcy"),
    ("the Bennets", "Bennets"), ("_Lizzy_", "Lizzy"), ("Mr. Darcy:--but", "Mr. Darcy"),
    ("WILLIAM COLLINS", "William Collins"), ("Dear Lizzy", "Lizzy"), ("Catherine de Bourgh", "Catherine de Bourgh"),
    ("the Old Man", "Old Man"), ("Old Man's", "Old Man"), ("Young Master", "Young Master"), ("Old Scrooge", "Scrooge"),
])
def test_normalize_name(raw: str, expected: str) -> None:
    assert normalize_name(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("Richard II", "Richard II"), ("King Edward VI", "King Edward VI"), ("World War II", "World War II"),
    ("HENRY VIII", "Henry VIII"), ("MI6", "MI6"), ("US Army", "US Army"), ("MR. DARCY", "Mr. Darcy"),
    ("NEW YORK", "New York"), ("BUCK", "Buck"), ("John Dix", "John Dix"), ("JOHN DIX", "John Dix"),
])
def test_a_numeral_or_an_abbreviation_keeps_its_capitals(raw: str, expected: str) -> None:
    assert normalize_name(raw) == expected   # "Richard Ii" and "King Henry Iv" were on the Graph page


@pytest.mark.parametrize("raw", ["Mr.", "Sir", "I", "Oh", "Mary and Kitty", "Matlock, Chatsworth", "", "   ",
                                 "lower case words", "x" * 70])
def test_rejects_what_is_not_a_name(raw: str) -> None:
    assert normalize_name(raw) is None


def test_parse_name_and_surname() -> None:
    assert parse_name("Sir William Lucas").honorific == "Sir"
    assert parse_name("Sir William Lucas").core == ("William", "Lucas")
    assert parse_name("Darcy").is_bare and not parse_name("Mr. Darcy").is_bare
    assert parse_name("Elizabeth Bennet").is_full
    assert surname("Lady Catherine de Bourgh") == "de Bourgh"
    assert surname("Mr. Darcy") == "Darcy"


def test_familiar_forms() -> None:
    assert "elizabeth" in formal_forms("Lizzy") and "elizabeth" in formal_forms("Eliza")
    assert same_given_name("Eliza", "Elizabeth") and same_given_name("Kitty", "Kate")
    assert not same_given_name("Jane", "Elizabeth")
