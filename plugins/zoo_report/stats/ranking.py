"""Pairwise comparisons of samples (lower is better, e.g. errors): U-test matrices, ease ratios, rankings.

* `win_counts` z[i, j]: pairs (a in sample i, b in sample j) with a < b, ties counting 1/2 (the U statistic);
* `ease_ratios` w[i, j] = (z[i, j] + 1) / (z[j, i] + 1), as in the GOHR authors' MannWhitneyComparison;
* `perron_ranking`: the Perron eigenvector of w (power iteration), larger is better;
* `hodge_ranking`: the gradient part of the Helmholtz-Hodge decomposition of the edge flow log w
  (Strang, Abbott and Thomas 2022), with the share of the flow that is cyclic.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats


def win_counts(samples: list) -> np.ndarray:
    """z[i, j]: number of pairs where sample i's value is below sample j's (ties 1/2).

    Each sample is sorted once and every value of every sample is located in it by binary search, so
    k samples of n values cost O(k^2 n log n) without forming the n x n pair tables.
    """
    samples = [np.asarray(s, dtype=float).ravel() for s in samples]
    k = len(samples)
    z = np.zeros((k, k))
    if k == 0:
        return z
    values = np.concatenate(samples)
    owner = np.repeat(np.arange(k), [len(s) for s in samples])
    for j, sample in enumerate(samples):
        ordered = np.sort(sample)
        below_or_equal = np.searchsorted(ordered, values, side="right")
        ties = below_or_equal - np.searchsorted(ordered, values, side="left")
        z[:, j] = np.bincount(owner, weights=(len(ordered) - below_or_equal) + 0.5 * ties, minlength=k)
    np.fill_diagonal(z, 0.0)
    return z


def ease_ratios(samples: list) -> np.ndarray:
    """w[i, j] = (z[i, j] + 1) / (z[j, i] + 1): how much more often i was better than j."""
    z = win_counts(samples)
    return (z + 1) / (z.T + 1)


def u_test_matrix(samples: list) -> np.ndarray:
    """p[i, j]: one-sided Mann-Whitney p-value that sample i tends to be greater than sample j (asymptotic)."""
    p = np.full((len(samples), len(samples)), np.nan)
    for i, j in itertools.permutations(range(len(samples)), 2):
        p[i, j] = stats.mannwhitneyu(samples[i], samples[j], alternative="greater", method="asymptotic").pvalue
    return p


def perron_ranking(w: np.ndarray, *, tolerance: float = 1e-12, max_iterations: int = 100_000) -> np.ndarray:
    """The Perron eigenvector of the positive matrix `w` (sums to 1); larger entries rank higher."""
    w = np.asarray(w, dtype=float)
    x = np.full(len(w), 1.0 / len(w))
    for _ in range(max_iterations):
        nxt = w @ x
        nxt /= nxt.sum()
        if np.abs(nxt - x).max() < tolerance:
            return nxt
        x = nxt
    raise RuntimeError("power iteration did not converge")


def hodge_ranking(w: np.ndarray) -> tuple[np.ndarray, float]:
    """(ratings, cyclic share): least-squares ratings r with r_i - r_j ~ log w[i, j] over all pairs (mean 0),
    and the share of the flow's squared norm that no rating explains (0 for a transitive tournament)."""
    flow = np.log(np.asarray(w, dtype=float))
    k = len(flow)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    if not pairs:
        return np.zeros(k), 0.0
    gradient = np.zeros((len(pairs), k))
    target = np.empty(len(pairs))
    for e, (i, j) in enumerate(pairs):
        gradient[e, i], gradient[e, j], target[e] = 1.0, -1.0, flow[i, j]
    ratings = np.linalg.lstsq(gradient, target, rcond=None)[0]
    ratings -= ratings.mean()
    total = float(target @ target)
    residual = target - gradient @ ratings
    return ratings, float(residual @ residual / total) if total > 0 else 0.0
