"""Scores of a GOHR leaderboard, by the method of the GOHR paper (Pulick et al., arXiv 2207.10218) and
the authors' analysis code (the ease ratio of their Rule-Game server's MannWhitneyComparison).

Every (agent, rule) cell holds one terminal cumulated error (TCE) per trial. A trial that fails the
authors' convergence test (fewer than 0.25% wrong moves over its last 150 episodes) is "C.N.M."
(convergence not met): it scores +inf, worse than every trial that converged and tied with every other
C.N.M. trial. The comparisons are rank statistics, so no finite stand-in value is needed. A board
may instead order C.N.M. trials by their errors, still below every converged trial (``cnm: errors``),
which tells apart agents that all fall short of convergence at small budgets.

* per cell: the TCE sample, its median with a bootstrap interval, quartiles, and how many trials converged;
* per rule: one-sided Mann-Whitney U tests and ease ratios w[i, j] = (z[i, j] + 1) / (z[j, i] + 1)
  between agents, z[i, j] counting the trial pairs where agent i made fewer errors (ties 1/2);
* tournaments: the counts z of every rule (or every agent) are summed over the pairs of players that
  both have a sample there, so a missing cell removes matches instead of scoring zero; the ease ratios
  of the sums are ranked by their Perron eigenvector and by a Hodge decomposition, with percentile
  intervals from resampling the trials of every cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats
from zoo_report.stats.ranking import ease_ratios, hodge_ranking, perron_ranking, win_counts

#: added to the errors of C.N.M. trials when they are ordered by errors: above any TCE a budget allows
CNM_OFFSET = 1e15


@dataclass
class Cell:
    """The trials of one (agent, rule) cell: TCE and convergence per trial, cumulative errors per episode."""

    agent: str
    rule: str
    tce: np.ndarray
    converged: np.ndarray
    curves: list[np.ndarray] = field(default_factory=list)

    @property
    def scores(self) -> np.ndarray:
        """TCE with C.N.M. trials at +inf (lower is better)."""
        return np.where(self.converged, np.asarray(self.tce, dtype=float), np.inf)

    def ranked(self, cnm: str = "tie") -> np.ndarray:
        """The values that comparisons rank: `scores` ('tie', the authors' rule: C.N.M. trials are all
        equal), or ('errors') C.N.M. trials above every converged one but ordered by their errors."""
        if cnm == "tie":
            return self.scores
        return np.where(self.converged, 0.0, CNM_OFFSET) + np.asarray(self.tce, dtype=float)


def _order_statistic(values: np.ndarray, q) -> np.ndarray:
    """Quantiles without interpolation (inverted CDF), so +inf samples stay +inf instead of becoming nan."""
    return np.quantile(values, q, method="inverted_cdf", axis=-1)


def median_interval(scores: np.ndarray, *, resamples: int, seed: int, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile-bootstrap interval of the median of `scores` (which may hold +inf)."""
    scores = np.asarray(scores, dtype=float)
    if len(scores) < 2:
        return float(np.median(scores)), float(np.median(scores))
    rng = np.random.default_rng(seed)
    medians = np.median(scores[rng.integers(0, len(scores), (resamples, len(scores)))], axis=1)
    alpha = (1 - confidence) / 2
    low, high = _order_statistic(medians, [alpha, 1 - alpha])
    return float(low), float(high)


def cell_summary(cell: Cell, *, resamples: int, seed: int) -> dict:
    """The numbers of one cell (+inf marks a C.N.M. median or bound)."""
    scores = cell.scores
    low, high = median_interval(scores, resamples=resamples, seed=seed)
    q1, q3 = _order_statistic(scores, [0.25, 0.75])
    return {
        "agent": cell.agent, "rule": cell.rule, "trials": int(len(scores)),
        "converged": int(np.sum(cell.converged)), "tce": [int(t) for t in cell.tce],
        "median": float(np.median(scores)), "median_errors": float(np.median(cell.tce)), "median_ci95": [low, high], "quartiles": [float(q1), float(q3)],
    }


