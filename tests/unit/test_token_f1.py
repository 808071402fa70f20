"""Token F1 with SQuAD normalisation, against hand-computed values."""
from __future__ import annotations

import pytest

from core.metrics.token_f1 import normalize_answer, token_f1


def test_normalisation_drops_case_punctuation_and_articles() -> None:
    assert normalize_answer("The  Ghost, of Christmas-Past!") == "ghost of christmaspast"


@pytest.mark.parametrize(("pred", "ref", "expected"), [
    ("Jacob Marley", "Marley", 2 * 0.5 * 1.0 / 1.5),
    ("the cat sat", "a cat sat down", 2 * 1.0 * (2 / 3) / (1 + 2 / 3)),
    ("Scrooge", "Fred", 0.0),
    ("", "", 1.0),
    ("", "Bob", 0.0),
])
def test_token_f1(pred: str, ref: str, expected: float) -> None:
    assert token_f1(pred, ref) == pytest.approx(expected)
