"""Atari score normalisations and aggregates, as the seed papers define them.

* Atari-57 papers (GDI, LBC, DiCE, Agent57): HNS = (G - random)/(human - random);
  HWRNS = (G - random)/(record - random); SABER = min(HWRNS, 2) (capped at 200%);
  HWRB = number of games with G >= record.
* ALE paper (Bellemare et al. 2013, Section 4): random-normalised s/|random|, baseline-set
  normalised (s - min R)/(max R - min R), inter-algorithm normalised over a set of algorithms,
  score distributions (fraction of games with z >= x) and per-game two-tailed Welch t-tests.

Normalised scores are fractions (1.0 = 100%). NaN marks a game whose range is empty.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import stats
from zoo_report.stats import bootstrap_ci

from .games import read_table

SABER_CAP = 2.0


@dataclass(frozen=True)
class Reference:
    """Random, human and human-world-record scores of one game."""

    random: float
    human: float
    record: float


@cache
def references(table: str = "gdi-scores.csv") -> dict[str, Reference]:
    """ROM id -> Reference from a score table with random, human and human_world_record columns."""
    return {_rom(row["game"]): Reference(float(row["random"]), float(row["human"]), float(row["human_world_record"]))
            for row in read_table(table)}


def _rom(name: str) -> str:
    return name.strip().lower().replace(" ", "_")


def column(table: str, name: str) -> dict[str, float]:
    """ROM id -> the numeric value in column `name` of a shipped table (empty cells are left out)."""
    return {_rom(row["game"]): float(row[name]) for row in read_table(table) if row[name].strip()}


def hns(score, random, human):
    """Human-normalised score."""
    return (np.asarray(score, float) - random) / (np.asarray(human, float) - random)


def hwrns(score, random, record):
    """Human-world-record-normalised score."""
    return (np.asarray(score, float) - random) / (np.asarray(record, float) - random)


def saber(score, random, record):
    """SABER: HWRNS capped at 200%."""
    return np.minimum(hwrns(score, random, record), SABER_CAP)


def breakthroughs(scores: dict[str, float], refs: dict[str, Reference]) -> int:
    """HWRB: games whose score reaches the human world record."""
    return sum(1 for game, score in scores.items() if score >= refs[game].record)


def normalised(scores: dict[str, float], refs: dict[str, Reference]) -> dict[str, dict[str, float]]:
    """Per game: hns, hwrns and saber of a score."""
    out = {}
    for game, score in scores.items():
        ref = refs[game]
        out[game] = {"hns": float(hns(score, ref.random, ref.human)),
                     "hwrns": float(hwrns(score, ref.random, ref.record)),
                     "saber": float(saber(score, ref.random, ref.record))}
    return out


def iqm(values, axis: int = 0):
    """Interquartile mean: the mean of the middle 50%."""
    return stats.trim_mean(values, 0.25, axis=axis)


def aggregate(values, *, resamples: int = 2000, seed: int = 0) -> dict[str, float | list[float]]:
    """Mean, median and IQM of per-game values (NaN left out), each with a 95% bootstrap interval."""
    data = np.asarray([v for v in values if np.isfinite(v)], float)
    out: dict[str, float | list[float]] = {"games": int(len(data)), "excluded": int(len(values) - len(data))}
    for name, statistic in (("mean", np.mean), ("median", np.median), ("iqm", iqm)):
        if not len(data):
            out[name] = float("nan")
            continue
        out[name] = float(statistic(data))
        low, high = bootstrap_ci(data, statistic, resamples=resamples, seed=seed)
        out[f"{name}_ci95"] = [float(low), float(high)]
    return out


# -- the ALE paper's normalisations ------------------------------------------------------------

def random_normalised(score, random):
    """s / |random score|; NaN when the random score is 0."""
    random = np.asarray(random, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(random == 0, np.nan, np.asarray(score, float) / np.abs(random))


def range_normalised(score, low, high):
    """(s - low) / (high - low); NaN for an empty range."""
    low, high = np.asarray(low, float), np.asarray(high, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(high == low, np.nan, (np.asarray(score, float) - low) / (high - low))


def baseline_normalised(score, baseline_scores):
    """Normalised to the range of a baseline set's scores on the game (e.g. random, 18 const, 18 perturb)."""
    baseline_scores = np.asarray(baseline_scores, float)
    return range_normalised(score, baseline_scores.min(), baseline_scores.max())


def inter_algorithm(scores: np.ndarray) -> np.ndarray:
    """Games x algorithms raw scores -> each game normalised to [0, 1] over the algorithms."""
    scores = np.asarray(scores, float)
    return range_normalised(scores, scores.min(axis=1, keepdims=True), scores.max(axis=1, keepdims=True))


def score_distribution(z, xs) -> np.ndarray:
    """For each x, the fraction of (non-NaN) games with z >= x: an inverse empirical CDF."""
    z = np.asarray(z, float)
    z = z[np.isfinite(z)]
    return np.array([(z >= x).mean() if len(z) else np.nan for x in np.asarray(xs, float)])


def welch(a, b, alpha: float = 0.01) -> dict[str, float]:
    """Two-tailed Welch t-test; ``winner`` is +1 (a better), -1 (b better) or 0 (not significant at alpha).

    Trial scores are often exactly equal (a deterministic agent on a short episode). When both runs
    have no spread the test takes its limit: t = 0 and p = 1 for equal scores, t = +-inf and p = 0 otherwise.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        difference = float(a[0] - b[0])
        t, p = (math.copysign(math.inf, difference), 0.0) if difference else (0.0, 1.0)
    else:
        with warnings.catch_warnings():  # scipy's "nearly identical data" warning: equal scores are exact
            warnings.filterwarnings("ignore", message="Precision loss occurred", category=RuntimeWarning)
            result = stats.ttest_ind(a, b, equal_var=False)
        t, p = float(result.statistic), float(result.pvalue)
    winner = int(np.sign(t)) if p < alpha else 0
    return {"t": t, "p": p, "winner": winner}


def paired_table(samples: dict[str, dict[str, list[float]]], alpha: float = 0.01) -> dict[tuple[str, str], tuple[int, int]]:
    """algorithm -> game -> per-trial scores  =>  (a, b) -> (games a is significantly better, worse)."""
    algorithms = sorted(samples)
    table = {}
    for i, a in enumerate(algorithms):
        for b in algorithms[i + 1:]:
            games = sorted(set(samples[a]) & set(samples[b]))
            verdicts = [welch(samples[a][g], samples[b][g], alpha)["winner"] for g in games
                        if len(samples[a][g]) > 1 and len(samples[b][g]) > 1]
            table[(a, b)] = (verdicts.count(1), verdicts.count(-1))
    return table