def p_fewer_errors(a: np.ndarray, b: np.ndarray) -> float:
    """One-sided Mann-Whitney p-value (asymptotic, as the authors ran it) that `a` tends to be below `b`.

    +inf (C.N.M.) becomes a value above every finite one, which leaves the ranks, and so the test, unchanged.
    """
    finite = np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)], [0.0]])
    above = finite.max() + 1.0
    return float(stats.mannwhitneyu(np.where(np.isfinite(a), a, above), np.where(np.isfinite(b), b, above),
                                    alternative="less", method="asymptotic").pvalue)


def rule_comparisons(samples: dict[str, np.ndarray]) -> dict:
    """Between the agents of one rule (in the order given): ease ratios and p-values that the row agent
    makes fewer errors."""
    names = list(samples)
    w = ease_ratios([samples[n] for n in names])
    return {
        "agents": names,
        "ease_ratio": {a: {b: float(w[i, j]) for j, b in enumerate(names) if b != a} for i, a in enumerate(names)},
        "p_fewer_errors": {a: {b: p_fewer_errors(samples[a], samples[b]) for b in names if b != a} for a in names},
    }


def pooled_counts(players: list[str], games: list[dict[str, np.ndarray]]) -> np.ndarray:
    """z[i, j] summed over the games where both players have a sample: trial pairs that i won (ties 1/2)."""
    index = {p: k for k, p in enumerate(players)}
    z = np.zeros((len(players), len(players)))
    for game in games:
        present = [p for p in players if p in game]
        counts = win_counts([game[p] for p in present])
        at = [index[p] for p in present]
        z[np.ix_(at, at)] += counts
    return z


def _ratings(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    w = (z + 1) / (z.T + 1)
    hodge, cyclic = hodge_ranking(w)
    return perron_ranking(w), hodge, cyclic


def _ranks(values: np.ndarray) -> np.ndarray:
    """1 for the best (largest) value; equal values (to 1e-9 relative) share the better rank."""
    tolerance = 1e-9 * max(1.0, float(np.abs(values).max()))
    return np.array([1 + int(np.sum(values > v + tolerance)) for v in values])


def tournament(players: list[str], games: list[dict[str, np.ndarray]], *, resamples: int, seed: int) -> dict:
    """Perron and Hodge rankings of `players` from the games' samples (lower samples win), with 95%
    percentile intervals of the scores and ranks from resampling every sample's trials with replacement."""
    players = sorted(players)
    if not players:
        return {"ranking": [], "hodge_cyclic_share": 0.0, "resamples": resamples}
    perron, hodge, cyclic = _ratings(pooled_counts(players, games))
    rng = np.random.default_rng(seed)
    draws = {"perron": [], "hodge": [], "perron_rank": [], "hodge_rank": []}
    for _ in range(resamples):
        resampled = [{p: s[rng.integers(0, len(s), len(s))] for p, s in sorted(game.items())} for game in games]
        p, h, _ = _ratings(pooled_counts(players, resampled))
        for key, value in (("perron", p), ("hodge", h), ("perron_rank", _ranks(p)), ("hodge_rank", _ranks(h))):
            draws[key].append(value)
    intervals = {key: np.quantile(np.array(v), [0.025, 0.975], axis=0, method="inverted_cdf") if v else None
                 for key, v in draws.items()}
    rows = []
    perron_rank, hodge_rank = _ranks(perron), _ranks(hodge)
    for k, name in enumerate(players):
        row = {"name": name, "perron": float(perron[k]), "hodge": float(hodge[k]),
               "perron_rank": int(perron_rank[k]), "hodge_rank": int(hodge_rank[k]),
               "games": sum(1 for game in games if name in game)}
        for key, bounds in intervals.items():
            row[f"{key}_ci95"] = None if bounds is None else [float(bounds[0][k]), float(bounds[1][k])]
        rows.append(row)
    rows.sort(key=lambda r: (r["perron_rank"], r["name"]))
    return {"ranking": rows, "hodge_cyclic_share": float(cyclic), "resamples": resamples}
