"""Welch's t and p against scipy, Cohen's d by hand, and the paper's Tables 1-2 from their summary statistics."""
from __future__ import annotations

import math

import pytest
from scipy import stats as scipy_stats

from core.metrics.stats import cohen_d, cohen_d_from_stats, compare, describe, welch_from_stats, welch_t

A = [0.9, 0.8, 0.75, 1.0, 0.6, 0.85, 0.7]
B = [0.5, 0.65, 0.4, 0.7, 0.55]


def test_welch_matches_scipy() -> None:
    t, p = welch_t(A, B)
    ref = scipy_stats.ttest_ind(A, B, equal_var=False)
    assert t == pytest.approx(ref.statistic, rel=1e-12)
    assert p == pytest.approx(ref.pvalue, rel=1e-12)
    # and it is Welch's, not Student's: the pooled-variance test gives another p here
    assert p != pytest.approx(scipy_stats.ttest_ind(A, B).pvalue, rel=1e-3)


def test_welch_by_hand() -> None:
    ma, mb = sum(A) / len(A), sum(B) / len(B)
    va = sum((x - ma) ** 2 for x in A) / (len(A) - 1)
    vb = sum((x - mb) ** 2 for x in B) / (len(B) - 1)
    t_hand = (ma - mb) / math.sqrt(va / len(A) + vb / len(B))
    assert welch_t(A, B)[0] == pytest.approx(t_hand, rel=1e-12)


def test_cohen_d_by_hand() -> None:
    # A: mean 0.8, B: mean 0.56; sum of squared deviations 0.105 and 0.057 (computed by hand)
    ma, mb = 0.8, 0.56
    ssa = sum((x - ma) ** 2 for x in A)
    ssb = sum((x - mb) ** 2 for x in B)
    assert ssa == pytest.approx(0.105) and ssb == pytest.approx(0.057)
    pooled = math.sqrt((0.105 + 0.057) / (7 + 5 - 2))
    assert cohen_d(A, B) == pytest.approx((0.8 - 0.56) / pooled, rel=1e-12)
    assert cohen_d(B, A) == pytest.approx(-(0.8 - 0.56) / pooled, rel=1e-12)


def test_describe_uses_sample_sd() -> None:
    s = describe([1.0, 2.0, 3.0, 4.0])
    assert (s.mean, s.n) == (2.5, 4)
    assert s.sd == pytest.approx(math.sqrt(5 / 3))
    assert describe([]).mean is None and describe([7.0]).sd is None


def test_undefined_cases_are_none_not_nan() -> None:
    assert welch_t([1.0], B) == (None, None)
    assert welch_t([1.0, 1.0], [1.0, 1.0]) == (None, None)  # no spread anywhere: t is 0/0
    assert cohen_d([1.0, 1.0], [1.0, 1.0]) is None
    a, b, test = compare([], B)
    assert a.n == 0 and test.t is None and test.d is None and b.n == 5


# The paper's Tables 1-2: (M, SD, n) for KG and No-KG, then its t, p, d.
PAPER = [
    ("Total Characters", 5.344, 2.233, 270, 5.329, 2.061, 231, 0.08, 0.936, 0.007),
    ("New Characters", 1.244, 1.324, 270, 1.454, 1.422, 231, -1.71, 0.088, -0.153),
    ("Chapter 1 Retention (characters)", 0.689, 0.240, 270, 0.622, 0.264, 231, 2.97, 0.003, 0.266),
    ("Rolling Retention (characters)", 0.770, 0.202, 270, 0.731, 0.216, 231, 2.11, 0.035, 0.189),
    ("Cumulative Retention (characters)", 0.500, 0.188, 270, 0.457, 0.181, 231, 2.64, 0.008, 0.237),
    ("Total Relationships", 3.948, 3.938, 270, 3.208, 3.954, 231, 2.09, 0.037, 0.188),
    ("New Relationships", 2.030, 2.265, 270, 1.957, 3.090, 231, 0.31, 0.753, 0.028),
    ("Chapter 1 Retention (relationships)", 0.294, 0.383, 233, 0.195, 0.332, 204, 2.89, 0.004, 0.277),
    ("Rolling Retention (relationships)", 0.395, 0.372, 221, 0.350, 0.378, 170, 1.16, 0.245, 0.119),
    ("Cumulative Retention (relationships)", 0.170, 0.194, 268, 0.139, 0.213, 224, 1.72, 0.086, 0.156),
]


@pytest.mark.parametrize("row", PAPER, ids=[r[0] for r in PAPER])
def test_reproduces_the_papers_tables(row: tuple) -> None:
    _, *summary, t_paper, p_paper, d_paper = row
    t, p = welch_from_stats(*summary)
    # the table's means and SDs are rounded to 3 decimals, which moves t by up to ~0.05 (and p near t = 0 by
    # up to ~0.02)
    assert t == pytest.approx(t_paper, abs=0.05)
    assert p == pytest.approx(p_paper, abs=0.02)
    assert cohen_d_from_stats(*summary) == pytest.approx(d_paper, abs=0.005)
