"""Scores across tasks, as the field now reports them: rliable's aggregates with stratified bootstrap intervals.

Agarwal et al., "Deep Reinforcement Learning at the Edge of the Statistical Precipice" (NeurIPS 2021),
argue that a handful of runs per task calls for interval estimates of robust aggregates instead of
point estimates of the mean. Their library, rliable, provides the estimators; this module arranges a
board's cells for it and names the results.

Every agent's scores form a matrix of shape (runs, tasks) of *normalized* scores, where 0 is random
play and 1 the task's reference (``normalized``). From it:

* the interquartile mean (IQM: the mean of the middle 50% of all runs' scores, pooled over tasks),
  the median, the mean, and the optimality gap (how far the scores fall short of 1, scores above 1
  counting as 1), each with a percentile interval from the stratified bootstrap (runs are resampled
  within each task, so every task keeps its weight);
* the probability of improvement P(X > Y) of every ordered pair of agents: for each task the chance
  that a run of X beats a run of Y (the Mann-Whitney U statistic over the run pairs, ties counting
  1/2), averaged over the tasks, with its interval;
* performance profiles: for each threshold tau, the fraction of runs (over all tasks) scoring above tau.

A stratified bootstrap of one run per task resamples nothing: the interval collapses to the point.
``too_few_runs`` names those agents so that every output can warn instead of printing a zero-width
interval as if it meant certainty.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import permutations

import numpy as np

from zoo import require_extra

#: the fewest runs per task for which a bootstrap interval says anything
MIN_RUNS_FOR_INTERVAL = 2

AGGREGATES = ("iqm", "median", "mean", "optimality_gap")


@dataclass(frozen=True)
class Estimate:
    """A point estimate with the bounds of its interval."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high}


def normalized(raw: np.ndarray, random: float, reference: float) -> np.ndarray:
    """Scores rescaled so that `random` play maps to 0 and the `reference` score to 1."""
    if not np.isfinite(random) or not np.isfinite(reference):
        raise ValueError(f"a normalization needs finite random and reference scores (given {random}, {reference})")
    if reference == random:
        raise ValueError(f"the reference score equals random play's ({reference}): nothing to normalize by")
    return (np.asarray(raw, dtype=float) - random) / (reference - random)


def too_few_runs(scores: dict[str, np.ndarray]) -> list[str]:
    """The agents with fewer runs per task than an interval needs."""
    return [agent for agent, matrix in scores.items() if matrix.shape[0] < MIN_RUNS_FOR_INTERVAL]


def _check(scores: dict[str, np.ndarray]) -> None:
    tasks = {matrix.shape[1] for matrix in scores.values()}
    if any(matrix.ndim != 2 or matrix.shape[0] < 1 for matrix in scores.values()) or len(tasks) > 1:
        shapes = ", ".join(f"{agent}: {matrix.shape}" for agent, matrix in scores.items())
        raise ValueError(f"every agent's scores must be a (runs, tasks) matrix over the same tasks; given {shapes}")


def _aggregate_functions():
    metrics = require_extra("rliable.metrics", "boards", "a board's aggregates")

    return {
        "iqm": metrics.aggregate_iqm,
        "median": metrics.aggregate_median,
        "mean": metrics.aggregate_mean,
        "optimality_gap": metrics.aggregate_optimality_gap,
    }


def _intervals(score_dict: dict, func, reps: int, seed: int, size: float) -> tuple[dict, dict]:
    """rliable's stratified bootstrap, reproducible for a seed.

    rliable draws its resampling indices from numpy's global generator (``np.random.choice``), not from the
    ``random_state`` it hands to arch, so the global generator is seeded for the call and restored after it;
    arch's warning that a RandomState is the old way to seed is about rliable's call and says nothing to users.
    """
    library = require_extra("rliable.library", "boards", "a board's aggregates")

    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="random_state is deprecated", category=FutureWarning)
            return library.get_interval_estimates(score_dict, func, reps=reps, confidence_interval_size=size,
                                                  random_state=np.random.RandomState(seed))
    finally:
        np.random.set_state(saved)


def aggregate_estimates(scores: dict[str, np.ndarray], *, reps: int = 2000, seed: int = 0,
                        size: float = 0.95) -> dict[str, dict[str, Estimate]]:
    """IQM, median, mean and optimality gap of every agent's normalized scores, with bootstrap intervals."""
    _check(scores)
    functions = _aggregate_functions()
    points, intervals = _intervals(scores, lambda m: np.array([f(m) for f in functions.values()]), reps, seed, size)
    return {
        agent: {name: Estimate(float(points[agent][i]), float(intervals[agent][0, i]), float(intervals[agent][1, i]))
                for i, name in enumerate(functions)}
        for agent in scores
    }


def probability_of_improvement(x: np.ndarray, y: np.ndarray) -> float:
    """P(X > Y): per task, the share of run pairs (one run of X, one of Y) where X scores higher, ties counting
    1/2, averaged over tasks.

    This is rliable's ``metrics.probability_of_improvement`` (which takes each task's Mann-Whitney U statistic
    from scipy, U / (runs of X x runs of Y)) counted over all run pairs at once: a board's every pair of
    agents times thousands of bootstrap resamples calls it millions of times, and scipy's per-call cost made
    scoring a board of nine agents take minutes. tests/plugins/zoo_board/test_aggregates.py checks the two agree.
    """
    greater = (x[:, None, :] > y[None, :, :]).mean(axis=(0, 1))
    ties = (x[:, None, :] == y[None, :, :]).mean(axis=(0, 1))
    return float(np.mean(greater + ties / 2))


def improvement_probabilities(scores: dict[str, np.ndarray], *, reps: int = 2000, seed: int = 0,
                              size: float = 0.95) -> dict[tuple[str, str], Estimate]:
    """P(X > Y) for every ordered pair of agents (X, Y), with a bootstrap interval."""
    _check(scores)
    pairs = {f"{x}\t{y}": [scores[x], scores[y]] for x, y in permutations(scores, 2)}
    if not pairs:
        return {}
    points, intervals = _intervals(pairs, probability_of_improvement, reps, seed, size)
    return {tuple(key.split("\t")): Estimate(float(points[key]), *map(float, np.ravel(intervals[key])))
            for key in pairs}


def performance_profiles(scores: dict[str, np.ndarray], taus: np.ndarray, *, reps: int = 2000, seed: int = 0,
                         size: float = 0.95) -> dict[str, dict[str, list[float]]]:
    """The fraction of runs scoring above each tau, per agent, with its bootstrap band."""
    _check(scores)
    taus = np.asarray(taus, dtype=float)
    points, intervals = _intervals(scores, lambda m: (m.reshape(-1, 1) > taus).mean(axis=0), reps, seed, size)
    return {agent: {"tau": taus.tolist(), "fraction": points[agent].tolist(),
                    "low": intervals[agent][0].tolist(), "high": intervals[agent][1].tolist()}
            for agent in scores}


def profile_taus(scores: dict[str, np.ndarray], points: int = 101) -> np.ndarray:
    """Thresholds spanning every score the board holds (and 0 to 1, random to reference)."""
    pooled = np.concatenate([matrix.ravel() for matrix in scores.values()])
    return np.linspace(min(0.0, float(pooled.min())), max(1.0, float(pooled.max())), points)
