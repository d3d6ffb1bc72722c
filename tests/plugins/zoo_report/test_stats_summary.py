"""zoo.stats' intervals and rank tests: known answers, both sides of each test, and the defaults they document."""

from __future__ import annotations

import numpy as np
import pytest

from zoo.stats import MIN_TEST_TRIALS, bootstrap_ci, one_sided_u_tests, too_few_to_test


def test_too_few_to_test_refuses_below_three_trials_on_either_side():
    assert MIN_TEST_TRIALS == 3
    assert too_few_to_test(3, 3) is None and too_few_to_test(40, 3) is None
    for sizes in ((2, 3), (3, 2), (1, 50)):
        message = too_few_to_test(*sizes)
        assert message == (f"no test: a significance test needs at least 3 trials per run (here {sizes[0]} and "
                           f"{sizes[1]}); train more trials (--trials)")


def test_u_statistic_counts_the_pairs_the_first_sample_wins_ties_as_half():
    # a = 1, 2, 2 against b = 2, 3: a > b never; a = b twice (2 vs 2), each 1/2
    assert one_sided_u_tests([1, 2, 2], [2, 3])["u"] == 1.0
    assert one_sided_u_tests([4, 5, 6], [1, 2, 3])["u"] == 9.0


def test_u_test_sides_point_the_right_way_and_mirror_each_other():
    high, low = np.arange(10.0, 20.0), np.arange(0.0, 10.0)
    tests = one_sided_u_tests(high, low)
    assert tests["p_greater"] < 1e-3 < 0.999 < tests["p_less"]
    mirrored = one_sided_u_tests(low, high)
    assert mirrored["p_less"] == pytest.approx(tests["p_greater"]) and mirrored["p_greater"] == pytest.approx(tests["p_less"])
    # the asymptotic normal approximation with continuity correction: z = (U - n m / 2 - 1/2) / sd
    u, n = 100.0, 10
    z = (u - n * n / 2 - 0.5) / np.sqrt(n * n * (2 * n + 1) / 12)
    from scipy.stats import norm
    assert tests["p_greater"] == pytest.approx(norm.sf(z), rel=1e-9)


def test_bootstrap_ci_of_two_values_spans_them():
    # medians of resamples of (1, 3) are 1, 2 or 3 (probabilities 1/4, 1/2, 1/4): 2.5% and 97.5% points are 1 and 3
    assert bootstrap_ci([1.0, 3.0]) == (1.0, 3.0)
    assert bootstrap_ci([3.0, 1.0]) == (1.0, 3.0)


def test_bootstrap_ci_of_one_value_or_equal_values_has_no_width():
    assert bootstrap_ci([4.0]) == (4.0, 4.0)
    assert bootstrap_ci([3.0, 3.0, 3.0]) == (3.0, 3.0)
    low, high = bootstrap_ci(np.full((5, 2), 7.0), axis=0)
    assert low.tolist() == high.tolist() == [7.0, 7.0]


def test_bootstrap_ci_matches_a_plain_percentile_bootstrap():
    data = np.random.default_rng(4).exponential(5.0, 60)
    low, high = bootstrap_ci(data, resamples=20_000)
    medians = np.median(data[np.random.default_rng(9).integers(0, 60, (20_000, 60))], axis=1)
    assert low == pytest.approx(np.quantile(medians, 0.025), rel=0.05)
    assert high == pytest.approx(np.quantile(medians, 0.975), rel=0.05)
    narrow = bootstrap_ci(data, resamples=20_000, confidence=0.5)
    assert low < narrow[0] < np.median(data) < narrow[1] < high


def test_bootstrap_ci_defaults_are_the_median_10000_resamples_95_percent_and_seed_0():
    data = np.random.default_rng(5).normal(size=30)
    assert bootstrap_ci(data) == bootstrap_ci(data, np.median, resamples=10_000, confidence=0.95, seed=0, axis=0)
    assert bootstrap_ci(data) != bootstrap_ci(data, np.mean)
    # the mean's interval moves with every resample, so it shows the defaults that the median's may hide
    means = bootstrap_ci(data, np.mean)
    assert means == bootstrap_ci(data, np.mean, resamples=10_000, confidence=0.95, seed=0)
    for other in ({"seed": 1}, {"resamples": 9_999}, {"confidence": 0.9}):
        assert bootstrap_ci(data, np.mean, **other) != means


def test_bootstrap_ci_resamples_along_the_first_axis_by_default_with_one_call_of_the_statistic():
    curves = np.random.default_rng(7).normal(size=(20, 3))
    calls = []

    def median(data, axis):
        calls.append(data.shape)
        return np.median(data, axis=axis)

    low, high = bootstrap_ci(curves, median, resamples=500)
    along_rows = bootstrap_ci(curves, np.median, resamples=500, axis=0)
    assert low.shape == (3,) and np.array_equal(low, along_rows[0]) and np.array_equal(high, along_rows[1])
    assert len(calls) <= 2  # scipy is handed every resample at once (vectorized), not 500 calls


def test_bootstrap_ci_along_an_axis_gives_one_interval_per_column():
    curves = np.cumsum(np.random.default_rng(6).exponential(1.0, (25, 4)), axis=1)
    low, high = bootstrap_ci(curves, axis=0, resamples=2000)
    assert low.shape == high.shape == (4,)
    assert (low <= np.median(curves, axis=0)).all() and (np.median(curves, axis=0) <= high).all()
    assert (np.diff(low) > 0).all()  # the curves rise, so do their intervals
    rows_low, rows_high = bootstrap_ci(curves.T, axis=1, resamples=2000)
    assert np.allclose(rows_low, low) and np.allclose(rows_high, high)
