"""Shared statistics of difficulty studies: U-test matrices, ease ratios, rankings, the convergence test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from zoo_gohr_study.errors import converged

from zoo.stats.ranking import ease_ratios, hodge_ranking, perron_ranking, u_test_matrix, win_counts


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


def _slow_win_counts(samples):
    return np.array([[0.0 if i == j else sum((a < b) + 0.5 * (a == b) for a in first for b in second)
                      for j, second in enumerate(samples)] for i, first in enumerate(samples)])


def test_win_counts_are_the_pairwise_counts_of_every_pair_of_samples():
    rng = np.random.default_rng(3)
    samples = [rng.integers(0, 6, size) for size in (5, 1, 8, 3)]  # small integers: many ties
    assert win_counts(samples).tolist() == _slow_win_counts(samples).tolist()
    assert win_counts([]).shape == (0, 0)
    # every pair is counted once: z[i, j] + z[j, i] = n_i n_j
    z = win_counts(samples)
    sizes = np.array([5, 1, 8, 3])
    assert ((z + z.T)[~np.eye(4, dtype=bool)] == np.outer(sizes, sizes)[~np.eye(4, dtype=bool)]).all()


def test_perron_ranking_of_an_inconsistent_tournament_is_its_leading_eigenvector():
    w = ease_ratios([[3, 5, 9, 1], [2, 8, 4], [6, 7, 0, 5, 2]])
    values, vectors = np.linalg.eig(w)
    leading = np.abs(vectors[:, np.argmax(values.real)].real)
    found = perron_ranking(w)
    assert np.allclose(found, leading / leading.sum(), rtol=0, atol=1e-11) and found.sum() == pytest.approx(1)
    with pytest.raises(RuntimeError, match="did not converge"):
        perron_ranking(w, max_iterations=1)


def test_hodge_ratings_of_a_complete_tournament_are_the_row_means_of_the_log_flow():
    # on a complete graph, least squares on a skew-symmetric flow Y gives r_i = mean_j Y_ij
    w = ease_ratios([[3, 5, 9, 1], [2, 8, 4], [6, 7, 0, 5, 2], [4, 4, 1]])
    flow = np.log(w)
    ratings, cyclic = hodge_ranking(w)
    assert np.allclose(ratings, flow.mean(axis=1), rtol=0, atol=1e-12)
    upper = np.triu_indices(4, 1)
    residual = flow - (ratings[:, None] - ratings[None, :])
    assert cyclic == pytest.approx((residual[upper] ** 2).sum() / (flow[upper] ** 2).sum(), rel=1e-9) and 0 < cyclic < 1
    assert [r.tolist() if isinstance(r, np.ndarray) else r for r in hodge_ranking(np.ones((3, 3)))] == [[0.0] * 3, 0.0]
    assert [r.tolist() if isinstance(r, np.ndarray) else r for r in hodge_ranking(np.ones((1, 1)))] == [[0.0], 0.0]


def test_perron_ranking_gives_up_after_100000_steps():
    # w = [[1, b], [c, 1]] has eigenvalues 1 +- sqrt(bc); from the uniform start the k-th iterate's first
    # share is known in closed form, and so is each step's change. A tolerance between the changes of
    # steps 100,000 and 100,001 is met one step too late; one between steps 99,999 and 100,000 just in time.
    b, c = 1e-3, 2.5e-8
    root_b, root_c, s = math.sqrt(b), math.sqrt(c), math.sqrt(b * c)
    alpha, beta = (1 / root_b + 1 / root_c) / 4, (1 / root_b - 1 / root_c) / 4

    def first_share(k):
        fading = beta * ((1 - s) / (1 + s)) ** k
        return (alpha + fading) * root_b / (alpha * (root_b + root_c) + fading * (root_b - root_c))

    def change(k):
        return abs(first_share(k) - first_share(k - 1))

    w = np.array([[1.0, b], [c, 1.0]])
    with pytest.raises(RuntimeError, match="did not converge"):
        perron_ranking(w, tolerance=(change(100_000) + change(100_001)) / 2)
    found = perron_ranking(w, tolerance=(change(99_999) + change(100_000)) / 2)
    assert found[0] == pytest.approx(first_share(100_000), abs=1e-12)


def test_a_tournament_of_equals_is_ranked_uniformly_at_the_first_step():
    assert perron_ranking(np.ones((3, 3)), max_iterations=1).tolist() == [1 / 3] * 3


def test_the_tolerance_is_strict():
    # a first step that changes the ranking by exactly the tolerance is not convergence
    w = np.array([[1.0, 4.0], [0.25, 1.0]]) * np.array([[1.0, 1.0], [1.0, 1.5]])
    start = np.full(2, 0.5)
    step = w @ start / (w @ start).sum()
    change = np.abs(step - start).max()
    with pytest.raises(RuntimeError, match="did not converge"):
        perron_ranking(w, tolerance=change, max_iterations=1)
    assert perron_ranking(w, tolerance=np.nextafter(change, 1), max_iterations=1).tolist() == step.tolist()
