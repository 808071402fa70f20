"""The five Andrus et al. filter rules, each on its own (phrases are (word, POS) pairs, as spaCy tags them)."""
from __future__ import annotations

import pytest

from core.kg.filters import RULE_NAMES, passes, violated_rule

DARCY = [("Mr.", "PROPN"), ("Darcy", "PROPN")]
DANCED_WITH = [("danced", "VERB"), ("with", "ADP")]
JANE = [("Jane", "PROPN")]


def test_a_clean_fact_passes() -> None:
    assert violated_rule(DARCY, DANCED_WITH, JANE) is None
    assert passes([("the", "DET"), ("letter", "NOUN")], [("was", "AUX"), ("written", "VERB"), ("by", "ADP")], DARCY)


def test_rule_1_tail_identical_to_head() -> None:
    you = [("You", "PRON")]
    assert violated_rule([("Jane", "PROPN")], [("just", "ADV"), ("sit", "VERB")], [("jane", "PROPN")]) == 1
    assert violated_rule(you, [("sit", "VERB")], you) == 1
    assert violated_rule(DARCY, DANCED_WITH, JANE) != 1


def test_rule_2_head_without_noun() -> None:
    assert violated_rule([("screamed", "VERB")], [("howling", "VERB"), ("like", "ADP")],
                         [("wolf", "NOUN")]) == 2
    assert violated_rule([("she", "PRON")], [("saw", "VERB")], JANE) == 2  # a pronoun is not a noun either
    assert violated_rule([("the", "DET"), ("wolf", "NOUN")], [("howled", "VERB"), ("at", "ADP")],
                         [("night", "NOUN")]) is None


def test_rule_3_tail_starts_with_last_relation_word() -> None:
    head = [("Lydia", "PROPN")]
    assert violated_rule(head, [("enjoy", "VERB"), ("playing", "VERB")],
                         [("playing", "VERB"), ("soccer", "NOUN")]) == 3
    assert violated_rule(head, [("enjoy", "VERB")], [("playing", "VERB"), ("soccer", "NOUN")]) is None


def test_rule_4_pronoun_or_conjunction_start() -> None:
    assert violated_rule([("the", "DET"), ("man", "NOUN")], [("lurking", "VERB")],
                         [("who", "PRON"), ("hid", "VERB")]) == 4
    assert violated_rule([("Darcy", "PROPN")], [("should", "AUX")],
                         [("but", "CCONJ"), ("careful", "ADJ")]) == 4
    assert violated_rule([("his", "PRON"), ("wife", "NOUN")], [("cried", "VERB")], JANE) == 4
    assert violated_rule(DARCY, DANCED_WITH, [("her", "PRON")]) == 4


def test_rule_5_no_verb_anywhere() -> None:
    assert violated_rule([("breakfast", "NOUN")], [("lunch", "NOUN")], [("dinner", "NOUN")]) == 5
    assert violated_rule([("breakfast", "NOUN")], [("was", "AUX")], [("dinner", "NOUN")]) is None


@pytest.mark.parametrize("number", sorted(RULE_NAMES))
def test_every_rule_has_a_name(number: int) -> None:
    assert RULE_NAMES[number]
