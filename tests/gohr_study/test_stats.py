"""Shared statistics of difficulty studies: bootstrap bands, U-test matrices, ease ratios, rankings."""

from __future__ import annotations

import numpy as np
from scipy import stats
from zoo_gohr_study.errors import converged

from zoo.stats.bands import median_bands
from zoo.stats.ranking import ease_ratios, hodge_ranking, perron_ranking, u_test_matrix, win_counts


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


def test_win_counts_and_ease_ratio_by_hand():
    # pairs a < b: (1,2) (1,3) (2,3) and the tie (2,2) counts 1/2
    assert win_counts([[1, 2], [2, 3]]).tolist() == [[0, 3.5], [0.5, 0]]
    assert ease_ratios([[1, 2], [2, 3]])[0, 1] == 4.5 / 1.5


def test_perron_ranking_of_a_consistent_tournament_is_its_strengths():
    strength = np.array([4.0, 2.0, 1.0])
    assert np.allclose(perron_ranking(strength[:, None] / strength[None, :]), strength / 7)


def test_hodge_ranking_recovers_ratings_and_sees_cycles():
    ratings = np.array([1.0, -0.5, -0.5])
    w = np.exp(ratings[:, None] - ratings[None, :])
    found, cyclic = hodge_ranking(w)
    assert np.allclose(found, ratings) and cyclic < 1e-12
    rock_paper_scissors = np.exp(np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]]))
    found, cyclic = hodge_ranking(rock_paper_scissors)
    assert np.allclose(found, 0) and np.isclose(cyclic, 1.0)


def test_u_test_matrix_is_scipys_one_sided_test():
    a, b = [5, 6, 7, 8, 30], [1, 2, 3, 6, 4]
    p = u_test_matrix([a, b])
    assert np.isnan(p[0, 0])
    assert p[0, 1] == stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic").pvalue < 0.05
    assert p[1, 0] > 0.95


def test_convergence_test_of_the_authors():
    errors = np.zeros((3, 200), int)
    errors[1, -150:] = [1] * 3 + [0] * 147   # 3 / (1350 + 3) = 0.22% < 0.25%
    errors[2, -150:] = [1] * 4 + [0] * 146   # 4 / 1354 = 0.30%
    assert converged(errors, pieces=9).tolist() == [True, True, False]
