"""Percentile-bootstrap confidence bands of median curves, exact and fast for many resamples."""

from __future__ import annotations

import numpy as np


def median_bands(curves, *, resamples: int = 50_000, confidence: float = 0.95, seed: int = 0,
                 chunk: int = 5_000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(median, low, high) at each point of `curves` (trials x points), resampling trials with replacement.

    The median of a resample only depends on which order statistics it draws, so each point's column
    is sorted once and every resample reduces to the middle ranks of `trials` uniform draws: the same
    percentile bootstrap as resampling the rows, at the cost of a gather per resample.
    """
    data = np.sort(np.asarray(curves, dtype=float), axis=0)
    n = len(data)
    if n == 0:
        raise ValueError("no curves to bootstrap")
    rng = np.random.default_rng(seed)
    medians = np.empty((resamples, data.shape[1]))
    for start in range(0, resamples, chunk):
        draws = np.sort(rng.integers(0, n, (min(chunk, resamples - start), n)), axis=1)
        low, high = draws[:, (n - 1) // 2], draws[:, n // 2]
        medians[start:start + len(draws)] = (data[low] + data[high]) / 2
    alpha = (1 - confidence) / 2
    band = np.quantile(medians, [alpha, 1 - alpha], axis=0)
    return np.median(data, axis=0), band[0], band[1]
