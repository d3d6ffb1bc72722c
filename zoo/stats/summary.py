"""Bootstrap confidence intervals and one-sided Mann-Whitney U tests (scipy underneath)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import stats


def bootstrap_ci(
    values, statistic: Callable = np.median, *, resamples: int = 10_000, confidence: float = 0.95, seed: int = 0,
    axis: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile-bootstrap interval of `statistic` over `axis` of `values` (low, high).

    A single value (or values that are all equal) gives a zero-width interval.
    """
    data = np.asarray(values, dtype=float)
    if data.shape[axis] < 2 or np.all(data == data.take([0], axis=axis)):
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
