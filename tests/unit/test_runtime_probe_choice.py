"""The OpenVINO probe's choice of arithmetic: the faster one, unless the other timed within a tie and keeps prompt
prefixes exact (a kept prefix reads a repeated prompt several times as fast; bench/openvino_precision.py)."""
from __future__ import annotations

from core.llm.runtime_probe import PRECISION_TIE, tied_alternative


def test_the_other_arithmetic_is_an_alternative_only_within_the_tie() -> None:
    assert tied_alternative("bf16", {"bf16": 0.8438, "f32": 0.8426}) == "f32"   # an Intel Xeon with AMX, SmolLM2
    assert tied_alternative("f32", {"bf16": 0.8438, "f32": 0.8426}) == "bf16"
    slower = 0.5 * (1 + PRECISION_TIE) + 0.01
    assert tied_alternative("bf16", {"bf16": 0.5, "f32": slower}) is None


def test_no_alternative_without_timings_of_both() -> None:
    assert tied_alternative("f32", {}) is None   # a CPU without bfloat16: float32 without a trial
    assert tied_alternative("bf16", {"bf16": 0.5}) is None
