"""Percentile-bootstrap bands of median curves: the same numbers as resampling the rows, and their edges."""

from __future__ import annotations

import numpy as np
import pytest

from zoo.stats.bands import median_bands


def test_median_bands_match_a_plain_row_bootstrap():
    rng = np.random.default_rng(1)
    curves = np.cumsum(rng.exponential(3.0, (41, 12)), axis=1)
    median, low, high = median_bands(curves, resamples=20_000, seed=3)
    picks = np.random.default_rng(4).integers(0, 41, (20_000, 41))
    plain = np.median(curves[picks], axis=1)
    assert np.allclose(median, np.median(curves, axis=0))
    assert np.allclose(low, np.quantile(plain, 0.025, axis=0), rtol=0.03)
    assert np.allclose(high, np.quantile(plain, 0.975, axis=0), rtol=0.03)
    assert (low <= median).all() and (median <= high).all()



def test_median_bands_of_equal_curves_have_no_width():
    median, low, high = median_bands(np.ones((6, 3)) * 7.0, resamples=100)
    assert median.tolist() == low.tolist() == high.tolist() == [7.0] * 3



def _plain_bootstrap(curves, resamples, confidence, seed):
    """Slow reference: resample whole rows of the curves with the generator median_bands uses, and take each
    resample's median. Each point's band depends on its own column only, so the rows resampled are those of
    the column-sorted curves (the same bootstrap at every point): median_bands must then give the very same
    numbers."""
    curves = np.sort(curves, axis=0)
    picks = np.random.default_rng(seed).integers(0, len(curves), (resamples, len(curves)))
    medians = np.median(curves[picks], axis=1)
    alpha = (1 - confidence) / 2
    return np.quantile(medians, [alpha, 1 - alpha], axis=0)



def test_median_bands_are_exactly_the_row_bootstrap_of_the_same_draws():
    # odd and even numbers of trials, resamples not a multiple of the chunk, default and other confidence
    rng = np.random.default_rng(7)
    for trials, confidence in ((7, 0.95), (8, 0.95), (2, 0.8), (1, 0.9), (5, 0.3)):
        curves = rng.normal(size=(trials, 5))
        low, high = _plain_bootstrap(curves, 1234, confidence, seed=2)
        for chunk in (100, 5_000):
            median, found_low, found_high = median_bands(curves, resamples=1234, confidence=confidence, seed=2,
                                                         chunk=chunk)
            assert median.tolist() == np.median(curves, axis=0).tolist()
            assert found_low.tolist() == low.tolist() and found_high.tolist() == high.tolist()
    # three resamples: each one moves the quantiles, so every row of draws must be there
    curves = rng.normal(size=(5, 4))
    low, high = _plain_bootstrap(curves, 3, 0.95, seed=4)
    for chunk in (2, 5_000):
        found = median_bands(curves, resamples=3, seed=4, chunk=chunk)[1:]
        assert [band.tolist() for band in found] == [low.tolist(), high.tolist()]
    curves = rng.normal(size=(6, 3))
    low, high = _plain_bootstrap(curves, 50_000, 0.95, seed=0)
    assert [band.tolist() for band in median_bands(curves)[1:]] == [low.tolist(), high.tolist()]



def test_median_bands_refuse_no_curves():
    with pytest.raises(ValueError, match="no curves to bootstrap"):
        median_bands(np.empty((0, 4)))


def test_default_bands_are_50000_resamples_of_seed_0():
    # Two trials: a resample's median is the lower value when both draws pick it. Put the lower quantile
    # halfway between that median and the next one, where it depends on the exact count of such draws.
    curves = np.array([[1.0], [3.0]])
    both_low = int((np.random.default_rng(0).integers(0, 2, (50_000, 2)).sum(axis=1) == 0).sum())
    confidence = 1 - 2 * (both_low - 0.5) / 49_999
    low, high = _plain_bootstrap(curves, 50_000, confidence, seed=0)
    assert low.tolist() == [1.5]
    assert [band.tolist() for band in median_bands(curves, confidence=confidence)[1:]] == [low.tolist(), high.tolist()]
