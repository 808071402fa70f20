"""Two-sample comparison as reported in the Remember Me paper's Tables 1-2: mean, SD and n per group, t, p and
Cohen's d.

The paper calls its tests "Student's t-tests"; we use Welch's test (no equal-variance assumption), the safer default
for groups of different sizes and spreads. From the paper's rounded summary statistics the two cannot be told
apart: both reproduce its t to within 0.05 and its d to within 0.005 (tests/unit/test_stats.py checks Tables 1-2).
Cohen's d uses the pooled SD:

    d = (M_a - M_b) / sqrt(((n_a - 1) SD_a² + (n_b - 1) SD_b²) / (n_a + n_b - 2))

with sample SDs (ddof = 1).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    mean: float | None
    sd: float | None
    n: int


@dataclass(frozen=True)
class TestResult:
    t: float | None
    p: float | None
    d: float | None


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def describe(values: Sequence[float]) -> Summary:
    """Mean and sample SD (ddof 1); None where there are too few values."""
    n = len(values)
    if n == 0:
        return Summary(None, None, 0)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    return Summary(mean, sd, n)


def cohen_d_from_stats(mean_a: float, sd_a: float, n_a: int, mean_b: float, sd_b: float, n_b: int) -> float | None:
    """Cohen's d with the pooled SD; None when it is undefined (fewer than 3 values, or no spread at all)."""
    if n_a + n_b <= 2:
        return None
    pooled = math.sqrt(((n_a - 1) * sd_a ** 2 + (n_b - 1) * sd_b ** 2) / (n_a + n_b - 2))
    return (mean_a - mean_b) / pooled if pooled > 0 else None


def cohen_d(a: Sequence[float], b: Sequence[float]) -> float | None:
    sa, sb = describe(a), describe(b)
    if sa.n < 2 or sb.n < 2:
        return None
    return cohen_d_from_stats(sa.mean, sa.sd, sa.n, sb.mean, sb.sd, sb.n)  # type: ignore[arg-type]


def welch_t(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float | None]:
    """Welch's t and its two-sided p (scipy.stats.ttest_ind, equal_var=False); None when undefined (fewer than
    two values in a group, or both groups constant)."""
    if len(a) < 2 or len(b) < 2 or len(set(a)) == len(set(b)) == 1:
        return None, None
    from scipy import stats  # here, not at the top: a second of imports every CLI command and page paid
    with warnings.catch_warnings():  # near-constant samples: scipy warns, and the result is checked below
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.ttest_ind(a, b, equal_var=False)
    return _finite(result.statistic), _finite(result.pvalue)


def welch_from_stats(mean_a: float, sd_a: float, n_a: int, mean_b: float, sd_b: float,
                     n_b: int) -> tuple[float, float]:
    """Welch's t and p from summary statistics, e.g. to check a published table."""
    from scipy import stats
    result = stats.ttest_ind_from_stats(mean_a, sd_a, n_a, mean_b, sd_b, n_b, equal_var=False)
    return float(result.statistic), float(result.pvalue)


def compare(a: Sequence[float], b: Sequence[float]) -> tuple[Summary, Summary, TestResult]:
    """Everything one row of the paper's tables shows for two samples."""
    t, p = welch_t(a, b)
    return describe(a), describe(b), TestResult(t=t, p=p, d=cohen_d(a, b))
