"""Bootstrap confidence intervals and one-sided Mann-Whitney U tests (scipy underneath)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import stats

#: fewer trials than this on either side and no test is worth printing: with 2 against 2 the smallest
#: one-sided p-value of Mann-Whitney's exact test is 1/6, with 3 against 3 it is 1/20
MIN_TEST_TRIALS = 3


def too_few_to_test(n_a: int, n_b: int) -> str | None:
    """Why two samples of these sizes get no rank test, or None when they can."""
    if min(n_a, n_b) >= MIN_TEST_TRIALS:
        return None
    return (f"no test: a significance test needs at least {MIN_TEST_TRIALS} trials per run (here {n_a} and {n_b}); "
            "train more trials (--trials)")


def bootstrap_ci(
    values, statistic: Callable = np.median, *, resamples: int = 10_000, confidence: float = 0.95, seed: int = 0,
    axis: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile-bootstrap interval of `statistic` over `axis` of `values` (low, high).

    A single value gives a zero-width interval (so do equal values, as any resample of them does).
    """
    data = np.asarray(values, dtype=float)
    if data.shape[axis] < 2:
        point = statistic(data, axis=axis)
        return point, point
    result = stats.bootstrap((data,), statistic, n_resamples=resamples, confidence_level=confidence,
                             method="percentile", axis=axis, random_state=np.random.default_rng(seed), vectorized=True)
    return result.confidence_interval.low, result.confidence_interval.high


def one_sided_u_tests(a, b) -> dict[str, float]:
    """p-values of the Mann-Whitney U test that `a` tends to be greater than `b`, and less than it."""
    greater = stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic")
    less = stats.mannwhitneyu(a, b, alternative="less", method="asymptotic")
    return {"u": float(greater.statistic), "p_greater": float(greater.pvalue), "p_less": float(less.pvalue)}
